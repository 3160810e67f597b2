/**
 * The classification pipeline: small rules tried in priority order; the first that recognises
 * the error names its reason. Verbatim safety refusals come first, then provider-specific shapes
 * whose status codes lie (a thinking-signature error is a 400 that must not be treated as a bad
 * request), then the HTTP status refined by wording, then body codes, then wording alone, then
 * transport failures.
 */
import { BODY_CODES } from "./error-codes.js";
import type { ErrorFacts } from "./error-facts.js";
import { type ErrorPatterns, errorPatterns, matchesAny } from "./error-patterns.js";
import { DISCONNECT_BAR, isLargeSession } from "./error-session.js";
import { classifyByStatus, usageLimitReason } from "./error-status.js";
import type { ClassifyContext, FailoverReason } from "./errors.js";

type Rule = (facts: ErrorFacts, ctx: ClassifyContext) => FailoverReason | undefined;

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
      return isSslHiccup(f) ? "timeout" : isLargeSession(ctx, DISCONNECT_BAR) ? "context_overflow" : "timeout";
    default:
      return undefined;
  }
};

const policyRule: Rule = (f) => {
  if (matchesAny(f.text, P.CONTENT_POLICY_STRICT)) return "content_policy_blocked";
  if (matchesAny(f.text, P.PROVIDER_POLICY)) return "provider_policy_blocked";
  // The looser policy wording could appear in unrelated errors, so it counts only where a
  // refusal can arrive.
  const { status } = f;
  const policyStatus = status === undefined || status === 400 || status === 403 || status === 422 || status === 451;
  return policyStatus && matchesAny(f.wording, P.CONTENT_POLICY) ? "content_policy_blocked" : undefined;
};

const providerSpecificRule: Rule = (f) => {
  const { status, text } = f;
  const vagueOr = (...codes: number[]) => status === undefined || codes.includes(status);
  if (vagueOr(400) && text.includes("thinking") && matchesAny(text, P.THINKING_SIGNATURE)) {
    return "thinking_signature";
  }
  if (vagueOr(400, 429) && matchesAny(text, P.LONG_CONTEXT_TIER)) return "long_context_tier";
  if (matchesAny(text, P.EXTRA_USAGE_SPENT)) return "billing";
  if (status === 400 && matchesAny(text, P.LONG_CONTEXT_BETA)) return "oauth_long_context_beta_forbidden";
  // A template with no user turn to answer also surfaces as a parser failure; that is the
  // transcript's fault, not a schema pattern's.
  if (vagueOr(400) && matchesAny(text, P.LLAMA_CPP_GRAMMAR) && !matchesAny(text, P.NO_USER_QUERY)) {
    return "llama_cpp_grammar_pattern";
  }
  if (vagueOr(400) && matchesAny(text, P.MULTIMODAL_TOOL_CONTENT)) return "multimodal_tool_content_unsupported";
  if (vagueOr(400, 413) && matchesAny(text, P.IMAGE_TOO_LARGE)) return "image_too_large";
  if (vagueOr(400) && matchesAny(text, P.INVALID_ENCRYPTED_CONTENT)) return "invalid_encrypted_content";
  if (matchesAny(text, P.GROK_ENTITLEMENT)) return "auth";
  return undefined;
};

const statusRule: Rule = classifyByStatus;

/** The code a stream reader gives a provider's `data:` line that was not JSON. */
const NON_JSON_STREAM_CODE = "provider_stream_non_json_data";

const bodyCodeRule: Rule = (f) => {
  // A plain-text stream error that says the request failed validation fails the same on every
  // retry; another route may still accept it.
  if (f.bodyCode === NON_JSON_STREAM_CODE && f.text.includes("request validation failed:")) return "format_error";
  return (f.bodyCode && BODY_CODES[f.bodyCode]) || (f.bodyType && BODY_CODES[f.bodyType]) || undefined;
};

const messageRule: Rule = (f) => {
  const { text } = f;
  if (matchesAny(text, P.PAYLOAD_TOO_LARGE)) return "payload_too_large";
  // Before context overflow: "Throttling error: Too many tokens, please wait" is a rate limit.
  if (matchesAny(text, P.RATE_LIMIT)) return "rate_limit";
  if (matchesAny(text, P.CONTEXT_OVERFLOW)) return "context_overflow";
  const usage = usageLimitReason(text);
  if (usage) return usage;
  if (matchesAny(text, P.BILLING)) return "billing";
  if (matchesAny(text, P.OVERLOADED)) return "overloaded";
  if (matchesAny(text, P.AUTH)) return "auth";
  if (matchesAny(text, P.MODEL_NOT_FOUND)) return "model_not_found";
  // Before server errors: "upstream connect error" is a proxy that never reached the provider.
  if (matchesAny(text, P.CONNECT_FAILURE)) return "timeout";
  if (matchesAny(text, P.SERVER_ERROR)) return "server_error";
  return undefined;
};

const staleBreakerRule: Rule = (f) => (breakerGaveUp(f) ? "timeout" : undefined);

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
  return isLargeSession(ctx, DISCONNECT_BAR) ? "context_overflow" : "timeout";
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
  policyRule,
  providerSpecificRule,
  statusRule,
  bodyCodeRule,
  messageRule,
  staleBreakerRule,
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

/**
 * An auth failure that says nothing against the key itself: a missing Grok subscription, which
 * another key of the same account would meet alike, so the credential is kept. A generic 401 or
 * 403 rotates the credential.
 */
export function authKeepsCredential(facts: ErrorFacts): boolean {
  P ??= errorPatterns();
  return matchesAny(facts.text, P.GROK_ENTITLEMENT);
}

/** A stale-call breaker's give-up: a timeout that only another route can get past. */
export function breakerGaveUp(facts: ErrorFacts): boolean {
  P ??= errorPatterns();
  return facts.status === undefined && P.STALE_BREAKER.test(facts.wording);
}
