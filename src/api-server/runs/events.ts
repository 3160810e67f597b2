/**
 * The Runs API's event stream: each run keeps its recent events in memory (bounded), so a
 * client can connect mid-run, or reconnect with `Last-Event-ID`, and read on from there. The
 * buffer outlives the run by a few minutes; after that (or after a restart) the stored run
 * record stands in for it with a single terminal event.
 */
import type { AgentEvent } from "../../agent/events.js";
import type { ApiRunRecord } from "../../state/api-store.js";

export interface RunEvent {
  /** Increasing from 1 within a run. */
  id: number;
  event: string;
  data: Record<string, unknown>;
}

export const TERMINAL_EVENTS = new Set(["run.completed", "run.failed", "run.cancelled"]);
export const MAX_EVENTS_PER_RUN = 2000;
/** How long a finished run's events stay readable. */
export const EVENT_RETENTION_MS = 10 * 60_000;
export const KEEP_ALIVE_MS = 15_000;

/** The tool whose calls start subagents; its calls are reported as `subagent.*`. */
const DELEGATE_TOOL = "delegate_task";

/** One run's events: appended by the run, read (and waited on) by any number of clients. */
export class RunEventLog {
  private readonly events: RunEvent[] = [];
  private lastId = 0;
  private closed = false;
  private wake: (() => void) | undefined;
  private changed: Promise<void>;

  constructor(private readonly limit = MAX_EVENTS_PER_RUN) {
    this.changed = this.nextChange();
  }

  /** A terminal event was pushed; nothing follows it. */
  get ended(): boolean {
    return this.closed;
  }

  push(event: string, data: Record<string, unknown> = {}): void {
    if (this.closed) return;
    this.events.push({ id: ++this.lastId, event, data });
    if (this.events.length > this.limit) this.events.splice(0, this.events.length - this.limit);
    if (TERMINAL_EVENTS.has(event)) this.closed = true;
    const wake = this.wake;
    this.changed = this.nextChange();
    wake?.();
  }

  /** Buffered events after `afterId` (the oldest may have been dropped already). */
  since(afterId: number): RunEvent[] {
    const first = this.events.findIndex((e) => e.id > afterId);
    return first < 0 ? [] : this.events.slice(first);
  }

  /**
   * Events after `afterId`, buffered ones first, then live ones as they come, until the
   * terminal event (or `signal`). Yields "idle" when nothing came for `idleMs`.
   */
  async *follow(afterId: number, signal: AbortSignal, idleMs = KEEP_ALIVE_MS): AsyncGenerator<RunEvent | "idle"> {
    let cursor = afterId;
    while (!signal.aborted) {
      const batch = this.since(cursor);
      for (const event of batch) {
        yield event;
        cursor = event.id;
        if (TERMINAL_EVENTS.has(event.event)) return;
      }
      if (batch.length > 0) continue;
      if (this.closed) return;
      if ((await waitFor(this.changed, signal, idleMs)) === "idle") yield "idle";
    }
  }

  private nextChange(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }
}

async function waitFor(change: Promise<void>, signal: AbortSignal, idleMs: number): Promise<"change" | "idle"> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      change.then(() => "change" as const),
      new Promise<"idle">((resolve) => {
        timer = setTimeout(() => resolve("idle"), idleMs);
        timer.unref();
      }),
      new Promise<"change">((resolve) => {
        onAbort = () => resolve("change");
        signal.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** Every run's event log, each dropped `retentionMs` after its run ended. */
export class RunEventLogs {
  private readonly logs = new Map<string, RunEventLog>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly retentionMs = EVENT_RETENTION_MS) {}

  create(runId: string): RunEventLog {
    const log = new RunEventLog();
    this.logs.set(runId, log);
    return log;
  }

  get(runId: string): RunEventLog | undefined {
    return this.logs.get(runId);
  }

  /** The run ended: keep its events readable for a while, then drop them. */
  retire(runId: string): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.logs.delete(runId);
    }, this.retentionMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** Drop everything (shutdown). */
  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.logs.clear();
  }
}

/** Token counts as the Runs API reports them. */
export interface RunUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
}

export function runUsage(usage: {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}): RunUsage {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    cache_read_tokens: usage.cacheReadTokens,
    cache_write_tokens: usage.cacheWriteTokens,
    reasoning_tokens: usage.reasoningTokens,
  };
}

/**
 * The Runs API event for an agent's tool or compaction event (never a tool's output); undefined
 * for others. A compaction's summary is not sent: the session's messages hold it.
 */
export function toolEvent(event: AgentEvent): { event: string; data: Record<string, unknown> } | undefined {
  if (event.type === "compaction") {
    if (event.phase === "started") return { event: "compaction.started", data: { compaction_id: event.id } };
    const data = {
      compaction_id: event.id,
      compressed: event.compressed,
      ...(event.reason ? { reason: event.reason } : {}),
    };
    return { event: "compaction.completed", data };
  }
  if (event.type === "tool_start") {
    const data = { call_id: event.callId, name: event.name, preview: event.preview };
    return { event: event.name === DELEGATE_TOOL ? "subagent.started" : "tool.started", data };
  }
  if (event.type === "tool_end") {
    const data = { call_id: event.callId, name: event.name, duration_ms: event.durationMs, failed: event.failed };
    if (event.name !== DELEGATE_TOOL) return { event: "tool.completed", data };
    const background = backgroundDispatches(event.result);
    return { event: "subagent.completed", data: background.length ? { ...data, background } : data };
  }
  return undefined;
}

/**
 * The subagents a `delegate_task` call started in the background, from its answer: each one's
 * result later arrives in a run of its own whose `trigger.delegation_id` names it.
 */
function backgroundDispatches(result: string): Array<{ delegation_id: string; goal: string }> {
  if (!result.startsWith("{")) return [];
  let answer: { delegation_id?: unknown; goal?: unknown; status?: unknown; delegations?: unknown };
  try {
    answer = JSON.parse(result);
  } catch {
    return [];
  }
  const entries = Array.isArray(answer.delegations) ? answer.delegations : [answer];
  return entries
    .filter(
      (entry): entry is { delegation_id: string; goal: string } =>
        entry !== null &&
        typeof entry === "object" &&
        (entry as { status?: unknown }).status === "dispatched" &&
        typeof (entry as { delegation_id?: unknown }).delegation_id === "string",
    )
    .map((entry) => ({ delegation_id: entry.delegation_id, goal: String(entry.goal ?? "") }));
}

/** The terminal event of a finished run, from its record; undefined while it is unfinished. */
export function terminalEvent(record: ApiRunRecord): { event: string; data: Record<string, unknown> } | undefined {
  switch (record.status) {
    case "completed":
      return {
        event: "run.completed",
        data: { output: record.output ?? "", usage: record.usage, session_id: record.sessionId },
      };
    case "failed":
    case "interrupted":
      return {
        event: "run.failed",
        data: { status: record.status, error: record.error ?? `the run ${record.status}` },
      };
    case "cancelled":
      return { event: "run.cancelled", data: { reason: record.error ?? "stopped" } };
    default:
      return undefined;
  }
}
