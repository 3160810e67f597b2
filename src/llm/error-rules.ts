/**
 * The classification pipeline: small rules tried in priority order; the first that recognises
 * the error names its reason. Provider-specific shapes come first because their status codes
 * lie (a thinking-signature error is a 400 that must not be treated as a bad request), then the
 * HTTP status refined by wording, then body codes, then wording alone, then transport failures.
 */
import type { ErrorFacts } from "./error-facts.js";
import { type ErrorPatterns, errorPatterns, matchesAny } from "./error-patterns.js";
import type { ClassifyContext, FailoverReason } from "./errors.js";

type Rule = (facts: ErrorFacts, ctx: ClassifyContext) => FailoverReason | undefined;

/** Share of the context window above which a vague failure is blamed on the session's size. */
const LARGE_SESSION_RATIO = 0.6;
const LARGE_SESSION_TOKENS = 120_000;
const LARGE_SESSION_MESSAGES = 200;

/**
 * Whether the session is big enough that a vague failure is probably its size. With a known
 * window the share of it used decides alone: on a million-token window, 300 short messages are
 * small, and a vague 400 there is about the request, not worth a compression.
 */
export function isLargeSession(ctx: ClassifyContext): boolean {
  const tokens = ctx.approxTokens;
  const windowKnown = ctx.contextLength !== undefined && ctx.contextLength > 0;
  if (tokens !== undefined && tokens > 0) {
    if (windowKnown) return tokens > ctx.contextLength! * LARGE_SESSION_RATIO;
    if (tokens > LARGE_SESSION_TOKENS) return true;
  }
  return !windowKnown && (ctx.numMessages ?? 0) > LARGE_SESSION_MESSAGES;
}

/** Spend caps are billing, unless the wording says the cap resets soon. */
function usageLimitReason(text: string): FailoverReason | undefined {
  if (!matchesAny(text, P.USAGE_LIMIT)) return undefined;
  return matchesAny(text, P.TRANSIENT_SIGNAL) ? "rate_limit" : "billing";
}

const abortRule: Rule = (f) => {
  if (f.kind === "abort") return "aborted";
  return f.names.some((name) => /AbortError$/.test(name)) && f.kind === undefined && f.status === undefined
    ? "aborted"
    : undefined;
};

/** LlmError kinds raised by our own transports say exactly what happened on the wire. */
const transportKindRule: Rule = (f, ctx) => {
  if (f.status !== undefined) return undefined;
  switch (f.kind) {
    case "timeout":
    case "stale_stream":
    case "network":
      return "timeout";
    case "malformed":
      return "server_error";
    case "disconnect":
      return isSslHiccup(f) ? "timeout" : isLargeSession(ctx) ? "context_overflow" : "timeout";
    default:
      return undefined;
  }
};

const providerSpecificRule: Rule = (f) => {
  const { status, text } = f;
  const vagueOr = (...codes: number[]) => status === undefined || codes.includes(status);
  if (vagueOr(400) && matchesAny(text, P.THINKING_SIGNATURE)) return "thinking_signature";
  if (status === 429 && matchesAny(text, P.LONG_CONTEXT_TIER)) return "long_context_tier";
  if (vagueOr(400) && text.includes("extra usage")) return "long_context_tier";
  if (vagueOr(400, 500) && matchesAny(text, P.LLAMA_CPP_GRAMMAR)) return "llama_cpp_grammar_pattern";
  if (vagueOr(400, 413) && matchesAny(text, P.IMAGE_TOO_LARGE)) return "image_too_large";
  return undefined;
};

const policyRule: Rule = (f) => {
  if (matchesAny(f.text, P.PROVIDER_POLICY)) return "provider_policy_blocked";
  const { status } = f;
  const policyStatus = status === undefined || status === 400 || status === 403 || status === 422 || status === 451;
  return policyStatus && matchesAny(f.wording, P.CONTENT_POLICY) ? "content_policy_blocked" : undefined;
};

function classify400(f: ErrorFacts, ctx: ClassifyContext): FailoverReason {
  const { text, wording } = f;
  if (matchesAny(text, P.CONTEXT_OVERFLOW)) return "context_overflow";
  if (matchesAny(text, P.RATE_LIMIT)) return "rate_limit";
  const usage = usageLimitReason(text);
  if (usage) return usage;
  if (matchesAny(text, P.BILLING)) return "billing";
  if (matchesAny(text, P.AUTH)) return "auth";
  if (matchesAny(text, P.MODEL_NOT_FOUND)) return "model_not_found";
  // A 400 that names a specific problem is about the request; a vague one on a huge session is
  // most likely the provider choking on its size.
  if (matchesAny(wording, P.FORMAT)) return "format_error";
  return isLargeSession(ctx) ? "context_overflow" : "format_error";
}

function classify5xx(f: ErrorFacts, status: number): FailoverReason {
  const { text } = f;
  if (matchesAny(text, P.CONTEXT_OVERFLOW)) return "context_overflow";
  if (f.bodyType === "invalid_request_error" || /unsupported (?:parameter|value|argument)/.test(text)) {
    return "format_error";
  }
  if (status === 503 || status === 529 || matchesAny(text, P.OVERLOADED)) return "overloaded";
  if (matchesAny(text, P.RATE_LIMIT)) return "rate_limit";
  return "server_error";
}

const statusRule: Rule = (f, ctx) => {
  const { status, text } = f;
  if (status === undefined) return undefined;
  if (status >= 500) return classify5xx(f, status);
  switch (status) {
    case 400:
      return classify400(f, ctx);
    case 401:
      return "auth";
    case 402:
      return usageLimitReason(text) ?? "billing";
    case 403:
      return usageLimitReason(text) ?? (matchesAny(text, P.BILLING) ? "billing" : "auth");
    case 404:
      if (matchesAny(text, P.BILLING)) return "billing";
      if (matchesAny(text, P.MODEL_NOT_FOUND)) return "model_not_found";
      return "unknown";
    case 408:
      return "timeout";
    case 413:
      return "payload_too_large";
    case 422:
      return matchesAny(text, P.CONTEXT_OVERFLOW) ? "context_overflow" : "format_error";
    case 429:
      if (matchesAny(text, P.OVERLOADED)) return "overloaded";
      if (matchesAny(text, P.BILLING)) return "billing";
      return "rate_limit";
    default:
      return undefined;
  }
};

const BODY_CODES: Record<string, FailoverReason> = {
  context_length_exceeded: "context_overflow",
  string_above_max_length: "context_overflow",
  rate_limit_exceeded: "rate_limit",
  rate_limit: "rate_limit",
  rate_limit_error: "rate_limit",
  resource_exhausted: "rate_limit",
  too_many_requests: "rate_limit",
  insufficient_quota: "billing",
  billing_hard_limit_reached: "billing",
  billing_error: "billing",
  insufficient_credits: "billing",
  payment_required: "billing",
  model_not_found: "model_not_found",
  invalid_api_key: "auth",
  authentication_error: "auth",
  permission_error: "auth",
  permission_denied: "auth",
  unauthenticated: "auth",
  unauthorized: "auth",
  overloaded: "overloaded",
  overloaded_error: "overloaded",
  unavailable: "overloaded",
  server_error: "server_error",
  internal: "server_error",
  internal_error: "server_error",
  api_error: "server_error",
};

const bodyCodeRule: Rule = (f) =>
  (f.bodyCode && BODY_CODES[f.bodyCode]) || (f.bodyType && BODY_CODES[f.bodyType]) || undefined;

const messageRule: Rule = (f) => {
  const { text } = f;
  if (matchesAny(text, P.CONTEXT_OVERFLOW)) return "context_overflow";
  if (matchesAny(text, P.RATE_LIMIT)) return "rate_limit";
  const usage = usageLimitReason(text);
  if (usage) return usage;
  if (matchesAny(text, P.BILLING)) return "billing";
  if (matchesAny(text, P.OVERLOADED)) return "overloaded";
  if (matchesAny(text, P.AUTH)) return "auth";
  if (matchesAny(text, P.MODEL_NOT_FOUND)) return "model_not_found";
  if (matchesAny(text, P.SERVER_ERROR)) return "server_error";
  return undefined;
};

function isSslHiccup(f: ErrorFacts): boolean {
  return f.transportCodes.some((code) => /SSL|TLS|EPROTO/.test(code)) || matchesAny(f.text, P.SSL_TRANSIENT);
}

/** Checked before the disconnect rule: a TLS alert mid-stream is a hiccup, not an oversized prompt. */
const sslRule: Rule = (f) => (isSslHiccup(f) ? "timeout" : undefined);

const DISCONNECT_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "ERR_STREAM_PREMATURE_CLOSE"]);

const disconnectRule: Rule = (f, ctx) => {
  const disconnected =
    f.transportCodes.some((code) => DISCONNECT_CODES.has(code)) ||
    f.names.some((name) => P.DISCONNECT_NAMES.test(name)) ||
    matchesAny(f.wording, P.DISCONNECT);
  if (!disconnected) return undefined;
  return isLargeSession(ctx) ? "context_overflow" : "timeout";
};

const transportRule: Rule = (f) => {
  if (f.transportCodes.length > 0) return "timeout";
  if (f.names.some((name) => P.TIMEOUT_NAMES.test(name))) return "timeout";
  return matchesAny(f.wording, P.TIMEOUT_TEXT) ? "timeout" : undefined;
};

/** Last chance before "unknown": the provider called it an invalid request. */
const lateFormatRule: Rule = (f) => (f.bodyType === "invalid_request_error" ? "format_error" : undefined);

const PIPELINE: Rule[] = [
  abortRule,
  transportKindRule,
  providerSpecificRule,
  policyRule,
  statusRule,
  bodyCodeRule,
  messageRule,
  sslRule,
  disconnectRule,
  transportRule,
  lateFormatRule,
];

/** The wording patterns, built by the first classification (see error-patterns.ts). */
let P: ErrorPatterns;

export function classifyReason(facts: ErrorFacts, ctx: ClassifyContext): FailoverReason {
  P ??= errorPatterns();
  for (const rule of PIPELINE) {
    const reason = rule(facts, ctx);
    if (reason) return reason;
  }
  return "unknown";
}
