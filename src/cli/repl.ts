/**
 * Interactive sessions: the full-screen TUI on a terminal, or plain lines when stdin or stdout
 * is not a terminal (pipes, scripts, dumb terminals). Both drive the same controller and slash
 * commands. In line mode each input line is one message or command, run to completion before
 * the next line is read; replies go to stdout, progress to stderr.
 */
import { createInterface } from "node:readline";
import { type AgentEvent, previewArgs } from "../agent/events.js";
import type { ApprovalAnswer, ApprovalRequest } from "../tools/registry.js";
import { MAX_FOLLOW_UP_TURNS } from "./background-wait.js";
import type { ChatFlags } from "./program.js";
import type { ChatController, ChatView, TurnOutcome } from "./tui/controller.js";
import { DEFAULT_PREVIEW_LENGTH } from "./tui/display-options.js";
import { DEFAULT_TOOL_EMOJI, parseApprovalAnswer, parseClarifyAnswer, toolLine } from "./tui/format.js";

export async function runInteractive(flags: ChatFlags): Promise<void> {
  if (process.stdin.isTTY && process.stdout.isTTY) {
    const { runTui } = await import("./tui/app.js");
    await runTui(flags);
    return;
  }
  await runLineMode(flags);
}

/** Lines of stdin as a queue both the main loop and mid-turn questions read from. */
class LineReader {
  private readonly lines: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private ended = false;

  constructor(input: NodeJS.ReadableStream) {
    const rl = createInterface({ input, terminal: false });
    rl.on("line", (line) => {
      if (this.waiting) {
        const wake = this.waiting;
        this.waiting = undefined;
        wake(line);
      } else {
        this.lines.push(line);
      }
    });
    rl.on("close", () => {
      this.ended = true;
      this.waiting?.(undefined);
      this.waiting = undefined;
    });
  }

  next(): Promise<string | undefined> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}

class LineView implements ChatView {
  controller: ChatController | undefined;
  private readonly previews = new Map<string, string>();
  private midLine = false;
  private textThisTurn = false;

  constructor(
    private readonly reader: LineReader,
    private readonly quiet: boolean,
  ) {}

  print(text: string): void {
    this.endLine();
    process.stdout.write(`${text}\n`);
  }

  clearScreen(): void {}

  agentEvent(event: AgentEvent): void {
    const display = this.controller?.display;
    switch (event.type) {
      case "text_delta":
        process.stdout.write(event.text);
        this.textThisTurn ||= event.text.length > 0;
        this.midLine = !event.text.endsWith("\n");
        break;
      case "reasoning_delta":
        if (display?.showReasoning && !this.quiet) process.stderr.write(event.text);
        break;
      case "tool_start": {
        const length = display?.options?.toolPreviewLength || DEFAULT_PREVIEW_LENGTH;
        this.previews.set(event.callId, event.args === undefined ? event.preview : previewArgs(event.args, length));
        break;
      }
      case "tool_end": {
        const preview = this.previews.get(event.callId) ?? "";
        this.previews.delete(event.callId);
        if (this.quiet || display?.toolProgress === "off") break;
        const emoji = this.controller?.runtime.agent.options.registry?.get(event.name)?.emoji ?? DEFAULT_TOOL_EMOJI;
        this.endLine();
        process.stderr.write(
          `${toolLine({ emoji, name: event.name, preview, durationMs: event.durationMs, failed: event.failed })}\n`,
        );
        break;
      }
      case "status":
        if (!this.quiet) process.stderr.write(`… ${event.message}\n`);
        break;
      default:
        break;
    }
  }

  turnStarted(): void {
    this.midLine = false;
    this.textThisTurn = false;
  }

  turnEnded(outcome: TurnOutcome): void {
    this.endLine();
    if (outcome.result?.interrupted) process.stderr.write("[interrupted]\n");
    else if (outcome.error) process.stderr.write(`hermes: ${outcome.error}\n`);
    else if (!this.textThisTurn && outcome.result?.finalResponse) {
      // The provider did not stream: print the reply in one piece.
      process.stdout.write(`${outcome.result.finalResponse}\n`);
    }
  }

  statusChanged(): void {}

  async askClarify(question: string, choices?: string[]): Promise<string> {
    this.endLine();
    const options = choices?.map((c, i) => `  ${i + 1}. ${c}`) ?? [];
    process.stderr.write(`? ${question}\n${options.join("\n")}${options.length ? "\n" : ""}answer> `);
    return parseClarifyAnswer((await this.reader.next()) ?? "", choices);
  }

  async askApproval(request: ApprovalRequest): Promise<ApprovalAnswer> {
    this.endLine();
    process.stderr.write(
      `⚠ dangerous command (${request.reason}): ${request.command}\n` +
        `allow? [d]eny (Enter), [o]nce, [s]ession (any ${request.reason} this session), [a]lways (exactly this command)> `,
    );
    return parseApprovalAnswer((await this.reader.next()) ?? "");
  }

  exit(): void {}

  private endLine(): void {
    if (this.midLine) process.stdout.write("\n");
    this.midLine = false;
  }
}

async function runLineMode(flags: ChatFlags): Promise<void> {
  const { ChatController } = await import("./tui/controller.js");
  const reader = new LineReader(process.stdin);
  const view = new LineView(reader, Boolean(flags.quiet));
  const controller = await ChatController.create(flags, view);
  view.controller = controller;
  let lastSigint = 0;
  const exited = new AbortController();
  const onSigint = () => {
    const now = Date.now();
    if (controller.busy && now - lastSigint > 2000) controller.stop();
    else {
      controller.exit();
      exited.abort();
    }
    lastSigint = now;
  };
  process.on("SIGINT", onSigint);
  try {
    for (;;) {
      const line = await reader.next();
      if (line === undefined) await awaitBackground(controller, exited.signal, Boolean(flags.quiet));
      if (line === undefined || controller.exiting) break;
      await controller.submit(line);
      await controller.idle();
      if (controller.exiting) break;
    }
  } finally {
    process.off("SIGINT", onSigint);
    await controller.close();
  }
}

/**
 * At the end of piped input, as in a one-shot run: background subagents still running are waited
 * for and their results run as turns (answers printed) before the process exits; again while
 * those turns dispatch more, up to MAX_FOLLOW_UP_TURNS. Ctrl+C stops the wait and the children.
 */
async function awaitBackground(controller: ChatController, exited: AbortSignal, quiet: boolean): Promise<void> {
  const background = controller.runtime.background;
  const stopped = new Promise<void>((resolve) => exited.addEventListener("abort", () => resolve(), { once: true }));
  for (let round = 0; round < MAX_FOLLOW_UP_TURNS && !controller.exiting; round++) {
    const running = background.activeCount;
    if (running === 0) return;
    if (!quiet) {
      process.stderr.write(
        `hermes: waiting for ${running} background subagent${running === 1 ? "" : "s"} to finish (Ctrl+C stops them)\n`,
      );
    }
    await Promise.race([background.idle(), stopped]);
    if (exited.aborted) return;
    await controller.idle();
  }
}
