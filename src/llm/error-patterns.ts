/**
 * Wording providers use for each failure. Matched against lower-cased text; keep each list to
 * phrases that are specific enough not to fire on unrelated errors.
 */

/**
 * Built on first use: a run whose model calls all succeed never classifies an error, and
 * creating some 130 regular expressions costs every start a measurable share of its time.
 */
function build() {
  return {
    THINKING_SIGNATURE: [/signature.*thinking|thinking.*signature/],
    LONG_CONTEXT_TIER: [/extra usage/, /long context/, /long-context/],
    LLAMA_CPP_GRAMMAR: [
      /failed to parse grammar/,
      /grammar.*(?:pattern|regex)|(?:pattern|regex).*grammar/,
      /json[- ]schema.*(?:not supported|unsupported).*pattern/,
    ],
    IMAGE_TOO_LARGE: [
      /image.*(?:too large|too big|exceeds|maximum (?:allowed )?size|dimensions? (?:exceed|too))/,
      /(?:too large|exceeds).*image/,
    ],
    PROVIDER_POLICY: [
      /no endpoints available matching your (?:guardrail|data policy)/,
      /guardrail restrictions and data policy/,
      /no endpoints found matching your data policy/,
    ],
    CONTENT_POLICY: [
      /flagged (?:for|by|as)/,
      /safety system/,
      /content (?:management )?policy/,
      /usage polic(?:y|ies)/,
      /content_policy_violation|content_filter/,
      /responsible ai/,
      /moderation/,
      /potentially (?:harmful|violating)/,
    ],
    CONTEXT_OVERFLOW: [
      /context[ _]length/,
      /context[ _]window/,
      /context size/,
      /maximum context/,
      /prompt is too long/,
      /prompt too long/,
      /input is too long/,
      /too many (?:input )?tokens/,
      /exceeds? the (?:model'?s? )?(?:maximum )?context/,
      /reduce the length of the (?:messages|input|prompt)/,
      /(?:input|prompt) (?:length|tokens?) (?:and `?max_tokens`? )?exceeds?/,
      /maximum (?:number of )?tokens? (?:allowed )?(?:is|exceeded)/,
      /token limit (?:exceeded|reached)/,
      /string too long/,
    ],
    /** Spend/usage caps: billing unless paired with a transient signal. */
    USAGE_LIMIT: [
      /usage limit/,
      /key limit/,
      /spend(?:ing)? limit/,
      /quota/,
      /(?:daily|monthly|weekly) limit/,
      /limit (?:exceeded|reached)/,
    ],
    TRANSIENT_SIGNAL: [
      /try again/,
      /retry/,
      /\bresets?\b/,
      /\bwait\b/,
      /\blater\b/,
      /\bin \d+(?:\.\d+)? ?(?:ms|s|sec|seconds?|m|min|minutes?|h|hours?)\b/,
      /temporar/,
    ],
    BILLING: [
      /insufficient (?:credits?|balance|funds|quota)/,
      /insufficient_quota/,
      /out of credits/,
      /credit balance/,
      /not enough credits/,
      /payment required/,
      /billing/,
      /exceeded your current quota/,
      /free[- ]tier/,
      /upgrade (?:to|your plan)/,
      /(?:add|purchase|buy) (?:more )?credits/,
      /plan (?:limit|does not include)/,
      /subscription (?:has )?(?:expired|required|inactive)/,
    ],
    RATE_LIMIT: [
      /rate[ _-]?limit/,
      /too many requests/,
      /rate increased too quickly/,
      /slow down/,
      /throttl/,
      /requests per (?:minute|second|day)/,
      /resource[ _]exhausted/,
    ],
    OVERLOADED: [/overloaded/, /server is busy/, /over capacity/, /at capacity/, /service unavailable/],
    AUTH: [
      /invalid[ _-]api[ _-]key/,
      /incorrect api key/,
      /invalid x-api-key/,
      /api key (?:not valid|is invalid|expired|revoked)/,
      /no api key/,
      /missing (?:api key|authentication|authorization)/,
      /unauthori[sz]ed/,
      /authentication (?:failed|error|required)/,
      /invalid (?:bearer |access |auth(?:entication)? )?token/,
      /token (?:has )?(?:expired|been revoked|invalidated)/,
      /permission denied|forbidden/,
    ],
    MODEL_NOT_FOUND: [
      /model[^.\n]{0,80}not found/,
      /not a valid model/,
      /no such model/,
      /unknown model/,
      /invalid model/,
      /model[^.\n]{0,80}does not exist/,
      /model[^.\n]{0,80}(?:is not supported|not available|unavailable)/,
      /model_not_found/,
    ],
    FORMAT: [
      /invalid_request_error/,
      /unsupported (?:parameter|value|argument)/,
      /invalid (?:value|parameter|type|argument|schema|request)/,
      /unrecognized (?:request )?argument/,
      /(?:is )?required (?:parameter|field|property)|missing required/,
      /must be (?:a|an|between|one of|less|greater|at)/,
      /does not support/,
      /extra (?:inputs|fields) (?:are )?not permitted/,
      /malformed/,
      /bad request/,
    ],
    SERVER_ERROR: [/internal server error/, /bad gateway/, /upstream (?:error|connect)/, /server error/],
    /** Transient TLS failures: retry as a timeout, never compress. */
    SSL_TRANSIENT: [
      /\bssl\b/,
      /\btls\b/,
      /bad record mac/,
      /decryption failed/,
      /wrong version number/,
      /eproto/,
      /certificate.*(?:verify|expired)/,
    ],
    DISCONNECT: [
      /server disconnected/,
      /remote ?protocol ?error/,
      /peer closed connection/,
      /connection (?:was )?(?:closed|reset|terminated|aborted)/,
      /incomplete chunked read/,
      /premature close/,
      /other side closed/,
      /socket hang up/,
      /unexpected eof|eof occurred/,
      /terminated/,
    ],
    DISCONNECT_NAMES: /remoteprotocolerror|serverdisconnectederror|incompleteread|chunkedencodingerror/i,
    TIMEOUT_TEXT: [
      /timed out/,
      /timeout/,
      /deadline exceeded/,
      /fetch failed/,
      /network error/,
      /connect(?:ion)? (?:error|refused|failed)/,
    ],
    TIMEOUT_NAMES:
      /timeout|connecterror|connectionerror|apiconnectionerror|networkerror|fetcherror|readerror|socketerror/i,
  };
}

export type ErrorPatterns = ReturnType<typeof build>;

let built: ErrorPatterns | undefined;

export function errorPatterns(): ErrorPatterns {
  built ??= build();
  return built;
}

export function matchesAny(text: string, patterns: RegExp[]): boolean {
  return patterns.some((pattern) => pattern.test(text));
}
