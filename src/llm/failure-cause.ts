/**
 * What went wrong on the wire, in words a user can act on, and whether trying the same request
 * again can help. The error classifier (errors.ts) decides recovery in general terms, as the
 * original does; this looks at what only our transport knows (the URL tried, the system error
 * code, the content type) to tell apart failures that the classifier lumps together as
 * "timeout" or "unknown", and to stop retries that cannot succeed.
 */
import { LlmError } from "./errors.js";
import { hostOf } from "./http-client.js";
import { errorCode } from "./watchdog.js";

export type FailureCause =
  | "credentials"
  | "invalid_url"
  | "dns"
  | "refused"
  | "endpoint_not_found"
  | "not_an_api"
  | "dropped"
  | "no_response";

export interface FailureDiagnosis {
  cause: FailureCause;
  /** One sentence: what happened and what to do. */
  words: string;
  /** Whether the same request, sent again in a few seconds, could succeed. */
  retryable: boolean;
}

/** An LlmError code for credentials a transport found missing or refused before any request. */
export const CREDENTIALS_CODE = "PROVIDER_CREDENTIALS";
const DNS_CODES = new Set(["ENOTFOUND", "EAI_NONAME", "EAI_NODATA"]);
const URL_CODES = new Set(["ERR_INVALID_URL", "ERR_INVALID_PROTOCOL"]);

/** The base URL a user configured, from the endpoint URL that failed. */
function baseOf(url: string): string {
  return url.replace(/\/(chat\/completions|responses|messages)$/, "");
}

/** A 404 that names no model: the path itself is wrong, not the model. */
function genericNotFound(error: LlmError): boolean {
  const text = JSON.stringify(error.body ?? "").toLowerCase();
  return !/model|deployment|engine/.test(text);
}

export function diagnoseFailure(error: unknown): FailureDiagnosis | undefined {
  if (!(error instanceof LlmError)) return undefined;
  const code = error.code ?? errorCode(error.cause);
  // A transport that signs requests itself (Vertex AI) says exactly what is missing or refused.
  if (code === CREDENTIALS_CODE) return { cause: "credentials", words: error.message, retryable: false };
  const host = error.url ? hostOf(error.url) : "the endpoint";
  if (error.kind === "network" && code && URL_CODES.has(code)) {
    return {
      cause: "invalid_url",
      words: `"${error.url}" is not a usable http(s) URL: fix the base URL (--base-url or model.base_url), e.g. http://127.0.0.1:11434/v1.`,
      retryable: false,
    };
  }
  if (error.kind === "network" && code && DNS_CODES.has(code)) {
    return {
      cause: "dns",
      words: `the host name ${host} could not be resolved (DNS lookup failed): check the base URL's spelling and that this machine can reach the network.`,
      retryable: false,
    };
  }
  if (error.kind === "network" && code === "ECONNREFUSED") {
    return {
      cause: "refused",
      words: `nothing is listening at ${host} (connection refused): start the server, or check --base-url / model.base_url.`,
      retryable: true,
    };
  }
  if (error.kind === "http" && error.status === 404 && error.url && genericNotFound(error)) {
    return {
      cause: "endpoint_not_found",
      words: `${error.url} answered 404 Not Found: the base URL is probably wrong (${baseOf(error.url)}); OpenAI-compatible servers usually need it to end in /v1.`,
      retryable: false,
    };
  }
  if (error.kind === "malformed" && error.code === "NOT_AN_API") {
    return { cause: "not_an_api", words: error.message, retryable: false };
  }
  if (error.kind === "disconnect") {
    return {
      cause: "dropped",
      words: `the connection to ${host} dropped in the middle of the reply: the network or the server cut it off.`,
      retryable: true,
    };
  }
  if (error.kind === "timeout" && error.url) {
    return {
      cause: "no_response",
      words: `${host} accepted the connection but sent nothing back in time (${error.message}): the server is overloaded or stuck; agent.first_byte_timeout sets how long to wait.`,
      retryable: true,
    };
  }
  return undefined;
}
