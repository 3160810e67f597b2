/** Typed events an Agent emits while it works, and an emitter whose listeners can never break the loop. */

export type StatusKind =
  | "retry"
  | "fallback"
  | "compression"
  | "budget"
  | "guardrail"
  | "info"
  | "warning"
  | "waiting"
  | "learning";

export type AgentEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "thinking"; state: "start" | "stop" }
  | { type: "tool_start"; callId: string; name: string; args: unknown; preview: string }
  | { type: "tool_progress"; callId: string; name: string; text: string }
  | { type: "tool_end"; callId: string; name: string; result: string; durationMs: number; failed: boolean }
  | { type: "clarify_request"; question: string; choices?: string[] }
  | { type: "approval_request"; command: string; reason: string }
  | { type: "step_end"; iteration: number; toolCalls: number }
  | { type: "status"; kind: StatusKind; message: string }
  /** A compression of the context: `started`, then `finished` with what came of it (ids unique per agent). */
  | { type: "compaction"; id: string; phase: "started" }
  | { type: "compaction"; id: string; phase: "finished"; compressed: boolean; summary?: string; reason?: string };

export type AgentListener = (event: AgentEvent) => void;

export class AgentEmitter {
  private readonly listeners = new Set<AgentListener>();

  on(listener: AgentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: AgentEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A faulty listener (a UI bug, a closed socket) must not end the turn.
      }
    }
  }
}

/** A one-line preview of tool arguments for progress displays. */
export function previewArgs(args: unknown, max = 80): string {
  let text: string;
  if (args && typeof args === "object") {
    const values = Object.values(args as Record<string, unknown>);
    const first = values.find((v) => typeof v === "string") ?? values[0];
    text = typeof first === "string" ? first : JSON.stringify(first ?? "");
  } else {
    text = String(args ?? "");
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
