/**
 * One X search through xAI's Responses API, with the retries and limits around it.
 *
 * The wire contract (xAI's documented agentic search tool, in the OpenAI Responses shape):
 *
 *   POST {XAI_BASE_URL, else https://api.x.ai/v1}/responses
 *   Authorization: Bearer $XAI_API_KEY
 *   {"model": x_search.model,
 *    "input": [{"role": "user", "content": <query>}],
 *    "tools": [{"type": "x_search", <filters>}],
 *    "store": false}
 *
 * Filters sent (each only when given): `allowed_x_handles` or `excluded_x_handles` (at most 10,
 * never both), `from_date` and `to_date` (YYYY-MM-DD), `enable_image_understanding` and
 * `enable_video_understanding` (true). Grok runs the searches on xAI's side and answers:
 *
 *   {"output": [..., {"type": "message", "role": "assistant",
 *                     "content": [{"type": "output_text", "text": "...",
 *                                  "annotations": [{"type": "url_citation", "url": "https://x.com/...",
 *                                                   "title", "start_index", "end_index"}]}]}],
 *    "citations": ["https://x.com/...", ...],   // every source the search looked at
 *    "usage": {...}}
 *
 * Other output items (reasoning, the search calls themselves) are skipped. Errors come as 4xx/5xx
 * with `{"code", "error"}` (or OpenAI's `{"error": {"message"}}`). Timeouts, connection failures,
 * 429 and 5xx are retried with backoff (a `retry-after` wins); anything else is final.
 */
import { backoffDelayMs, sleepWithSignal } from "../../util/backoff.js";
import { BodyTooLarge, readResponseCapped } from "../../util/read-capped.js";
import { redactSecrets } from "../../util/redact.js";
import type { XSearchFilters } from "./filters.js";

export const XAI_DEFAULT_BASE_URL = "https://api.x.ai/v1";
/** A reply larger than this is refused while it streams: an answer with citations is far smaller. */
export const MAX_REPLY_BYTES = 2 * 1024 * 1024;
/** At most this many cited URLs are returned. */
const MAX_CITATIONS = 50;

export interface XSearchReply {
  status: number;
  /** The `retry-after` header, when there is one. */
  retryAfter?: string | undefined;
  body: Buffer;
}

/**
 * One JSON POST, answering the status and the whole body (at most `maxBytes`, else BodyTooLarge).
 * The runtime passes one on the project's HTTP client (keep-alive, proxies); else `fetch` is used.
 */
export type XSearchHttp = (
  url: string,
  request: { headers: Record<string, string>; body: string; signal: AbortSignal; maxBytes: number },
) => Promise<XSearchReply>;

export interface XSearchRequest {
  query: string;
  filters: XSearchFilters;
  model: string;
  key: string;
  baseUrl: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  http: XSearchHttp;
  /** The tool call's signal: interrupting the turn stops the search at once. */
  signal: AbortSignal;
  /** The first retry's delay before jitter (later ones double). */
  retryBaseMs: number;
  maxReplyBytes: number;
}

export interface XSearchFound {
  answer: string;
  /** Cited URLs, those the answer cites first, without repeats. */
  citations: string[];
}

/** A failure whose message is written for the model and the user; it never holds the key. */
export class XSearchError extends Error {}

/** `fetch`, for callers that do not pass the runtime's client (a library user, a bare registry). */
export const fetchXSearchHttp: XSearchHttp = async (url, request) => {
  const response = await fetch(url, {
    method: "POST",
    headers: request.headers,
    body: request.body,
    signal: request.signal,
  });
  const body = await readResponseCapped(response, request.maxBytes);
  return { status: response.status, retryAfter: response.headers.get("retry-after") ?? undefined, body };
};

/** What xAI said, short, with the key and anything that looks like a secret taken out. */
function scrub(text: string, key: string): string {
  let out = text.replaceAll(/\s+/g, " ").trim().slice(0, 300);
  if (key) out = out.replaceAll(key, "[key]");
  return redactSecrets(out);
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The message in xAI's `{code, error}` or OpenAI's `{error: {message}}`, else the raw text. */
function saidIn(body: Buffer, key: string): string {
  const raw = body.toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return scrub(raw, key);
  }
  const top = record(parsed);
  const nested = record(top.error);
  const message = typeof top.error === "string" ? top.error : (nested.message ?? top.message ?? raw);
  const code = typeof top.code === "string" ? top.code : "";
  const text = String(message);
  return scrub(code && !text.includes(code) ? `${code}: ${text}` : text, key);
}

type Attempt =
  | { ok: true; body: Buffer }
  | { ok: false; final: true; message: string }
  | { ok: false; final: false; problem: string; advice: string; retryAfterMs?: number };

function refused(status: number, said: string): string {
  const reason = said ? `: ${said}` : "";
  if (status === 401) {
    return `xAI refused the API key (HTTP 401)${reason}. Check XAI_API_KEY in ~/.hermes/.env.`;
  }
  if (status === 403) {
    return `xAI refused this request for the key (HTTP 403)${reason}. Check that XAI_API_KEY's team may use x_search.model and X search.`;
  }
  if (status === 404)
    return `xAI does not know this model or address (HTTP 404)${reason}. Check x_search.model and XAI_BASE_URL.`;
  if (status === 400 || status === 422) {
    return `xAI rejected the request (HTTP ${status})${reason}. Check x_search.model and the filters.`;
  }
  return `xAI answered HTTP ${status}${reason}.`;
}

function retryAfterMs(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

function describeFailure(error: unknown, key: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = record(record(error).cause).code;
  return scrub(typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message, key);
}

async function attempt(request: XSearchRequest, url: string, body: string): Promise<Attempt> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = AbortSignal.any([request.signal, timeout]);
  let reply: XSearchReply;
  try {
    reply = await request.http(url, {
      headers: {
        authorization: `Bearer ${request.key}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body,
      signal,
      maxBytes: request.maxReplyBytes,
    });
  } catch (error) {
    if (request.signal.aborted) return { ok: false, final: true, message: "the X search was interrupted" };
    if (error instanceof BodyTooLarge) {
      return {
        ok: false,
        final: true,
        message: `xAI answered with more than ${error.maxBytes} bytes; it was not read`,
      };
    }
    if (timeout.aborted) {
      return {
        ok: false,
        final: false,
        problem: `no answer within ${request.timeoutMs / 1000} s`,
        advice: "Try again, or raise x_search.timeout_seconds.",
      };
    }
    return {
      ok: false,
      final: false,
      problem: `could not reach xAI: ${describeFailure(error, request.key)}`,
      advice: "Check the network (and XAI_BASE_URL if set), then try again.",
    };
  }
  if (reply.status >= 200 && reply.status < 300) return { ok: true, body: reply.body };
  const said = saidIn(reply.body, request.key);
  if (reply.status === 429 || reply.status >= 500) {
    const wait = retryAfterMs(reply.retryAfter);
    return {
      ok: false,
      final: false,
      problem: `HTTP ${reply.status}${said ? `: ${said}` : ""}`,
      advice:
        reply.status === 429
          ? "xAI is rate limiting this key or the account is out of credits: wait a minute and try again, or check the balance."
          : "A problem on xAI's side: try again later.",
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    };
  }
  return { ok: false, final: true, message: refused(reply.status, said) };
}

/** The answer text and cited URLs of a Responses reply. */
export function readReply(body: Buffer): XSearchFound {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    throw new XSearchError("xAI answered with something other than JSON; try again");
  }
  const top = record(parsed);
  const parts: string[] = [];
  const cited: string[] = [];
  for (const item of Array.isArray(top.output) ? top.output : []) {
    const output = record(item);
    if (output.type !== "message") continue;
    for (const piece of Array.isArray(output.content) ? output.content : []) {
      const content = record(piece);
      if ((content.type === "output_text" || content.type === "text") && typeof content.text === "string") {
        parts.push(content.text.trim());
      }
      for (const note of Array.isArray(content.annotations) ? content.annotations : []) {
        const annotation = record(note);
        if (annotation.type !== "url_citation") continue;
        const url = annotation.url ?? record(annotation.url_citation).url;
        if (typeof url === "string") cited.push(url);
      }
    }
  }
  let answer = parts.filter(Boolean).join("\n\n");
  if (!answer && typeof top.output_text === "string") answer = top.output_text.trim();
  if (!answer) {
    const status = typeof top.status === "string" ? ` (status ${top.status})` : "";
    throw new XSearchError(`xAI answered without any text${status}; try again or rephrase the query`);
  }
  const listed = Array.isArray(top.citations) ? top.citations : [];
  for (const entry of listed) {
    const url = typeof entry === "string" ? entry : record(entry).url;
    if (typeof url === "string") cited.push(url);
  }
  return { answer, citations: webUrls(cited) };
}

/** http(s) URLs only, each once, at most MAX_CITATIONS. */
function webUrls(urls: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const raw of urls) {
    const url = raw.trim();
    if (!/^https?:\/\//i.test(url) || seen.has(url)) continue;
    seen.add(url);
    if (seen.size >= MAX_CITATIONS) break;
  }
  return [...seen];
}

/** Runs the search, retrying what may pass; throws XSearchError with what to do next. */
export async function searchX(request: XSearchRequest): Promise<XSearchFound> {
  const url = `${request.baseUrl.replace(/\/+$/, "")}/responses`;
  const body = JSON.stringify({
    model: request.model,
    input: [{ role: "user", content: request.query }],
    tools: [{ type: "x_search", ...request.filters }],
    store: false,
  });
  const attempts = request.retries + 1;
  for (let number = 1; ; number++) {
    const outcome = await attempt(request, url, body);
    if (outcome.ok) return readReply(outcome.body);
    if (outcome.final) throw new XSearchError(outcome.message);
    if (number >= attempts) {
      const tries = attempts === 1 ? "1 attempt" : `${attempts} attempts`;
      throw new XSearchError(`X search failed after ${tries}, the last: ${outcome.problem}. ${outcome.advice}`);
    }
    const delay = backoffDelayMs(number, {
      baseMs: request.retryBaseMs,
      capMs: Math.max(request.retryBaseMs, 10_000),
      maxRetryAfterMs: 30_000,
      ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
    });
    try {
      await sleepWithSignal(delay, request.signal);
    } catch {
      throw new XSearchError("the X search was interrupted");
    }
  }
}
