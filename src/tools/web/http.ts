/** JSON-over-HTTP for the web backends, with a timeout and error messages a model can act on. */

export const WEB_REQUEST_TIMEOUT_MS = 60_000;

export class WebRequestError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Join a base URL and a path without doubling or dropping the slash between them. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal: AbortSignal,
  service: string,
  timeoutMs = WEB_REQUEST_TIMEOUT_MS,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
  } catch (error) {
    if (signal.aborted) throw new WebRequestError(`${service} request was interrupted`);
    const reason = (error as Error).name === "TimeoutError" ? `timed out after ${timeoutMs / 1000}s` : String(error);
    throw new WebRequestError(`${service} request failed: ${reason}`);
  }
  const text = await response.text();
  if (!response.ok) {
    const hint =
      response.status === 401 || response.status === 403
        ? " (check the API key)"
        : response.status === 429
          ? " (rate limited or out of credits; try again later)"
          : "";
    throw new WebRequestError(
      `${service} answered HTTP ${response.status}${hint}: ${text.slice(0, 300)}`,
      response.status,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new WebRequestError(`${service} answered with something that is not JSON: ${text.slice(0, 200)}`);
  }
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string {
  return typeof value === "string" ? value : "";
}
