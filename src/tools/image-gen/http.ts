/**
 * The HTTP side of the image providers: one JSON POST answered as parsed
 * JSON, and the provider's refusals turned into messages that say what to do (never with the key).
 */

import { BodyTooLarge, readResponseCapped } from "../../util/read-capped.js";
import { redactSecrets } from "../../util/redact.js";
import { type HttpAnswer, ImageGenError, type ImageHttp, MAX_REPLY_BYTES } from "./types.js";

/** `fetch`, for callers that do not pass the runtime's client (a library user, a bare registry). */
export const fetchImageHttp: ImageHttp = async (url, request) => {
  const response = await fetch(url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
  });
  const body = await readResponseCapped(response, request.maxBytes);
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", body };
};

/** What the service said, short, with the key and anything that looks like a secret taken out. */
export function scrub(text: string, key: string): string {
  let out = text.replaceAll(/\s+/g, " ").trim().slice(0, 300);
  if (key) out = out.replaceAll(key, "[key]");
  return redactSecrets(out);
}

interface Said {
  message: string;
  /** OpenAI's `error.code`, or the `type` of fal's first error detail. */
  code: string;
}

/** The message and code in OpenAI's `{error: {message, code}}` or fal's `{detail: [{msg, type}] | string}`. */
function whatTheySaid(body: Buffer): Said {
  const raw = body.toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { message: raw, code: "" };
  }
  const record = (value: unknown): Record<string, unknown> =>
    value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const top = record(parsed);
  const error = top.error;
  if (typeof error === "string") return { message: error, code: "" };
  if (error && typeof error === "object") {
    const e = record(error);
    return { message: String(e.message ?? raw), code: String(e.code ?? e.type ?? "") };
  }
  const detail = top.detail;
  if (typeof detail === "string") return { message: detail, code: "" };
  if (Array.isArray(detail) && detail.length > 0) {
    const first = record(detail[0]);
    const messages = detail.map((d) => String(record(d).msg ?? "")).filter(Boolean);
    return { message: messages.join("; ") || raw, code: String(first.type ?? "") };
  }
  if (typeof top.message === "string") return { message: top.message, code: "" };
  return { message: raw, code: "" };
}

const POLICY_CODES = new Set(["content_policy_violation", "moderation_blocked"]);

/** One line for a refused request: what happened, and what to do about it. */
export function refusal(service: string, status: number, body: Buffer, key: string, keyName: string): string {
  const said = whatTheySaid(body);
  const text = scrub(said.message, key);
  const reason = text ? `: ${text}` : "";
  if (POLICY_CODES.has(said.code)) {
    return `${service} refused the prompt under its content policy${reason}. Rephrase it, leaving out what may have been flagged, and try again.`;
  }
  if (status === 401 || status === 403) {
    return `${service} refused the API key (HTTP ${status})${reason}. Check ${keyName} in ~/.hermes/.env.`;
  }
  if (status === 429) {
    return `${service} is rate limiting this key or the account is out of credits (HTTP 429)${reason}. Wait a minute and try again, or check the account's balance.`;
  }
  if (status >= 500) {
    return `${service} had a problem on its side (HTTP ${status})${reason}. Try again later.`;
  }
  if (status === 404) {
    return `${service} does not know this model or address (HTTP 404)${reason}. Check image_gen.model.`;
  }
  return `${service} rejected the request (HTTP ${status})${reason}.`;
}

/** Explains a request that got no answer (unreachable, interrupted, too large). */
function unanswered(service: string, error: unknown, signal: AbortSignal, key: string): ImageGenError {
  if (signal.aborted) return new ImageGenError(`${service} did not answer in time or the call was interrupted`);
  if (error instanceof BodyTooLarge) {
    return new ImageGenError(`${service} answered with more than ${error.maxBytes} bytes; nothing was saved`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ImageGenError(`could not reach ${service}: ${scrub(message, key)}`);
}

/** POSTs `body` as JSON and answers the parsed JSON reply; any failure is an ImageGenError. */
export async function postJson(
  http: ImageHttp,
  service: string,
  url: string,
  init: { headers: Record<string, string>; body: unknown; key: string; keyName: string; signal: AbortSignal },
): Promise<unknown> {
  let answer: HttpAnswer;
  try {
    answer = await http(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...init.headers },
      body: JSON.stringify(init.body),
      signal: init.signal,
      maxBytes: MAX_REPLY_BYTES,
    });
  } catch (error) {
    throw unanswered(service, error, init.signal, init.key);
  }
  if (answer.status >= 400)
    throw new ImageGenError(refusal(service, answer.status, answer.body, init.key, init.keyName));
  try {
    return JSON.parse(answer.body.toString("utf8"));
  } catch {
    throw new ImageGenError(`${service} answered HTTP ${answer.status} with something other than JSON`);
  }
}

/** Join a base URL and a path without doubling or dropping the slash between them. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
