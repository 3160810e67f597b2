/**
 * The HTTP status, refined by wording. A status is the strongest signal an error carries, but
 * providers bend it: billing arrives as 400 or 403, request-validation errors as 502, and a
 * bare "Error" 400 on a huge session is usually the prompt's size.
 */
import type { ErrorFacts } from "./error-facts.js";
import { prefixedModelFor } from "./error-model-ids.js";
import { errorPatterns, matchesAny } from "./error-patterns.js";
import { isLargeSession, VAGUE_400_BAR } from "./error-session.js";
import type { ClassifyContext, FailoverReason } from "./errors.js";

/** A provider message shorter than this names no specific problem. */
const VAGUE_MESSAGE_CHARS = 30;

/** Spend caps are billing, unless the wording says the cap resets soon. */
export function usageLimitReason(text: string): FailoverReason | undefined {
  const P = errorPatterns();
  if (!matchesAny(text, P.USAGE_LIMIT)) return undefined;
  return matchesAny(text, P.TRANSIENT_SIGNAL) ? "rate_limit" : "billing";
}

/**
 * Parameters we send only on some routes, with the provider names that are those routes. When
 * any other route is told such a parameter is unsupported, the provider's own gateway added it
 * (the Codex backend does so with prompt_cache_retention now and then): a server-side flake
 * that the identical request usually gets past.
 */
const ROUTE_ONLY_PARAMS: ReadonlyArray<[param: string, senders: readonly string[]]> = [
  ["prompt_cache_retention", ["meta", "muse", "msl", "model-api", "bedrock", "mantle"]],
];
const REJECTION_WORDS = ["not supported", "unsupported", "unknown", "unrecognized"];

function rejectsInjectedParam(text: string, ctx: ClassifyContext): boolean {
  if (!REJECTION_WORDS.some((word) => text.includes(word))) return false;
  const route = ctx.provider?.trim().toLowerCase() ?? "";
  return ROUTE_ONLY_PARAMS.some(
    ([param, senders]) => text.includes(param) && !senders.some((sender) => route.includes(sender)),
  );
}

/** The provider's own words: the body's message, else the body text, else the error's message. */
function providerMessage(f: ErrorFacts): string {
  if (f.bodyMessage !== undefined) return f.bodyMessage;
  if (typeof f.body === "string") return f.body;
  return f.messages[0] ?? "";
}

function classify400(f: ErrorFacts, ctx: ClassifyContext): FailoverReason {
  const P = errorPatterns();
  const { text } = f;
  // Before the parameter check, which would give up on a request that needs one field dropped.
  if (matchesAny(text, P.REASONING_MANDATORY)) return "reasoning_mandatory";
  if (rejectsInjectedParam(text, ctx)) return "server_error";
  // Parameter complaints can mention token fields ("'max_tokens' is not supported"); they are
  // about the request, never its size.
  if (matchesAny(text, P.REQUEST_VALIDATION)) return "format_error";
  // A malformed transcript fails the same however small it is; compressing cannot fix it.
  if (matchesAny(text, P.INVALID_MESSAGE_BODY)) return "format_error";
  if (matchesAny(text, P.CONTEXT_OVERFLOW)) return "context_overflow";
  if (matchesAny(text, P.RATE_LIMIT)) return "rate_limit";
  const usage = usageLimitReason(text);
  if (usage) return usage;
  if (matchesAny(text, P.BILLING)) return "billing";
  if (matchesAny(text, P.AUTH)) return "auth";
  if (matchesAny(text, P.MODEL_NOT_FOUND)) return "model_not_found";
  const vague = providerMessage(f).trim().length < VAGUE_MESSAGE_CHARS;
  return vague && isLargeSession(ctx, VAGUE_400_BAR) ? "context_overflow" : "format_error";
}

function classify5xx(f: ErrorFacts, status: number, ctx: ClassifyContext): FailoverReason {
  const P = errorPatterns();
  const { text } = f;
  // A gateway that reports a bad parameter as a 5xx gives the same answer on every retry.
  const badParameter =
    f.bodyType === "invalid_request_error" ||
    matchesAny(text, P.REQUEST_VALIDATION) ||
    /unsupported (?:value|argument)/.test(text);
  if (badParameter && !rejectsInjectedParam(text, ctx)) return "format_error";
  if (matchesAny(text, P.CONTEXT_OVERFLOW)) return "context_overflow";
  if (status === 503 || status === 529 || matchesAny(text, P.OVERLOADED)) return "overloaded";
  if (matchesAny(text, P.RATE_LIMIT)) return "rate_limit";
  return "server_error";
}

export function classifyByStatus(f: ErrorFacts, ctx: ClassifyContext): FailoverReason | undefined {
  const P = errorPatterns();
  const { status, text } = f;
  if (status === undefined) return undefined;
  if (status >= 500) return classify5xx(f, status, ctx);
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
      // A bare 404 names no cause; a model id missing its vendor prefix is one we can prove.
      return prefixedModelFor(ctx.provider, ctx.model) ? "model_not_found" : "unknown";
    case 408:
      return "timeout";
    case 413:
      return "payload_too_large";
    case 422:
      return matchesAny(text, P.CONTEXT_OVERFLOW) ? "context_overflow" : "format_error";
    case 429:
      // Z.AI answers server-wide overload with 429: back off on the same key. An exhausted
      // balance (OpenAI's insufficient_quota) is billing; anything else a passing rate limit.
      if (matchesAny(text, P.OVERLOADED)) return "overloaded";
      if (matchesAny(text, P.BILLING)) return "billing";
      return "rate_limit";
    default:
      // Any other client error (405, 409, 410, 451, ...) fails the same way on every retry.
      return status >= 400 ? "format_error" : undefined;
  }
}
