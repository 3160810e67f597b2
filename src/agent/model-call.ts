/**
 * One model call with the recovery hierarchy around it (see recovery/steps.ts): stream the
 * reply, forwarding text to listeners, and on failure classify the error once and let the
 * recovery steps decide between fixing the request, refreshing or rotating the credential,
 * compressing, rebuilding the transport, falling back, backing off, or giving up with advice.
 * Text already delivered to listeners is not delivered twice on a retry.
 */
import { type ClassifiedError, classifyApiError } from "../llm/errors.js";
import { diagnoseFailure } from "../llm/failure-cause.js";
import { type CollectedReply, collect } from "../llm/normalize.js";
import type { LlmEvent, LlmRequest } from "../llm/types.js";
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS } from "../llm/watchdog.js";
import { log } from "../util/log.js";
import { monotonicMs } from "../util/monotonic.js";
import { estimateTokens } from "../util/tokens.js";
import type { AgentEmitter } from "./events.js";
import { MemoryContextScrubber } from "./memory-scrubber.js";
import { abortGuidance } from "./recovery/guidance.js";
import { amendRequest, newRecoveryState, recover } from "./recovery/steps.js";
import type { ModelRoute, RetryPolicy } from "./recovery/types.js";

export type { ModelRoute, RetryPolicy } from "./recovery/types.js";

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseMs: 5000, capMs: 120_000 };

export interface ModelCallOptions {
  signal: AbortSignal;
  emitter: AgentEmitter;
  retry?: Partial<RetryPolicy>;
  /** Shrinks the conversation on a context overflow; resolves true when it made room. */
  compress?: () => Promise<boolean>;
  /** Emit text and reasoning deltas to listeners (off for side calls). */
  stream?: boolean;
  /** The transport's first-byte timeout; a silent provider is announced at a third of it (at most 10 s). */
  firstByteTimeoutMs?: number;
  /** Text or reasoning longer than this many UTF-8 bytes is cut with a note (default 1 MiB). */
  maxReplyBytes?: number;
}

export const DEFAULT_MAX_REPLY_BYTES = 1024 * 1024;

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** `text` cut to at most `maxBytes` UTF-8 bytes (on a character boundary), with a note saying so. */
function capText(text: string, maxBytes: number, what: string): string {
  const size = Buffer.byteLength(text, "utf8");
  if (size <= maxBytes) return text;
  const kept = new TextDecoder().decode(Buffer.from(text, "utf8").subarray(0, maxBytes)).replace(/\uFFFD$/, "");
  return `${kept}\n\n[${what} cut at ${formatBytes(maxBytes)}: the model sent ${formatBytes(size)}]`;
}

/** A runaway reply is cut before it reaches the history, the session store and the screen's scrollback. */
function capReply(reply: CollectedReply, maxBytes: number): CollectedReply {
  const text = capText(reply.text, maxBytes, "reply");
  const reasoning = capText(reply.reasoning, maxBytes, "reasoning");
  return text === reply.text && reasoning === reply.reasoning ? reply : { ...reply, text, reasoning };
}

/** Longest silence before a "waiting" status says the provider has not started answering. */
const WAIT_NOTICE_MAX_MS = 10_000;

/**
 * Announces once when the first event of a reply is slow to come, so a user watching a quiet
 * terminal knows hermes is waiting on the provider, not hung. Stops at the first event.
 */
async function* announceSlowStart(
  events: AsyncIterable<LlmEvent>,
  emitter: AgentEmitter,
  route: ModelRoute,
  firstByteTimeoutMs: number,
): AsyncIterable<LlmEvent> {
  const after = Math.min(WAIT_NOTICE_MAX_MS, Math.max(1, Math.round(firstByteTimeoutMs / 3)));
  const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);
  const timer = setTimeout(() => {
    emitter.emit({
      type: "status",
      kind: "waiting",
      message: `waiting for ${route.provider}/${route.model} to start answering (nothing after ${seconds(after)}; giving up after ${seconds(firstByteTimeoutMs)})`,
    });
  }, after);
  timer.unref();
  try {
    for await (const event of events) {
      clearTimeout(timer);
      yield event;
    }
  } finally {
    clearTimeout(timer);
  }
}

export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly classified: ClassifiedError,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ModelCallError";
  }
}

export interface ModelCallResult {
  reply: CollectedReply;
  route: ModelRoute;
  routeIndex: number;
}

/**
 * Forwards deltas to listeners, skipping text that an earlier attempt already delivered.
 * Visible text passes through the memory-context scrubber, so a recalled-memory fence the
 * model echoes never reaches the screen, even when its tags are split across chunks.
 */
async function* forwardDeltas(
  events: AsyncIterable<LlmEvent>,
  emitter: AgentEmitter,
  delivered: { text: number; reasoning: number },
): AsyncIterable<LlmEvent> {
  let text = 0;
  let reasoning = 0;
  const scrubber = new MemoryContextScrubber();
  const emitText = (visible: string) => {
    const fresh = visible.slice(Math.max(0, delivered.text - text));
    text += visible.length;
    if (fresh) {
      emitter.emit({ type: "text_delta", text: fresh });
      delivered.text = Math.max(delivered.text, text);
    }
  };
  for await (const event of events) {
    if (event.type === "text_delta") {
      emitText(scrubber.feed(event.text));
    } else if (event.type === "reasoning_delta") {
      const fresh = event.text.slice(Math.max(0, delivered.reasoning - reasoning));
      reasoning += event.text.length;
      if (fresh) {
        emitter.emit({ type: "reasoning_delta", text: fresh });
        delivered.reasoning = Math.max(delivered.reasoning, reasoning);
      }
    }
    yield event;
  }
  emitText(scrubber.flush());
}

export async function callModel(
  routes: ModelRoute[],
  buildRequest: (route: ModelRoute) => LlmRequest,
  options: ModelCallOptions,
): Promise<ModelCallResult> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const delivered = { text: 0, reasoning: 0 };
  const state = newRecoveryState();
  for (;;) {
    const route = routes[state.routeIndex]!;
    const request = amendRequest(buildRequest(route), state, route);
    // One signal per attempt: fetch leaves its abort listener on the signal it is given, so
    // handing it the turn's signal would pile up a listener per call over a long turn.
    const attempt = new AbortController();
    const forward = () => attempt.abort(options.signal.reason);
    options.signal.addEventListener("abort", forward, { once: true });
    if (options.signal.aborted) forward();
    const attemptStarted = monotonicMs();
    try {
      const events = announceSlowStart(
        route.transport.stream(request, attempt.signal),
        options.emitter,
        route,
        options.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS,
      );
      const reply = await collect(
        options.stream === false ? events : forwardDeltas(events, options.emitter, delivered),
      );
      log("info", "llm", "reply", {
        provider: route.provider,
        model: route.model,
        status: 200,
        ms: Math.round(monotonicMs() - attemptStarted),
        finish: reply.finish,
        attempt: state.attempt,
      });
      return {
        reply: capReply(reply, options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES),
        route,
        routeIndex: state.routeIndex,
      };
    } catch (error) {
      if (options.signal.aborted) throw error;
      const classified = classifyApiError(error, {
        provider: route.provider,
        model: route.model,
        approxTokens: estimateTokens(request.messages),
        numMessages: request.messages.length,
        ...(route.contextLength !== undefined ? { contextLength: route.contextLength } : {}),
      });
      const diagnosis = diagnoseFailure(error);
      log("warn", "llm", "call failed", {
        provider: route.provider,
        model: route.model,
        status: classified.statusCode,
        ms: Math.round(monotonicMs() - attemptStarted),
        reason: classified.reason,
        cause: diagnosis?.cause,
        attempt: state.attempt,
        message: classified.message.slice(0, 300),
      });
      const retry = await recover({
        classified,
        ...(diagnosis ? { diagnosis } : {}),
        request,
        routes,
        state,
        policy,
        signal: options.signal,
        emitter: options.emitter,
        ...(options.compress ? { compress: options.compress } : {}),
      });
      if (!retry) throw new ModelCallError(abortGuidance(classified, route, diagnosis), classified, { cause: error });
    } finally {
      options.signal.removeEventListener("abort", forward);
    }
  }
}
