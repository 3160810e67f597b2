/**
 * Wording providers use for each failure. Matched against lower-cased text; keep each list to
 * phrases that are specific enough not to fire on unrelated errors.
 */

/**
 * Built on first use: a run whose model calls all succeed never classifies an error, and
 * creating some 150 regular expressions costs every start a measurable share of its time.
 */
function build() {
  return {
    /** Anthropic refuses reasoning blocks that were re-signed or edited; all need "thinking" too. */
    THINKING_SIGNATURE: [/signature/, /cannot be modified/, /must remain as they were/],
    /** A 429 that asks for extra usage to send a long-context request (both parts must appear). */
    LONG_CONTEXT_TIER: [/extra usage[\s\S]*long[- ]context|long[- ]context[\s\S]*extra usage/],
    /** The extra-usage balance itself ran out: a spend problem, not a context one. */
    EXTRA_USAGE_SPENT: [/out of extra usage/],
    /** An OAuth subscription that may not send the one-million-token context beta. */
    LONG_CONTEXT_BETA: [/long context beta[\s\S]*not yet available/],
    LLAMA_CPP_GRAMMAR: [
      /failed to parse grammar/,
      /error parsing grammar/,
      /json-schema-to-grammar/,
      /unable to generate parser[\s\S]*template/,
      /grammar.*(?:pattern|regex)|(?:pattern|regex).*grammar/,
      /json[- ]schema.*(?:not supported|unsupported).*pattern/,
    ],
    /** Providers that accept only text in tool results, rejecting a list of content parts. */
    MULTIMODAL_TOOL_CONTENT: [
      /text is not set/,
      /tool (?:message )?content must be a string/,
      /tool message must be a string/,
      /expected string, got (?:list|array)/,
      /tool_call\.content must be string/,
    ],
    /** A replayed encrypted reasoning item the Responses API could not verify. */
    INVALID_ENCRYPTED_CONTENT: [/invalid_encrypted_content/, /encrypted content for item[\s\S]*could not be verified/],
    /** A route that cannot run with reasoning switched off and refuses the request that tried. */
    REASONING_MANDATORY: [/reasoning is mandatory/],
    /** A chat template found no user turn to answer (Qwen on vLLM); local engines wrap it as a parser error. */
    NO_USER_QUERY: [/no user query found/],
    /** The transcript itself is malformed: tiny inputs fail this way too, so it is never about size. */
    INVALID_MESSAGE_BODY: [
      /must have non-empty content/,
      /messages must have non-empty/,
      /invalid_request_body/,
      /text content blocks must be non-empty/,
      /content field is required/,
      /messages: at least one message is required/,
      /no user query found/,
    ],
    /** Parameter errors: deterministic even when a gateway reports them as a 5xx. */
    REQUEST_VALIDATION: [/unknown[ _]parameter/, /unsupported[ _]parameter/, /unrecognized request argument/],
    /** xAI's answer when the account's Grok plan does not cover the request. */
    GROK_ENTITLEMENT: [/do not have an active grok subscription/, /out of available resources[\s\S]*grok/],
    IMAGE_TOO_LARGE: [
      /image.*(?:too large|too big|exceeds|maximum (?:allowed )?size|dimensions? (?:exceed|too))/,
      /(?:too large|exceeds).*image/,
      /image_too_large/,
    ],
    PROVIDER_POLICY: [
      /no endpoints available matching your (?:guardrail|data policy)/,
      /guardrail restrictions and data policy/,
      /no endpoints found matching your data policy/,
    ],
    /** Verbatim safety-refusal phrases, specific enough to trust under any status. */
    CONTENT_POLICY_STRICT: [
      /content_filter/,
      /responsibleaipolicyviolation/,
      /flagged for possible cybersecurity risk/,
      /trusted access for cyber/,
      /violates (?:our|openai's) usage policies/,
      /your request was flagged by/,
      /prompt was flagged by our safety/,
      /responses cannot be generated due to safety/,
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
      /max_model_len/,
      /maximum model length/,
      /(?:input|prompt) length (?:of )?\d+ exceeds/,
      /maximum allowed input length/,
      /max input token/,
      /maximum number of input tokens/,
      /exceeds the limit/,
      /slot context/,
      /n_ctx_slot/,
      /truncating input/,
      /tokens in request more than max tokens/,
      /超过最大长度/,
      /上下文长度/,
    ],
    /** Size rejections named only in the text (a proxy's message, a status-less SDK error). */
    PAYLOAD_TOO_LARGE: [/payload too large/, /request entity too large/, /error code: 413\b/, /request_too_large/],
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
      /available in/,
      /requests remaining/,
      /periodic/,
      /\bwindow\b/,
      /per (?:minute|second)/,
    ],
    /** What a 429 says when it is a spent allowance rather than a passing limit. */
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
      /credits (?:have been )?exhausted/,
      /no usable credits/,
      /(?:run )?out of funds/,
      /balance_depleted/,
      /not available on the free tier/,
    ],
    RATE_LIMIT: [
      /rate[ _-]?limit/,
      /too many requests/,
      /rate increased too quickly/,
      /slow down/,
      /throttl/,
      /requests per (?:minute|second|day)/,
      /resource[ _-]?exhausted/,
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
      /access denied/,
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
      /unsupported model/,
    ],
    SERVER_ERROR: [/internal server error/, /bad gateway/, /upstream (?:error|connect)/, /server error/],
    /** Transient TLS failures: retry as a timeout, never compress. */
    SSL_TRANSIENT: [
      /\bssl\b/,
      /\btls\b/,
      /bad[ _]record[ _]mac/,
      // OpenSSL 3 joins its tokens with underscores: ERR_SSL_SSL/TLS_ALERT_BAD_RECORD_MAC.
      /(?:ssl|tls)[ _]alert/,
      /(?:tlsv1|sslv3)[ _]alert/,
      /\[ssl:/,
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
    /**
     * A connection that was never made (refused, unroutable, unresolvable name). Unlike a dropped
     * stream it cannot be an oversized prompt, so it is a timeout whatever the session's size.
     */
    CONNECT_FAILURE: [
      /connection refused/,
      /econnrefused/,
      /no route to host/,
      /network (?:is )?unreachable/,
      /name or service not known/,
      /temporary failure in name resolution/,
      /nodename nor servname provided/,
      /getaddrinfo (?:failed|enotfound)/,
      /eai_again/,
      /fetch failed/,
      /failed to fetch/,
      /upstream connect error/,
    ],
    /**
     * A stale-call breaker giving up on a provider that stopped answering. It trips before any
     * request goes out, so retrying the same route only trips it again.
     */
    STALE_BREAKER: /^(?=[\s\S]*consecutive stale attempts)(?=[\s\S]*aborting this call)/,
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
