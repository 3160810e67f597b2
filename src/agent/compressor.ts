/**
 * The context compressor: decides when the history is too large for the model's window and
 * condenses it — a cheap pruning pre-pass, then a structured summary of the middle turns by an
 * auxiliary model, between a protected head and a protected tail.
 *
 * It is never destructive by accident: when the summary cannot be produced the history comes
 * back unchanged with a reason, and turns are only dropped when the history cannot fit anyway.
 */
import type { Message } from "../llm/types.js";
import { sleepWithSignal } from "../util/backoff.js";
import { estimateTokens } from "../util/tokens.js";
import { assembleCompressed } from "./compression/assemble.js";
import { findBoundaries } from "./compression/boundaries.js";
import { pruneOldToolResults } from "./compression/prune.js";
import { sanitizeToolPairs } from "./compression/sanitize.js";
import {
  buildSummaryPrompt,
  generateSummary,
  type SleepFn,
  type SummarizeFn,
  serializeTurns,
  splitSummaryMessage,
  summaryBudget,
} from "./compression/summary.js";

export type { SleepFn, SummarizeFn } from "./compression/summary.js";

/** Below this many tokens a threshold is pointless: compress no earlier than here. */
export const MINIMUM_THRESHOLD_TOKENS = 64_000;
/** When the minimum does not fit the window, compress at this share of it instead. */
const FALLBACK_WINDOW_SHARE = 0.85;
const MAX_SUMMARY_TOKENS_CAP = 12_000;
const SUMMARY_SHARE_OF_CONTEXT = 0.05;
/** A pass that saves less than this share of tokens is counted as ineffective. */
const EFFECTIVE_SAVINGS = 0.1;
/** After this many ineffective passes in a row, automatic compression backs off. */
const MAX_INEFFECTIVE_PASSES = 2;
/** After the summarizer failed, automatic compression waits this long before trying again. */
export const SUMMARY_FAILURE_COOLDOWN_MS = 600_000;

export interface ContextCompressorOptions {
  contextLength: number;
  /** Share of the usable window at which compression triggers (default 0.50). */
  thresholdPercent?: number;
  /** Size of the protected tail relative to half the window, clamped to [0.10, 0.80] (default 0.20). */
  summaryTargetRatio?: number;
  /** Messages kept verbatim after the system prompt (default 3). */
  protectFirstN?: number;
  /** Messages the tail keeps at least, when they fit (default 20). */
  protectLastN?: number;
  /** Output tokens reserved for the reply; shrinks the usable window. */
  maxTokens?: number | null;
  /** The auxiliary model call that writes summaries. */
  summarize?: SummarizeFn;
  /** Waits between summarizer retries (injectable for tests). */
  sleep?: SleepFn;
  /** Delay before the first summarizer retry (default 1 s, doubling). */
  retryDelayMs?: number;
  /** Clock for the failure cooldown (default Date.now). */
  now?: () => number;
  /**
   * When the summary fails, leave the history whole even if it no longer fits (the request then
   * fails with the provider's own error) instead of dropping the middle turns unsummarized.
   */
  abortOnSummaryFailure?: boolean;
}

export interface CompressOptions {
  /** Keep this topic in detail (from `/compress <topic>`). */
  focusTopic?: string;
  signal?: AbortSignal;
  /** Overrides the summarizer given to the constructor. */
  summarize?: SummarizeFn;
  /** The provider rejected the history as too long: dropping turns is acceptable if summarizing fails. */
  contextOverflow?: boolean;
}

export interface CompressionResult {
  messages: Message[];
  /** Whether `messages` differs from the input. */
  compressed: boolean;
  summary?: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Messages removed without being summarized (only when the history could not fit otherwise). */
  droppedMessages: number;
  /** Messages folded into the summary. */
  summarizedMessages: number;
  /** Tool results shortened or deduplicated by the pre-pass. */
  prunedToolResults: number;
  /** Why nothing (or less than usual) was done; worth showing the user as a status line. */
  reason?: string;
}

/**
 * Token count at which to compress: a share of the usable window (the context length minus a
 * positive output reservation, unless that reservation would leave nothing), never below
 * 64,000 tokens; when 64,000 does not fit the window, 85% of the window (at least 1 token).
 */
export function computeThresholdTokens(contextLength: number, thresholdPercent: number, maxTokens?: unknown): number {
  const reservation = validMaxTokens(maxTokens);
  const window = reservation !== undefined && reservation < contextLength ? contextLength - reservation : contextLength;
  if (MINIMUM_THRESHOLD_TOKENS >= window) return Math.max(1, floorTokens(window * FALLBACK_WINDOW_SHARE));
  return Math.max(floorTokens(window * thresholdPercent), MINIMUM_THRESHOLD_TOKENS);
}

export class ContextCompressor {
  contextLength: number;
  readonly thresholdPercent: number;
  readonly summaryTargetRatio: number;
  readonly protectFirstN: number;
  readonly protectLastN: number;
  maxTokens: number | undefined;
  thresholdTokens = 0;
  tailTokenBudget = 0;
  maxSummaryTokens = 0;
  /** The latest summary, fed back in so the next pass updates it instead of starting over. */
  previousSummary: string | undefined;
  /** Consecutive passes that saved less than 10%. */
  ineffectivePasses = 0;
  compressionCount = 0;

  private readonly summarize: SummarizeFn | undefined;
  private readonly sleep: SleepFn;
  private readonly retryDelayMs: number;
  private readonly now: () => number;
  private readonly abortOnSummaryFailure: boolean;
  private summaryFailedAt: number | undefined;

  constructor(options: ContextCompressorOptions) {
    this.contextLength = positiveOr(options.contextLength, 0);
    this.thresholdPercent = inRangeOr(options.thresholdPercent, 0, 1, 0.5);
    this.summaryTargetRatio = Math.min(0.8, Math.max(0.1, numberOr(options.summaryTargetRatio, 0.2)));
    this.protectFirstN = countOr(options.protectFirstN, 3);
    this.protectLastN = countOr(options.protectLastN, 20);
    this.maxTokens = validMaxTokens(options.maxTokens);
    this.summarize = options.summarize;
    this.sleep = options.sleep ?? sleepWithSignal;
    this.retryDelayMs = options.retryDelayMs ?? 1_000;
    this.now = options.now ?? Date.now;
    this.abortOnSummaryFailure = options.abortOnSummaryFailure ?? false;
    this.computeBudgets();
  }

  /** Recomputes every budget for a new model (e.g. after falling back to a smaller window). */
  recalibrate(contextLength: number, maxTokens?: number | null): void {
    this.contextLength = positiveOr(contextLength, this.contextLength);
    if (maxTokens !== undefined) this.maxTokens = validMaxTokens(maxTokens);
    this.ineffectivePasses = 0;
    this.summaryFailedAt = undefined;
    this.computeBudgets();
  }

  /** Whether automatic compression should run for a prompt of this size. */
  shouldCompress(promptTokens: number): boolean {
    if (!(promptTokens >= this.thresholdTokens)) return false;
    if (this.backedOff) return false;
    return this.summaryFailedAt === undefined || this.now() - this.summaryFailedAt >= SUMMARY_FAILURE_COOLDOWN_MS;
  }

  /** True after repeated passes that freed too little; `/new` or `/compress <topic>` is the way out. */
  get backedOff(): boolean {
    return this.ineffectivePasses >= MAX_INEFFECTIVE_PASSES;
  }

  /** Clears the back-off (a manual `/compress`, or a fresh session). */
  resetBackoff(): void {
    this.ineffectivePasses = 0;
    this.summaryFailedAt = undefined;
  }

  async compress(messages: readonly Message[], options: CompressOptions = {}): Promise<CompressionResult> {
    const tokensBefore = estimateTokens(messages);
    const { headEnd, tailStart } = findBoundaries(messages, this);
    const pruned = pruneOldToolResults(messages, { tailStart });
    const prunedCount = pruned.summarizedResults + pruned.dedupedResults;
    const prunedChanged = prunedCount + pruned.truncatedArguments + pruned.removedImages > 0;
    const base = { tokensBefore, droppedMessages: 0, summarizedMessages: 0, prunedToolResults: prunedCount };

    if (tailStart <= headEnd) {
      const result = prunedChanged ? pruned.messages : [...messages];
      return this.finish({
        ...base,
        messages: result,
        compressed: prunedChanged,
        tokensAfter: estimateTokens(result),
        reason: "nothing between the protected head and tail to summarize",
      });
    }

    const head = pruned.messages.slice(0, headEnd);
    const middle = pruned.messages.slice(headEnd, tailStart);
    const tail = pruned.messages.slice(tailStart);
    const previousSummary = this.previousSummary ?? findCarriedSummary([...head, ...middle]);
    const maxTokens = summaryBudget(estimateTokens(middle), this.maxSummaryTokens);
    const prompt = buildSummaryPrompt({
      turns: serializeTurns(middle),
      budgetTokens: maxTokens,
      previousSummary,
      focusTopic: options.focusTopic,
    });

    const summarize = options.summarize ?? this.summarize;
    let summary: string;
    try {
      if (!summarize) throw new Error("no summarizer is configured");
      summary = await generateSummary(summarize, prompt, {
        maxTokens,
        signal: options.signal,
        sleep: this.sleep,
        baseDelayMs: this.retryDelayMs,
      });
    } catch (error) {
      if (options.signal?.aborted) {
        return { ...base, messages: [...messages], compressed: false, tokensAfter: tokensBefore, reason: "aborted" };
      }
      this.summaryFailedAt = this.now();
      const why = `summary generation failed: ${errorText(error)}`;
      const window = options.contextOverflow ? 0 : this.usableWindow;
      if (tokensBefore <= window) {
        return { ...base, messages: [...messages], compressed: false, tokensAfter: tokensBefore, reason: why };
      }
      if (this.abortOnSummaryFailure) {
        return {
          ...base,
          messages: [...messages],
          compressed: false,
          tokensAfter: tokensBefore,
          reason: `${why}; compression.abort_on_summary_failure is on, so no turn was dropped`,
        };
      }
      const prunedTokens = estimateTokens(pruned.messages);
      if (prunedChanged && prunedTokens <= window) {
        return this.finish({
          ...base,
          messages: pruned.messages,
          compressed: true,
          tokensAfter: prunedTokens,
          reason: `${why}; only old tool outputs were shortened`,
        });
      }
      const placeholder = droppedTurnsNote(middle.length, previousSummary);
      const assembled = sanitizeToolPairs(assembleCompressed(head, placeholder, tail).messages).messages;
      return this.finish({
        ...base,
        messages: assembled,
        compressed: true,
        tokensAfter: estimateTokens(assembled),
        droppedMessages: middle.length,
        reason: `${why}; ${middle.length} message(s) dropped because the history no longer fits the context window`,
      });
    }

    this.summaryFailedAt = undefined;
    this.previousSummary = summary;
    this.compressionCount++;
    const assembled = sanitizeToolPairs(assembleCompressed(head, summary, tail).messages).messages;
    return this.finish({
      ...base,
      messages: assembled,
      compressed: true,
      summary,
      tokensAfter: estimateTokens(assembled),
      summarizedMessages: middle.length,
    });
  }

  private get usableWindow(): number {
    const reservation = this.maxTokens;
    return reservation !== undefined && reservation < this.contextLength
      ? this.contextLength - reservation
      : this.contextLength;
  }

  private computeBudgets(): void {
    this.thresholdTokens = computeThresholdTokens(this.contextLength, this.thresholdPercent, this.maxTokens);
    // The tail kept verbatim is a share of the trigger point, not of the whole window.
    this.tailTokenBudget = floorTokens(this.thresholdTokens * this.summaryTargetRatio);
    this.maxSummaryTokens = Math.min(
      floorTokens(this.contextLength * SUMMARY_SHARE_OF_CONTEXT),
      MAX_SUMMARY_TOKENS_CAP,
    );
  }

  /** Updates the anti-thrashing counter from a pass's savings. */
  private finish(result: CompressionResult): CompressionResult {
    const saved = result.tokensBefore > 0 ? (result.tokensBefore - result.tokensAfter) / result.tokensBefore : 0;
    this.ineffectivePasses = saved < EFFECTIVE_SAVINGS ? this.ineffectivePasses + 1 : 0;
    if (this.backedOff && !result.reason) {
      result.reason = "compression is freeing little space; start a new session (/new) or focus it (/compress <topic>)";
    }
    return result;
  }
}

/** A summary carried in the history by an earlier pass (e.g. of a resumed session). */
function findCarriedSummary(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const carried = splitSummaryMessage(messages[i]!);
    if (carried?.summary) return carried.summary;
  }
  return undefined;
}

function droppedTurnsNote(count: number, previousSummary: string | undefined): string {
  const note =
    `A summary could not be produced, so ${count} earlier message(s) were removed to make room and ` +
    "are not described here. Carry on from the recent messages below and from the current state of " +
    "files and other resources.";
  return previousSummary ? `${note}\n\nNotes from before those messages:\n\n${previousSummary}` : note;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Floors token arithmetic while ignoring binary float noise (0.85 * 64000 = 54399.999…). */
function floorTokens(value: number): number {
  return Math.floor(value + 1e-6);
}

function validMaxTokens(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

function positiveOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}

function inRangeOr(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === "number" && value > min && value <= max ? value : fallback;
}

function countOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback;
}
