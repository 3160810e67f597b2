/**
 * Runs one agent turn for an HTTP request and reports what the client should see: text and
 * reasoning as they stream, then the result. A client that goes away interrupts the turn; the
 * messages completed before that are already in the session store.
 */
import type { AgentEvent } from "../agent/events.js";
import type { RunResult } from "../agent/run-types.js";
import { adoptSession, type ServerContext, type Turn, type TurnInput } from "./context.js";

export interface TurnListener {
  text?(delta: string): unknown;
  reasoning?(delta: string): unknown;
  /** A tool call as it starts, and its (redacted) result as it ends; written in order with the text. */
  toolStart?(event: Extract<AgentEvent, { type: "tool_start" }>): unknown;
  toolEnd?(event: Extract<AgentEvent, { type: "tool_end" }>): unknown;
  event?(event: AgentEvent): void;
}

/**
 * Text the model writes before a tool call and the answer after it arrive as one stream;
 * a blank line keeps them apart.
 */
class StepSeparator {
  private wroteInStep = false;
  private wroteBefore = false;

  next(text: string): string {
    if (!text) return text;
    const prefix = !this.wroteInStep && this.wroteBefore ? "\n\n" : "";
    this.wroteInStep = true;
    return prefix + text;
  }

  endStep(): void {
    if (this.wroteInStep) this.wroteBefore = true;
    this.wroteInStep = false;
  }
}

export async function runTurn(
  ctx: ServerContext,
  namespace: string,
  turn: Turn,
  input: TurnInput,
  listener: TurnListener = {},
  signal?: AbortSignal,
): Promise<RunResult> {
  const separator = new StepSeparator();
  // Deltas are written in order even when the writer is async (a socket under back-pressure).
  let writes: Promise<unknown> = Promise.resolve();
  const unsubscribe = turn.agent.on((event) => {
    listener.event?.(event);
    if (event.type === "text_delta" && listener.text) {
      const text = separator.next(event.text);
      writes = writes.then(() => listener.text?.(text)).catch(() => undefined);
    } else if (event.type === "reasoning_delta" && listener.reasoning) {
      const text = event.text;
      writes = writes.then(() => listener.reasoning?.(text)).catch(() => undefined);
    } else if (event.type === "tool_start" && listener.toolStart) {
      writes = writes.then(() => listener.toolStart?.(event)).catch(() => undefined);
    } else if (event.type === "tool_end" && listener.toolEnd) {
      writes = writes.then(() => listener.toolEnd?.(event)).catch(() => undefined);
    } else if (event.type === "step_end") {
      separator.endStep();
    }
  });
  const onAbort = () => turn.agent.interrupt("the client disconnected");
  if (signal?.aborted) onAbort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const result = await turn.agent.runConversation(input, turn.options);
    await writes;
    if (result.sessionId !== turn.sessionId) await adoptSession(ctx, namespace, result.sessionId);
    return result;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    unsubscribe();
    turn.release();
  }
}
