/**
 * One typed error for every transport failure, and the one place errors become recovery
 * decisions. The retry loop reads ClassifiedError flags and never matches error text itself.
 */
import { collectErrorFacts, displayMessage, headersToRecord } from "./error-facts.js";
import { authKeepsCredential, breakerGaveUp, classifyReason } from "./error-rules.js";
import { parseAvailableOutputTokens, parseContextLimit } from "./overflow-hints.js";
import { resetFromBody, resetFromMessage, resetFromRateLimitHeaders, retryAfterFromHeaders } from "./retry-hints.js";

export type LlmErrorKind = "http" | "timeout" | "stale_stream" | "disconnect" | "abort" | "malformed" | "network";

export interface LlmErrorInit {
  kind: LlmErrorKind;
  provider?: string;
  model?: string;
  status?: number;
  /** The response body: parsed JSON when it was JSON, otherwise the text. */
  body?: unknown;
  headers?: Record<string, string>;
  cause?: unknown;
  /** Transport code such as ECONNRESET or ETIMEDOUT. */
  code?: string;
  /** The URL the failed request went to. */
  url?: string;
}

export class LlmError extends Error {
  override name = "LlmError";
  readonly kind: LlmErrorKind;
  readonly provider?: string;
  readonly model?: string;
  readonly status?: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly code?: string;
  readonly url?: string;

  constructor(message: string, init: LlmErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    if (init.provider !== undefined) this.provider = init.provider;
    if (init.model !== undefined) this.model = init.model;
    if (init.status !== undefined) this.status = init.status;
    if (init.body !== undefined) this.body = init.body;
    if (init.headers !== undefined) this.headers = init.headers;
    if (init.code !== undefined) this.code = init.code;
    if (init.url !== undefined) this.url = init.url;
  }
}

/** Builds the LlmError for a non-2xx response, reading (and consuming) its body. */
/** What an error reply must offer: a fetch `Response` or the project's own HTTP client response. */
export interface ErrorResponse {
  status: number;
  statusText?: string;
  headers: unknown;
  text(): Promise<string>;
}

export async function llmErrorFromResponse(
  response: ErrorResponse,
  where: { provider?: string; model?: string; url?: string } = {},
): Promise<LlmError> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // The body could not be read; the status alone still classifies.
  }
  let body: unknown = text || undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: keep the text.
  }
  const facts = collectErrorFacts({ body });
  const detail = facts.bodyMessage ?? (typeof body === "string" ? body.slice(0, 300) : response.statusText);
  const prefix = where.provider ? `${where.provider} ` : "";
  return new LlmError(`${prefix}HTTP ${response.status}${detail ? `: ${detail}` : ""}`, {
    kind: "http",
    status: response.status,
    body,
    headers: headersToRecord(response.headers),
    ...where,
  });
}

/** Why a call failed, in terms of what recovery can help. */
export type FailoverReason =
  | "auth"
  | "auth_permanent"
  | "billing"
  | "rate_limit"
  | "overloaded"
  | "server_error"
  | "timeout"
  | "context_overflow"
  | "payload_too_large"
  | "image_too_large"
  | "model_not_found"
  | "provider_policy_blocked"
  | "content_policy_blocked"
  | "format_error"
  | "invalid_encrypted_content"
  | "multimodal_tool_content_unsupported"
  | "reasoning_mandatory"
  | "thinking_signature"
  | "long_context_tier"
  | "oauth_long_context_beta_forbidden"
  | "llama_cpp_grammar_pattern"
  | "aborted"
  | "unknown";

export interface ClassifiedError {
  reason: FailoverReason;
  statusCode?: number;
  /** Worth retrying the same request (after backoff, compression, or stripping as hinted). */
  retryable: boolean;
  /** Compress the conversation before retrying. */
  shouldCompress: boolean;
  /** Mark the credential exhausted and rotate to the next one in the pool. */
  shouldRotateCredential: boolean;
  /** Switching to a fallback provider/model may succeed where this one cannot. */
  shouldFallback: boolean;
  message: string;
  /** Seconds the provider asked us to wait (from headers, body or wording). */
  retryAfterSeconds?: number;
  /** Epoch seconds at which the provider says the limit resets. */
  resetAt?: number;
  /** Machine-readable code from the body (`context_length_exceeded`) or transport (`ECONNRESET`). */
  errorCode?: string;
  /** Context window the provider reported (context overflow only). */
  contextLimit?: number;
  /** Output tokens that would still fit beside the prompt (context overflow only). */
  availableOutputTokens?: number;
}

export interface ClassifyContext {
  provider?: string;
  model?: string;
  /** Rough token count of the request that failed. */
  approxTokens?: number;
  /** The model's context window in tokens. */
  contextLength?: number;
  numMessages?: number;
  /** Clock for resolving relative waits (epoch milliseconds); defaults to Date.now(). */
  nowMs?: number;
}

type Flags = Pick<ClassifiedError, "retryable" | "shouldCompress" | "shouldRotateCredential" | "shouldFallback">;

const flags = (retryable: boolean, compress: boolean, rotate: boolean, fallback: boolean): Flags => ({
  retryable,
  shouldCompress: compress,
  shouldRotateCredential: rotate,
  shouldFallback: fallback,
});

//                                           retry  compress rotate fallback
const RECOVERY: Record<FailoverReason, Flags> = {
  auth: flags(false, false, true, true),
  auth_permanent: flags(false, false, true, true),
  billing: flags(false, false, true, true),
  rate_limit: flags(true, false, true, true),
  // An aggregator's upstream model is rate limited: the key is healthy, another model may not be.
  // Transient faults: the retries decide. Once they run out the agent moves to the next route
  // anyway, so these do not ask for an early switch.
  overloaded: flags(true, false, false, false),
  server_error: flags(true, false, false, false),
  timeout: flags(true, false, false, false),
  context_overflow: flags(true, true, false, false),
  payload_too_large: flags(true, true, false, false),
  image_too_large: flags(true, false, false, false),
  model_not_found: flags(false, false, false, true),
  provider_policy_blocked: flags(false, false, false, false),
  content_policy_blocked: flags(false, false, false, true),
  format_error: flags(false, false, false, true),
  // The four below are retried as they are: the agent has no step that strips replayed
  // reasoning, flattens tool images, drops the long-context beta or stops disabling reasoning,
  // so retries run out and the route falls back like any other exhausted retry.
  invalid_encrypted_content: flags(true, false, false, false),
  multimodal_tool_content_unsupported: flags(true, false, false, false),
  oauth_long_context_beta_forbidden: flags(true, false, false, false),
  reasoning_mandatory: flags(true, false, false, false),
  thinking_signature: flags(true, false, false, false),
  long_context_tier: flags(true, true, false, false),
  llama_cpp_grammar_pattern: flags(true, false, false, false),
  aborted: flags(false, false, false, false),
  unknown: flags(true, false, false, false),
};

/** Reasons whose provider reset times (headers, body, wording) say when to come back. */
const QUOTA_REASONS = new Set<FailoverReason>(["rate_limit", "billing", "long_context_tier"]);

export function classifyApiError(error: unknown, ctx: ClassifyContext = {}): ClassifiedError {
  const facts = collectErrorFacts(error);
  const reason = classifyReason(facts, ctx);
  const result: ClassifiedError = { reason, ...RECOVERY[reason], message: displayMessage(facts) };
  if (reason === "auth" && authKeepsCredential(facts)) result.shouldRotateCredential = false;
  if (reason === "timeout" && breakerGaveUp(facts)) {
    result.retryable = false;
    result.shouldFallback = true;
  }
  if (facts.status !== undefined) result.statusCode = facts.status;
  const errorCode = facts.bodyCode ?? facts.transportCodes[0];
  if (errorCode !== undefined) result.errorCode = errorCode;

  const nowMs = ctx.nowMs ?? Date.now();
  let resetAt = retryAfterFromHeaders(facts.headers, nowMs);
  if (resetAt === undefined && (QUOTA_REASONS.has(reason) || reason === "overloaded")) {
    resetAt = resetFromBody(facts.body, nowMs) ?? resetFromMessage(facts.wording, nowMs);
  }
  if (resetAt === undefined && QUOTA_REASONS.has(reason)) resetAt = resetFromRateLimitHeaders(facts.headers, nowMs);
  if (resetAt !== undefined) {
    result.resetAt = Math.round(resetAt * 1000) / 1000;
    result.retryAfterSeconds = Math.max(0, Math.round((resetAt - nowMs / 1000) * 1000) / 1000);
  }

  if (reason === "context_overflow" || reason === "payload_too_large") {
    const contextLimit = parseContextLimit(facts.wording);
    if (contextLimit !== undefined) result.contextLimit = contextLimit;
    const available = parseAvailableOutputTokens(facts.wording);
    if (available !== undefined) result.availableOutputTokens = available;
  }
  return result;
}
