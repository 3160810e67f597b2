/**
 * Runs the context compressor inside the agent loop: counts the prompt's tokens, resolves the
 * model's context window, decides when to compress (before the loop, after each tool batch,
 * when the provider reports an overflow, on `/compress`, between turns on long-lived surfaces)
 * and reports every outcome as a status event. Applying a result (the new history, the child
 * session) is the agent's job.
 */
import type { Message } from "../llm/types.js";
import { estimateTextTokens, estimateTokens } from "../util/tokens.js";
import { type CompressionResult, ContextCompressor, type SummarizeFn } from "./compressor.js";
import type { ContextEngine, ContextEngineFactory } from "./context-engine.js";
import {
  type ContextLength,
  type ContextLengthInput,
  type ContextProbe,
  DEFAULT_CONTEXT_LENGTH,
  knownContextLength,
  resolveContextLength,
} from "./context-window.js";
import type { AgentEmitter } from "./events.js";
import { callModel, type ModelRoute } from "./model-call.js";

/** `compression.*` in config.yaml. */
export interface CompressionSettings {
  enabled?: boolean;
  /** Share of the window at which compression triggers (default 0.50). */
  threshold?: number;
  targetRatio?: number;
  protectFirstN?: number;
  protectLastN?: number;
  /** Delay before the first summarizer retry (default 1 s, doubling). */
  summaryRetryDelayMs?: number;
  /** Never drop turns unsummarized when the summary fails: leave the history whole instead. */
  abortOnSummaryFailure?: boolean;
  /** Long-lived surfaces also compress between turns once the history has this many messages (0: off). */
  hygieneMessageLimit?: number;
  /**
   * `compression.in_place` (default true): the conversation stays in its session, the condensed
   * messages archived there; false continues it in a new child session linked to its parent.
   */
  inPlace?: boolean;
  /** `compression.codex_gpt55_autoraise` (default true): see compression/codex-autoraise.ts. */
  codexAutoraise?: boolean;
}

/** Long-lived surfaces compress between turns once the prompt fills this share of the window. */
export const BETWEEN_TURNS_SHARE = 0.85;
/**
 * Probing a server for its window costs a round trip, so it waits until the prompt is large
 * enough for the answer to matter; a window smaller than this could not hold the agent's
 * prompt anyway.
 */
export const PROBE_AFTER_TOKENS = 2_000;
/** Output tokens asked of the summarizer at most. */
const SUMMARY_MAX_TOKENS = 4_096;

export type CompressionTrigger = "preflight" | "tools" | "overflow" | "manual";

/** What the next request will hold. */
export interface PromptState {
  systemPrompt: string;
  history: readonly Message[];
  /** Tokens of the tool schemas sent with each request. */
  toolTokens: number;
}

export interface CompressionDriverOptions {
  settings?: CompressionSettings;
  window: ContextLengthInput;
  probe?: ContextProbe;
  maxTokens?: number | undefined;
  summarize: SummarizeFn;
  emitter: AgentEmitter;
  /** Another context engine than the built-in compressor (`context.engine`). */
  engine?: ContextEngineFactory | undefined;
}

export class CompressionDriver {
  readonly compressor: ContextEngine;
  /** `compression.enabled`: off means no automatic compression (manual `compress` still works). */
  readonly enabled: boolean;
  private window: ContextLength | undefined;
  private baseline: { inputTokens: number; messages: number } | undefined;
  private compactions = 0;

  constructor(private readonly options: CompressionDriverOptions) {
    const settings = options.settings ?? {};
    this.enabled = settings.enabled ?? true;
    this.compressor = options.engine
      ? options.engine({
          contextLength: DEFAULT_CONTEXT_LENGTH,
          maxTokens: options.maxTokens ?? null,
          settings,
          summarize: options.summarize,
        })
      : new ContextCompressor({
          contextLength: DEFAULT_CONTEXT_LENGTH,
          ...(settings.threshold !== undefined ? { thresholdPercent: settings.threshold } : {}),
          ...(settings.targetRatio !== undefined ? { summaryTargetRatio: settings.targetRatio } : {}),
          ...(settings.protectFirstN !== undefined ? { protectFirstN: settings.protectFirstN } : {}),
          ...(settings.protectLastN !== undefined ? { protectLastN: settings.protectLastN } : {}),
          ...(settings.summaryRetryDelayMs !== undefined ? { retryDelayMs: settings.summaryRetryDelayMs } : {}),
          ...(settings.abortOnSummaryFailure ? { abortOnSummaryFailure: true } : {}),
          maxTokens: options.maxTokens ?? null,
          summarize: options.summarize,
        });
    const known = knownContextLength(options.window);
    if (known) this.setWindow(known);
  }

  /** The window in use; the default 128k until it is resolved. */
  get contextLength(): number {
    return this.compressor.contextLength;
  }

  /** The provider's prompt count for a request that held the first `messages` history messages. */
  recordUsage(inputTokens: number, messages: number): void {
    this.baseline = inputTokens > 0 ? { inputTokens, messages } : undefined;
  }

  /** Tokens of the next request: the last reported prompt plus estimates of what was added since. */
  promptTokens(state: PromptState): number {
    const base = this.baseline;
    if (base && base.messages <= state.history.length) {
      return base.inputTokens + estimateTokens(state.history.slice(base.messages));
    }
    return estimateTextTokens(state.systemPrompt) + estimateTokens(state.history) + state.toolTokens;
  }

  /** Compresses when the prompt has reached the threshold; undefined when nothing was attempted. */
  async maybeCompress(
    state: PromptState,
    trigger: "preflight" | "tools",
    signal?: AbortSignal,
  ): Promise<CompressionResult | undefined> {
    if (!this.enabled) return undefined;
    const tokens = this.promptTokens(state);
    await this.resolveWindow(tokens >= PROBE_AFTER_TOKENS, signal);
    if (!this.compressor.shouldCompress(tokens)) return undefined;
    return this.run(state, trigger, { signal, tokens });
  }

  /**
   * Whether a long-lived surface should compress before the next turn: the prompt fills 85% of
   * the window, or the history has reached `compression.hygiene_hard_message_limit` messages.
   */
  shouldCompressBetweenTurns(state: PromptState): boolean {
    if (!this.enabled || this.compressor.backedOff) return false;
    const limit = this.options.settings?.hygieneMessageLimit ?? 0;
    if (limit > 0 && state.history.length >= limit) return true;
    return this.promptTokens(state) >= this.contextLength * BETWEEN_TURNS_SHARE;
  }

  async run(
    state: PromptState,
    trigger: CompressionTrigger,
    options: { signal?: AbortSignal | undefined; focusTopic?: string | undefined; tokens?: number } = {},
  ): Promise<CompressionResult> {
    await this.resolveWindow(true, options.signal);
    if (trigger === "manual") this.compressor.resetBackoff();
    const tokens = options.tokens ?? this.promptTokens(state);
    this.status(
      "compression",
      `${describeTrigger(trigger)} (~${formatTokens(tokens)} tokens); compressing the conversation`,
    );
    const messages: Message[] = [{ role: "system", content: state.systemPrompt }, ...state.history];
    // Unique beyond this agent: a surface's session may outlive it (a model switch makes a new one).
    const id = `compaction-${Date.now().toString(36)}-${++this.compactions}-${Math.random().toString(36).slice(2, 8)}`;
    const emitter = this.options.emitter;
    emitter.emit({ type: "compaction", id, phase: "started" });
    let result: CompressionResult;
    try {
      result = await this.compressor.compress(messages, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.focusTopic ? { focusTopic: options.focusTopic } : {}),
        contextOverflow: trigger === "overflow",
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      emitter.emit({ type: "compaction", id, phase: "finished", compressed: false, reason });
      throw error;
    }
    emitter.emit({
      type: "compaction",
      id,
      phase: "finished",
      compressed: result.compressed,
      ...(result.summary ? { summary: result.summary } : {}),
      ...(result.reason ? { reason: result.reason } : {}),
    });
    this.report(result);
    if (result.compressed) this.baseline = undefined;
    return result;
  }

  /** The window compression works with, resolved (probing the server if need be) on first use. */
  async windowInUse(signal?: AbortSignal): Promise<number> {
    await this.resolveWindow(true, signal);
    return this.contextLength;
  }

  private async resolveWindow(allowProbe: boolean, signal?: AbortSignal): Promise<void> {
    if (this.window) return;
    const input = this.options.window;
    if (input.baseUrl && !allowProbe) return; // the default window stands in until probing is worth it
    this.setWindow(await resolveContextLength(input, this.options.probe, signal));
  }

  private setWindow(window: ContextLength): void {
    this.window = window;
    this.compressor.recalibrate(window.tokens);
  }

  private report(result: CompressionResult): void {
    const before = formatTokens(result.tokensBefore);
    const after = formatTokens(result.tokensAfter);
    if (!result.compressed) {
      const why = result.reason ?? "nothing could be condensed";
      const kept = result.messages.length - 1;
      this.status("warning", `compression failed (${why}); kept all ${kept} message(s) as they were`);
      return;
    }
    if (result.droppedMessages > 0) {
      this.status(
        "warning",
        `${result.reason ?? "the summary failed"} (~${before} → ~${after} tokens); earlier work in those messages is no longer visible to the model`,
      );
      return;
    }
    if (!result.summary) {
      this.status(
        "compression",
        `${result.reason ?? "old tool outputs were shortened"} (~${before} → ~${after} tokens)`,
      );
      return;
    }
    const pruned = result.prunedToolResults ? `, ${result.prunedToolResults} old tool output(s) shortened` : "";
    this.status(
      "compression",
      `condensed ${result.summarizedMessages} message(s) into a summary${pruned} (~${before} → ~${after} tokens)`,
    );
    if (result.reason) this.status("warning", result.reason);
  }

  private status(kind: "compression" | "warning", message: string): void {
    this.options.emitter.emit({ type: "status", kind, message });
  }
}

/**
 * The summarizer used until a dedicated auxiliary model is configured: one non-streaming call
 * on the main route with a small output budget. The compressor retries it itself.
 */
export function summarizeWithRoute(route: ModelRoute, emitter: AgentEmitter): SummarizeFn {
  return async (prompt, { maxTokens, signal }) => {
    const result = await callModel(
      [route],
      () => ({
        model: route.model,
        messages: [{ role: "user", content: prompt }],
        maxTokens: Math.min(maxTokens, SUMMARY_MAX_TOKENS),
      }),
      { signal: signal ?? new AbortController().signal, emitter, stream: false, retry: { maxRetries: 0 } },
    );
    return result.reply.text;
  };
}

function describeTrigger(trigger: CompressionTrigger): string {
  switch (trigger) {
    case "preflight":
      return "the conversation is past the compression threshold";
    case "tools":
      return "tool results pushed the conversation past the compression threshold";
    case "overflow":
      return "the provider reported that the conversation no longer fits its context window";
    case "manual":
      return "compression requested";
  }
}

function formatTokens(tokens: number): string {
  return tokens.toLocaleString("en-US");
}
