/** `hermes chat`: one-shot (`-q`, `-z`, `--json`, `--query-file`) or an interactive session. */
import { readFileSync } from "node:fs";
import type { RunResult } from "../../agent/agent.js";
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

function jsonEnvelope(
  result: RunResult | undefined,
  meta: { model: string; provider: string },
  startedAt: number,
  error?: string,
) {
  return {
    ok: !error && Boolean(result?.completed),
    final: result?.finalResponse ?? "",
    sessionId: result?.sessionId ?? null,
    model: result?.model ?? meta.model,
    provider: result?.provider ?? meta.provider,
    usage: result?.usage ?? null,
    apiCalls: result?.apiCalls ?? 0,
    toolCalls: result?.toolCalls ?? 0,
    durationMs: Date.now() - startedAt,
    ...(error ? { error } : {}),
  };
}

export async function runChat(flags: ChatFlags): Promise<void> {
  const startedAt = Date.now();
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
  // SIGTERM stops the turn as Ctrl-C does, so the running command's process group goes with it.
  const onSigint = () => runtime.agent.interrupt();
  process.once("SIGINT", onSigint);
  process.once("SIGTERM", onSigint);
  let result: RunResult | undefined;
  let error: string | undefined;
  try {
    result = await runtime.agent.runConversation(query);
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
  } else if (error || !result?.completed) {
    if (!flags.json) process.stderr.write(`hermes: ${error ?? "the agent stopped without a final answer"}\n`);
    process.exitCode = EXIT.error;
  }
}
