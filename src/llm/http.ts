/**
 * POST a JSON body and return the (usually streaming) response, turning every failure into an
 * LlmError: non-2xx statuses keep their status, parsed body and headers; network failures keep
 * their system error code; a slow start is a timeout; a cancelled signal is an abort.
 */
import { LlmError, llmErrorFromResponse } from "./errors.js";
import { fetchViaProxy, proxyForUrl } from "./proxy.js";
import { abortError, DEFAULT_READ_TIMEOUT_MS, type ErrorContext, errorCode, type StreamTimeouts } from "./watchdog.js";

export interface PostJsonOptions extends ErrorContext {
  headers?: Record<string, string> | undefined;
  signal: AbortSignal;
  timeouts?: StreamTimeouts | undefined;
  /** Environment to read proxy settings from (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** Drops unset fields: the error helper takes only defined ones. */
function errorWhere(context: ErrorContext): { provider?: string; model?: string } {
  const where: { provider?: string; model?: string } = {};
  if (context.provider) where.provider = context.provider;
  if (context.model) where.model = context.model;
  return where;
}

function networkError(error: unknown, url: string, context: ErrorContext): LlmError {
  const code = errorCode(error);
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  })();
  const fields: ConstructorParameters<typeof LlmError>[1] = { kind: "network", cause: error, ...context };
  if (code) fields.code = code;
  return new LlmError(`Could not reach ${host}${code ? ` (${code})` : ""}.`, fields);
}

/**
 * Posts `body` as JSON. Resolves with a 2xx response whose body is still unread (the caller
 * streams it); rejects with an LlmError otherwise. The returned body stays tied to `signal`.
 */
export async function postJson(url: string, body: unknown, options: PostJsonOptions): Promise<Response> {
  const context: ErrorContext = { provider: options.provider, model: options.model };
  if (options.signal.aborted) throw abortError(context);
  const headersMs = options.timeouts?.headersMs ?? options.timeouts?.readMs ?? DEFAULT_READ_TIMEOUT_MS;
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal.reason);
  options.signal.addEventListener("abort", onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, headersMs);
  const headers = {
    "content-type": "application/json",
    accept: "text/event-stream, application/json",
    ...options.headers,
  };
  const payload = JSON.stringify(body);
  const proxy = proxyForUrl(url, options.env ?? process.env);
  let response: Response;
  try {
    response = proxy
      ? await fetchViaProxy(url, { method: "POST", headers, body: payload, signal: controller.signal }, proxy)
      : await fetch(url, { method: "POST", headers, body: payload, signal: controller.signal });
  } catch (error) {
    options.signal.removeEventListener("abort", onAbort);
    if (options.signal.aborted) throw abortError(context);
    if (timedOut) {
      throw new LlmError(`No response from the provider within ${Math.round(headersMs / 1000)} s.`, {
        kind: "timeout",
        cause: error,
        ...context,
      });
    }
    throw networkError(error, url, context);
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) {
    const error = await llmErrorFromResponse(response, errorWhere(context));
    options.signal.removeEventListener("abort", onAbort);
    throw error;
  }
  return response;
}
