/**
 * The recovery hierarchy, one step per function, tried in order after a failed model call.
 * A step that can help changes the call's state (or the route) and answers true: the call is
 * retried. Steps read only the classified error's reason and flags, never its text.
 *
 *  1. sanitize invalid text      6. compress the conversation
 *  2. refresh the credential     7. rebuild the transport
 *  3. strip thinking signatures  8. switch to a fallback route
 *  4. rotate the credential      9. back off and retry
 *  5. cap the output tokens     (10. abort with guidance, in the caller)
 */
import type { ClassifiedError, FailoverReason } from "../../llm/errors.js";
import type { FailureDiagnosis } from "../../llm/failure-cause.js";
import type { LlmRequest } from "../../llm/types.js";
import { backoffDelayMs, sleepWithSignal } from "../../util/backoff.js";
import { log } from "../../util/log.js";
import type { AgentEmitter, StatusKind } from "../events.js";
import { capOutputTokens, sanitizeInvalidText, stripReasoningContinuity } from "./request-fixes.js";
import type { ModelRoute, RetryPolicy } from "./types.js";

/** Compression passes allowed within one call. */
const MAX_COMPRESSIONS = 2;
/** Tokens kept free below the provider's stated room for output, against its own rounding. */
const OUTPUT_CAP_MARGIN = 64;
/** Below this many output tokens a reply is useless; make room by compressing instead. */
const MIN_USEFUL_OUTPUT = 256;

/** Failures a provider reports when it cannot decode the text it was sent. */
const ENCODING_SUSPECTS = new Set<FailoverReason>(["format_error", "unknown", "server_error"]);

/** What recovery has done so far within one call; fixes persist for the call's later attempts. */
export interface RecoveryState {
  routeIndex: number;
  attempt: number;
  compressions: number;
  sanitizeText: boolean;
  stripReasoning: boolean;
  maxTokensCap: number | undefined;
  refreshed: Set<ModelRoute>;
  rebuilt: Set<ModelRoute>;
}

export function newRecoveryState(): RecoveryState {
  return {
    routeIndex: 0,
    attempt: 0,
    compressions: 0,
    sanitizeText: false,
    stripReasoning: false,
    maxTokensCap: undefined,
    refreshed: new Set(),
    rebuilt: new Set(),
  };
}

/** The request as recovery has amended it so far. */
export function amendRequest(request: LlmRequest, state: RecoveryState): LlmRequest {
  let out = request;
  if (state.sanitizeText) out = sanitizeInvalidText(out).request;
  if (state.stripReasoning) out = stripReasoningContinuity(out).request;
  if (state.maxTokensCap !== undefined) out = capOutputTokens(out, state.maxTokensCap).request;
  return out;
}

export interface Failure {
  classified: ClassifiedError;
  /** What the transport knows about the failure; `retryable: false` ends retries of this route. */
  diagnosis?: FailureDiagnosis;
  /** The request that failed, as sent. */
  request: LlmRequest;
  routes: ModelRoute[];
  state: RecoveryState;
  policy: RetryPolicy;
  signal: AbortSignal;
  emitter: AgentEmitter;
  compress?: () => Promise<boolean>;
}

type Step = (failure: Failure) => boolean | Promise<boolean>;

const routeOf = (f: Failure) => f.routes[f.state.routeIndex]!;

function announce(f: Failure, kind: StatusKind, message: string): true {
  log("info", "recovery", kind, { reason: f.classified.reason, message });
  f.emitter.emit({ type: "status", kind, message });
  return true;
}

const sanitizeText: Step = (f) => {
  if (f.state.sanitizeText || !ENCODING_SUSPECTS.has(f.classified.reason)) return false;
  if (!sanitizeInvalidText(f.request).changed) return false;
  f.state.sanitizeText = true;
  return announce(f, "retry", "the request held invalid characters; retrying with them replaced");
};

const refreshCredential: Step = async (f) => {
  const route = routeOf(f);
  const { classified } = f;
  if (classified.reason !== "auth" || classified.statusCode !== 401) return false;
  if (!route.refreshCredential || f.state.refreshed.has(route)) return false;
  f.state.refreshed.add(route);
  const next = await route.refreshCredential(classified);
  if (!next) return false;
  route.transport = next;
  return announce(f, "retry", `${route.provider}: refreshed the credential`);
};

const stripThinkingSignatures: Step = (f) => {
  if (f.classified.reason !== "thinking_signature" || f.state.stripReasoning) return false;
  if (!stripReasoningContinuity(f.request).changed) return false;
  f.state.stripReasoning = true;
  return announce(f, "retry", "the provider rejected earlier reasoning blocks; retrying without them");
};

const rotateCredential: Step = async (f) => {
  const route = routeOf(f);
  if (!f.classified.shouldRotateCredential || !route.rotateCredential) return false;
  const next = await route.rotateCredential(f.classified);
  if (!next) return false;
  route.transport = next;
  return announce(f, "retry", `${route.provider}: switched to the next credential`);
};

/**
 * When the provider says how much room is left for the reply, the prompt itself fits: a smaller
 * output budget fixes the call without throwing away any of the conversation.
 */
const capOutput: Step = (f) => {
  const available = f.classified.availableOutputTokens;
  if (!f.classified.shouldCompress || available === undefined) return false;
  const cap = available - OUTPUT_CAP_MARGIN;
  if (cap < MIN_USEFUL_OUTPUT || !capOutputTokens(f.request, cap).changed) return false;
  f.state.maxTokensCap = cap;
  return announce(f, "retry", `the reply budget does not fit the context; retrying with max_tokens ${cap}`);
};

const compress: Step = async (f) => {
  if (!f.classified.shouldCompress || !f.compress || f.state.compressions >= MAX_COMPRESSIONS) return false;
  f.state.compressions++;
  announce(f, "compression", "context is full; compressing and retrying");
  return f.compress();
};

/** Transport failures have no HTTP status: the connection itself broke, so a fresh client may help. */
const rebuildTransport: Step = async (f) => {
  const route = routeOf(f);
  if (f.classified.reason !== "timeout" || f.classified.statusCode !== undefined) return false;
  if (f.diagnosis?.retryable === false) return false;
  if (!route.rebuildTransport || f.state.rebuilt.has(route)) return false;
  f.state.rebuilt.add(route);
  route.transport = await route.rebuildTransport(f.classified);
  return announce(f, "retry", `${route.provider}: connection failed; retrying with a fresh connection`);
};

/**
 * Retries this error deserves. A refused connection means nothing is listening (typically a
 * local server that is not running): one quick retry covers a restart, more only make the user wait.
 */
function retryLimit(classified: ClassifiedError, policy: RetryPolicy): number {
  return classified.errorCode === "ECONNREFUSED" ? Math.min(1, policy.maxRetries) : policy.maxRetries;
}

const REFUSED_RETRY_MAX_MS = 2000;

const switchToFallback: Step = (f) => {
  const { classified, state, policy } = f;
  if (state.routeIndex + 1 >= f.routes.length) return false;
  // Transient faults get the primary's retries first; errors that retrying cannot fix (and
  // rate limits, where waiting is the expensive path) switch at once.
  const eager = !classified.retryable || classified.reason === "rate_limit";
  const hopeless = f.diagnosis?.retryable === false;
  const switchNow =
    hopeless ||
    (classified.shouldFallback && eager) ||
    (classified.retryable && state.attempt >= retryLimit(classified, policy));
  if (!switchNow) return false;
  const from = routeOf(f);
  state.routeIndex++;
  state.attempt = 0;
  const to = routeOf(f);
  return announce(
    f,
    "fallback",
    `${from.provider}/${from.model} failed (${classified.reason}); falling back to ${to.provider}/${to.model}`,
  );
};

const backOff: Step = async (f) => {
  const { classified, state, policy } = f;
  const limit = retryLimit(classified, policy);
  if (!classified.retryable || f.diagnosis?.retryable === false || state.attempt >= limit) return false;
  const retryAfterMs = classified.retryAfterSeconds !== undefined ? classified.retryAfterSeconds * 1000 : undefined;
  // A limit that lifts only after longer than the longest wait (a daily quota) cannot be
  // waited out here: waiting the capped time and failing again would only delay the message.
  if (retryAfterMs !== undefined && retryAfterMs > policy.capMs) return false;
  state.attempt++;
  const refused = classified.errorCode === "ECONNREFUSED";
  let delay = backoffDelayMs(state.attempt, { baseMs: policy.baseMs, capMs: policy.capMs, retryAfterMs });
  if (refused) delay = Math.min(delay, REFUSED_RETRY_MAX_MS);
  const what = refused
    ? "connection refused"
    : classified.reason === "rate_limit"
      ? "rate limited"
      : classified.reason.replace(/_/g, " ");
  announce(
    f,
    "retry",
    `${what}, retrying in ${Math.max(1, Math.round(delay / 1000))} s (attempt ${state.attempt} of ${limit})`,
  );
  await sleepWithSignal(delay, f.signal);
  return true;
};

export const RECOVERY_STEPS: readonly Step[] = [
  sanitizeText,
  refreshCredential,
  stripThinkingSignatures,
  rotateCredential,
  capOutput,
  compress,
  rebuildTransport,
  switchToFallback,
  backOff,
];

/** Runs the hierarchy; true when the call should be retried, false when it must abort. */
export async function recover(failure: Failure): Promise<boolean> {
  for (const step of RECOVERY_STEPS) {
    if (await step(failure)) return true;
  }
  return false;
}
