/**
 * Hooks around the agent's lifecycle, model calls and tool calls. Handlers come from plugins
 * (`api.on(...)`) and from approved shell hooks in config.yaml, and run in the order they were
 * added. A handler that throws or runs past its time budget is skipped for that call and
 * reported once (per owner and event); a hook never breaks a turn.
 */
import { log } from "../util/log.js";

export const HOOK_EVENTS = [
  "on_session_start",
  "pre_llm_call",
  "post_llm_call",
  "pre_tool_call",
  "post_tool_call",
  "transform_tool_result",
  "on_compress",
  "on_session_end",
  "subagent_stop",
] as const;

export type HookEvent = (typeof HOOK_EVENTS)[number];

export function isHookEvent(value: string): value is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(value);
}

interface SessionFacts {
  sessionId: string;
  platform: string;
}

interface ToolCallFacts {
  sessionId: string;
  toolName: string;
  args: Record<string, unknown>;
  callId: string;
}

/** What each event's handlers receive. */
export interface HookPayloads {
  on_session_start: SessionFacts & { model: string; cwd: string };
  /** Once per user turn, before the first model call. */
  pre_llm_call: SessionFacts & { userMessage: string };
  /** Once per user turn, after the last model call. */
  post_llm_call: SessionFacts & { userMessage: string; response: string; completed: boolean; toolCalls: number };
  pre_tool_call: ToolCallFacts;
  post_tool_call: ToolCallFacts & { result: string; durationMs: number; failed: boolean };
  transform_tool_result: ToolCallFacts & { result: string };
  on_compress: SessionFacts & {
    /** The session the conversation continues in: the same one when compacted in place. */
    newSessionId: string;
    /** Compacted in place (`compression.in_place`) rather than continued in a child session. */
    inPlace: boolean;
    summary?: string;
    messagesBefore: number;
    messagesAfter: number;
    tokensBefore: number;
    tokensAfter: number;
  };
  on_session_end: SessionFacts & { messages: number; reason: string };
  subagent_stop: { parentSessionId: string; goal: string; result: string; status: string };
}

/** What a handler may return; `void` means "no opinion". */
export interface HookReturns {
  on_session_start: void;
  /** Text added to the user's message for this turn (never to the system prompt, never stored). */
  pre_llm_call: string | { context?: string } | undefined | void;
  post_llm_call: void;
  /** `block`: the tool does not run and the model reads the reason; `args`: run with these instead. */
  pre_tool_call: { block?: string; args?: Record<string, unknown> } | undefined | void;
  post_tool_call: void;
  /** The result the model reads instead. */
  transform_tool_result: string | { result?: string } | undefined | void;
  on_compress: void;
  on_session_end: void;
  subagent_stop: void;
}

export type HookHandler<E extends HookEvent> = (payload: HookPayloads[E]) => HookReturns[E] | Promise<HookReturns[E]>;

export interface HookRegistration {
  /** Who added it (a plugin's name, or "config.yaml"), for reports. */
  owner: string;
  /** Overrides the runner's default time budget for this handler. */
  timeoutMs?: number;
}

interface Entry {
  event: HookEvent;
  handler: HookHandler<HookEvent>;
  owner: string;
  timeoutMs: number;
}

export interface HookRunnerOptions {
  /** Milliseconds a handler may take (`plugins.hook_timeout_ms`, default 5000). */
  timeoutMs?: number;
  /** Told once per owner and event when a handler fails or times out. */
  onWarning?: (message: string) => void;
}

const TIMED_OUT = Symbol("timed out");

export class HookRunner {
  private readonly entries: Entry[] = [];
  private readonly reported = new Set<string>();
  private readonly timeoutMs: number;
  private readonly warn: (message: string) => void;

  constructor(options: HookRunnerOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.warn = options.onWarning ?? (() => {});
  }

  add<E extends HookEvent>(event: E, handler: HookHandler<E>, registration: HookRegistration): void {
    this.entries.push({
      event,
      handler: handler as unknown as HookHandler<HookEvent>,
      owner: registration.owner,
      timeoutMs: registration.timeoutMs ?? this.timeoutMs,
    });
  }

  has(event: HookEvent): boolean {
    return this.entries.some((entry) => entry.event === event);
  }

  /** Handlers of `event`, in order: [owner, ...]. */
  owners(event: HookEvent): string[] {
    return this.entries.filter((entry) => entry.event === event).map((entry) => entry.owner);
  }

  /** Runs every handler of an event that returns nothing. */
  async notify<E extends HookEvent>(event: E, payload: HookPayloads[E]): Promise<void> {
    for (const entry of this.of(event)) await this.call(entry, payload);
  }

  /** Context the `pre_llm_call` handlers add to this turn's user message ("" when none). */
  async contextForTurn(payload: HookPayloads["pre_llm_call"]): Promise<string> {
    const parts: string[] = [];
    for (const entry of this.of("pre_llm_call")) {
      const value = (await this.call(entry, payload)) as HookReturns["pre_llm_call"];
      const text = typeof value === "string" ? value : value?.context;
      if (typeof text === "string" && text.trim()) parts.push(text.trim());
    }
    return parts.join("\n\n");
  }

  /**
   * `pre_tool_call`: the first handler that blocks wins; rewritten arguments pass on to the
   * next handler and to the tool.
   */
  async beforeTool(
    payload: HookPayloads["pre_tool_call"],
  ): Promise<{ block: string; owner: string } | { args: Record<string, unknown> }> {
    let args = payload.args;
    for (const entry of this.of("pre_tool_call")) {
      const value = (await this.call(entry, { ...payload, args })) as HookReturns["pre_tool_call"];
      if (!value || typeof value !== "object") continue;
      if (typeof value.block === "string" && value.block.trim())
        return { block: value.block.trim(), owner: entry.owner };
      if (value.args && typeof value.args === "object" && !Array.isArray(value.args)) args = value.args;
    }
    return { args };
  }

  /** `transform_tool_result`: each handler sees the result the previous one returned. */
  async transformResult(payload: HookPayloads["transform_tool_result"]): Promise<string> {
    let result = payload.result;
    for (const entry of this.of("transform_tool_result")) {
      const value = (await this.call(entry, { ...payload, result })) as HookReturns["transform_tool_result"];
      const next = typeof value === "string" ? value : value?.result;
      if (typeof next === "string") result = next;
    }
    return result;
  }

  private of(event: HookEvent): Entry[] {
    return this.entries.filter((entry) => entry.event === event);
  }

  /** One handler call with its time budget; undefined when it failed or timed out. */
  private async call(entry: Entry, payload: unknown): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), entry.timeoutMs);
      timer.unref?.();
    });
    try {
      const outcome = await Promise.race([Promise.resolve().then(() => entry.handler(payload as never)), deadline]);
      if (outcome === TIMED_OUT) {
        this.report(entry, `took longer than ${entry.timeoutMs} ms and was skipped`);
        return undefined;
      }
      return outcome;
    } catch (error) {
      this.report(entry, `failed and was skipped: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  private report(entry: Entry, what: string): void {
    const message = `${entry.event} hook of ${entry.owner} ${what}`;
    log("warn", "hooks", message);
    const key = `${entry.owner}\u0000${entry.event}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.warn(message);
  }
}
