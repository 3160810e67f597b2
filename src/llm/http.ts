/**
 * POST a JSON body and return the (usually streaming) response, turning every failure into an
 * LlmError: non-2xx statuses keep their status, parsed body and headers; network failures keep
 * their system error code; a slow start is a timeout; a cancelled signal is an abort.
 */
import { LlmError, llmErrorFromResponse } from "./errors.js";
import { type HttpResponse, hostOf, httpRequest } from "./http-client.js";
import { proxyForUrl } from "./proxy.js";
import { abortError, DEFAULT_FIRST_BYTE_TIMEOUT_MS, type ErrorContext, type StreamTimeouts } from "./watchdog.js";

export interface PostJsonOptions extends ErrorContext {
  headers?: Record<string, string> | undefined;
  signal: AbortSignal;
  timeouts?: StreamTimeouts | undefined;
  /** Environment to read proxy settings from (default `process.env`). */
  env?: Record<string, string | undefined> | undefined;
}

/** Drops unset fields: the error helper takes only defined ones. */
function errorWhere(context: ErrorContext): { provider?: string; model?: string } {
  const where: { provider?: string; model?: string } = {};
  if (context.provider) where.provider = context.provider;
  if (context.model) where.model = context.model;
  return where;
}

/**
 * Posts `body` as JSON. Resolves with a 2xx response whose body is still unread (the caller
 * streams it); rejects with an LlmError otherwise. The returned body stays tied to `signal`.
 */
export async function postJson(url: string, body: unknown, options: PostJsonOptions): Promise<HttpResponse> {
  const context: ErrorContext = { provider: options.provider, model: options.model };
  if (options.signal.aborted) throw abortError(context);
  const headersMs = options.timeouts?.headersMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS;
  const headersTimer = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    headersTimer.abort();
  }, headersMs);
  let response: HttpResponse;
  try {
    response = await httpRequest(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream, application/json",
        ...options.headers,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.any([options.signal, headersTimer.signal]),
      proxy: proxyForUrl(url, options.env ?? process.env),
      context,
    });
  } catch (error) {
    if (options.signal.aborted) throw abortError(context);
    if (timedOut) {
      throw new LlmError(`No response from ${hostOf(url)} within ${formatSeconds(headersMs)}.`, {
        kind: "timeout",
        cause: error,
        url,
        ...context,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (response.status < 200 || response.status > 299) {
    throw await llmErrorFromResponse(response, { ...errorWhere(context), url });
  }
  if (/^text\/html\b/i.test(response.headers["content-type"] ?? "")) {
    response.cancel();
    throw new LlmError(
      `${url} answered with a web page (HTTP ${response.status}, text/html), not the model API: the base URL probably points at a website or a login page.`,
      { kind: "malformed", status: response.status, code: "NOT_AN_API", url, ...context },
    );
  }
  return response;
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}
