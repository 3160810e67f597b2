/** `hermes chat`: one-shot (`-q`, `-z`, `--json`, `--query-file`) or an interactive session. */
import { readFileSync } from "node:fs";
import type { RunResult } from "../../agent/agent.js";
import { redactSecrets } from "../../util/redact.js";
import { markTurnCompleted } from "../../util/turn-marker.js";
import { collectBackgroundResults } from "../background-wait.js";
import { EXIT, UsageError } from "../exit-codes.js";
import type { ChatFlags } from "../program.js";
import { attachProgress } from "../progress.js";
import { buildRuntime } from "../runtime.js";
import { SessionTitler } from "../session-titles.js";

async function readQuery(flags: ChatFlags): Promise<string | undefined> {
  if (flags.query !== undefined) return flags.query;
  if (flags.queryFile === undefined) return undefined;
  if (flags.queryFile === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return readFileSync(flags.queryFile, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read --query-file ${flags.queryFile}: ${(error as Error).message}`);
  }
}

/** A run that ended on the iteration budget still answered: with the model's summary. */
function answered(result: RunResult | undefined): boolean {
  return Boolean(result && (result.completed || (result.stopReason === "budget" && result.finalResponse)));
}

function jsonEnvelope(
  result: RunResult | undefined,
  meta: { model: string | null; provider: string | null },
  startedAt: number,
  error?: string,
) {
  const ok = !error && answered(result);
  return {
    ok,
    final: result?.finalResponse ?? "",
    stopReason: result?.stopReason ?? "error",
    sessionId: result?.sessionId ?? null,
    model: result?.model ?? meta.model,
    provider: result?.provider ?? meta.provider,
    usage: result?.usage ?? null,
    apiCalls: result?.apiCalls ?? 0,
    toolCalls: result?.toolCalls ?? 0,
    durationMs: Date.now() - startedAt,
    ...(ok ? {} : { error: redactSecrets(error ?? "the agent stopped without a final answer") }),
  };
}

/**
 * With --json, a failure before or around the run (a usage or config error, a provider that
 * cannot be reached) still prints exactly one JSON object; the exit code is unchanged.
 */
export function printJsonFailure(error: unknown, startedAt: number): void {
  const message = error instanceof Error ? error.message : String(error);
  const envelope = jsonEnvelope(undefined, { model: null, provider: null }, startedAt, message);
  process.stdout.write(`${JSON.stringify(envelope)}\n`);
}

export async function runChat(flags: ChatFlags): Promise<void> {
  const startedAt = Date.now();
  if (!flags.json) return runChatTurn(flags, startedAt);
  try {
    await runChatTurn(flags, startedAt);
  } catch (error) {
    printJsonFailure(error, startedAt);
    // Written to stdout as JSON; the caller maps the error to its exit code without printing it again.
    throw Object.assign(error instanceof Error ? error : new Error(String(error)), { reported: true });
  }
}

async function runChatTurn(flags: ChatFlags, startedAt: number): Promise<void> {
  const query = await readQuery(flags);
  if (query === undefined) {
    if (flags.json) throw new UsageError("--json needs a one-shot prompt (-q, -z or --query-file)");
    const { runInteractive } = await import("../repl.js");
    await runInteractive(flags);
    return;
  }
  if (!query.trim()) throw new UsageError("the prompt is empty");

  const quiet = Boolean(flags.quiet || flags.json || flags.finalOnly);
  const runtime = await buildRuntime(flags, { interactive: false, quiet });
  const detach = quiet ? () => {} : attachProgress(runtime.agent, { verbose: Boolean(flags.verbose) });
  const background = collectBackgroundResults(runtime.background);
  // SIGTERM stops the turn as Ctrl-C does, so the running command's process group goes with it.
  const onSigint = () => {
    runtime.agent.interrupt();
    background.stop();
  };
  process.once("SIGINT", onSigint);
  process.once("SIGTERM", onSigint);
  let result: RunResult | undefined;
  let error: string | undefined;
  try {
    result = await runtime.agent.runConversation(query);
    // Background subagents report back before the answer is printed.
    const notice = (message: string) => {
      if (!quiet) process.stderr.write(`hermes: ${message}\n`);
    };
    result = await background.finish(runtime.agent, result, notice);
    markTurnCompleted();
    error = result.error;
    if (result.completed) {
      // No second model call here: the first message names the session.
      const titler = new SessionTitler();
      titler.afterTurn(runtime.store, result.sessionId, query, result.finalResponse);
      await titler.settled();
    }
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    detach();
    await runtime.close();
  }

  if (flags.json) {
    process.stdout.write(`${JSON.stringify(jsonEnvelope(result, runtime, startedAt, error))}\n`);
  } else if (result?.finalResponse) {
    process.stdout.write(result.finalResponse.endsWith("\n") ? result.finalResponse : `${result.finalResponse}\n`);
  }
  if (result?.interrupted) {
    process.exitCode = EXIT.interrupted;
  } else if (error || !answered(result)) {
    if (!flags.json) process.stderr.write(`hermes: ${error ?? "the agent stopped without a final answer"}\n`);
    process.exitCode = EXIT.error;
  } else if (result?.stopReason === "budget" && !flags.json && !flags.quiet) {
    process.stderr.write(
      "hermes: the iteration budget ran out (--max-turns / agent.max_turns); the answer is the model's summary of where it got to\n",
    );
  }
}
