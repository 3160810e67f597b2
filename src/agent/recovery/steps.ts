/**
 * The recovery hierarchy, one step per function, tried in order after a failed model call.
 * A step that can help changes the call's state (or the route) and answers true: the call is
 * retried. Steps read only the classified error's reason and flags, never its text.
 *
 *  1. sanitize invalid text        7. compress the conversation
 *  2. refresh the credential       8. rebuild the transport
 *  3. leave out what the route     9. switch to a fallback route
 *     refused (reasoning blocks,  10. back off and retry
 *     tool images, reasoning off) (11. abort with guidance, in the caller)
 *  4. rotate the credential
 *  5. cap the output tokens
 *
 * What a route refused stays left out of its later requests for the rest of the session
 * (`ModelRoute.refused`). A refusal that leaving something out cannot answer is not retried
 * on the same route: the same request would only be refused again.
 */
import type { ClassifiedError, FailoverReason } from "../../llm/errors.js";
import type { FailureDiagnosis } from "../../llm/failure-cause.js";
import type { LlmRequest } from "../../llm/types.js";
import { backoffDelayMs, sleepWithSignal } from "../../util/backoff.js";
import { log } from "../../util/log.js";
import type { AgentEmitter, StatusKind } from "../events.js";
import {
  capOutputTokens,
  sanitizeInvalidText,
  stripReasoningContinuity,
  textOnlyToolResults,
  withoutReasoningOff,
} from "./request-fixes.js";
import type { ModelRoute, RetryPolicy, RouteRefusals } from "./types.js";

/** Compression passes allowed within one call. */
const MAX_COMPRESSIONS = 2;
/** Tokens kept free below the provider's stated room for output, against its own rounding. */
const OUTPUT_CAP_MARGIN = 64;
/** Below this many output tokens a reply is useless; make room by compressing instead. */
const MIN_USEFUL_OUTPUT = 256;

/** Failures a provider reports when it cannot decode the text it was sent. */
const ENCODING_SUSPECTS = new Set<FailoverReason>(["format_error", "unknown", "server_error"]);

/** A part of the request the route refuses; resending it unchanged cannot succeed. */
const REFUSALS = new Set<FailoverReason>([
  "thinking_signature",
  "invalid_encrypted_content",
  "multimodal_tool_content_unsupported",
  "reasoning_mandatory",
  "oauth_long_context_beta_forbidden",
]);

/** What recovery has done so far within one call; fixes persist for the call's later attempts. */
export interface RecoveryState {
  routeIndex: number;
  attempt: number;
  compressions: number;
  sanitizeText: boolean;
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
    maxTokensCap: undefined,
    refreshed: new Set(),
    rebuilt: new Set(),
  };
}

function refusalsOf(route: ModelRoute): RouteRefusals {
  route.refused ??= { reasoningOf: new WeakSet(), toolResultImages: false, reasoningOff: false };
  return route.refused;
}

/** The request to `route` as recovery has amended it so far, in this call and earlier ones. */
export function amendRequest(request: LlmRequest, state: RecoveryState, route: ModelRoute): LlmRequest {
  let out = request;
  // First, while the messages are still the history's own objects (see dropRejectedReasoning).
  const refused = route.refused;
  if (refused) {
    out = stripReasoningContinuity(out, refused.reasoningOf).request;
    if (refused.toolResultImages) out = textOnlyToolResults(out).request;
    if (refused.reasoningOff) out = withoutReasoningOff(out).request;
  }
  if (state.sanitizeText) out = sanitizeInvalidText(out).request;
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

/**
 * Thinking signatures or encrypted reasoning the route cannot verify (made under another key,
 * model or account): the messages carrying them are sent to it without them from now on.
 */
const dropRejectedReasoning: Step = (f) => {
  const { reason } = f.classified;
  if (reason !== "thinking_signature" && reason !== "invalid_encrypted_content") return false;
  const carrying = f.request.messages.filter((message) => message.reasoningContinuity !== undefined);
  if (carrying.length === 0) return false;
  const refused = refusalsOf(routeOf(f));
  for (const message of carrying) refused.reasoningOf.add(message);
  return announce(f, "retry", "the provider rejected the reasoning blocks of earlier turns; retrying without them");
};

const textToolResults: Step = (f) => {
  if (f.classified.reason !== "multimodal_tool_content_unsupported") return false;
  if (!textOnlyToolResults(f.request).changed) return false;
  refusalsOf(routeOf(f)).toolResultImages = true;
  return announce(f, "retry", "the model takes only text in tool results; retrying with images left out of them");
};

const keepReasoningOn: Step = (f) => {
  if (f.classified.reason !== "reasoning_mandatory") return false;
  if (!withoutReasoningOff(f.request).changed) return false;
  refusalsOf(routeOf(f)).reasoningOff = true;
  return announce(f, "retry", "this model cannot turn reasoning off; retrying with its default reasoning");
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
    REFUSALS.has(classified.reason) ||
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
  if (!classified.retryable || REFUSALS.has(classified.reason)) return false;
  if (f.diagnosis?.retryable === false || state.attempt >= limit) return false;
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
  dropRejectedReasoning,
  textToolResults,
  keepReasoningOn,
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
