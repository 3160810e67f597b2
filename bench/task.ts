/**
 * The one-tool task every one-shot figure runs: the model asks for `echo hello-bench` in the
 * agent's shell tool, then reports the tool's output. The fake provider answers from the request
 * alone (no script position), so any number of runs of any agent can share one server.
 */
import { performance } from "node:perf_hooks";
import type { RecordedRequest, ScriptedTurn } from "../test/fake-provider/types.js";
import { startBenchFake } from "./fake.js";

export const TASK_COMMAND = "echo hello-bench";
export const TASK_OUTPUT = "hello-bench";
export const TASK_PROMPT = `Run \`${TASK_COMMAND}\` in the terminal and report its output.`;

/** Shell tools the fake knows, by name, with how each takes its command. */
const SHELL_TOOLS: Record<string, (command: string) => Record<string, unknown>> = {
  terminal: (command) => ({ command }), // hermes
  bash: (command) => ({ command }), // pi
};

interface ChatBody {
  tools?: Array<{ function?: { name?: string }; name?: string }>;
  messages?: Array<{ role?: string; content?: unknown }>;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? "").join("");
  return JSON.stringify(content);
}

/** The fake's reply to a chat-completions request of the task. */
export function shellTaskStep(body: ChatBody): ScriptedTurn {
  const messages = body.messages ?? [];
  const toolResult = [...messages].reverse().find((m) => m.role === "tool");
  if (toolResult) return { text: `The command printed: ${contentText(toolResult.content).trim()}` };
  const names = (body.tools ?? []).map((t) => t.function?.name ?? t.name ?? "");
  const shell = names.find((name) => name in SHELL_TOOLS);
  if (!shell) return { text: `no shell tool among: ${names.join(", ")}` };
  return { toolCalls: [{ name: shell, arguments: SHELL_TOOLS[shell]!(TASK_COMMAND) }] };
}

export interface TaskRequestLog {
  /** `performance.now()` when each model request of the current run arrived. */
  arrivals: number[];
  /** Bytes of the first model request of the current run. */
  firstRequestBytes: number | undefined;
}

export interface TaskProvider {
  url: string;
  /** What the server saw since the last `reset()`. */
  log: TaskRequestLog;
  reset(): void;
  close(): Promise<void>;
}

export async function startTaskProvider(): Promise<TaskProvider> {
  const log: TaskRequestLog = { arrivals: [], firstRequestBytes: undefined };
  const fake = await startBenchFake({
    fallback: (req: RecordedRequest) => {
      log.arrivals.push(performance.now());
      log.firstRequestBytes ??= Buffer.byteLength(req.rawBody);
      fake.requests.length = 0; // keep the server's memory flat over many runs
      return shellTaskStep(req.body as ChatBody);
    },
  });
  return {
    url: fake.url,
    log,
    reset: () => {
      log.arrivals = [];
      log.firstRequestBytes = undefined;
    },
    close: () => fake.close(),
  };
}
