/** Small HTTP helpers shared by the routes. */
import type { IncomingMessage } from "node:http";
import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import { ApiError } from "./errors.js";

/** Set by the app from `gateway.api_server.max_body_bytes`. */
export const BODY_LIMIT_KEY = "maxBodyBytes";

function tooLarge(limit: number): ApiError {
  return new ApiError(413, `the request body is larger than ${limit} bytes`, { code: "request_too_large" });
}

/**
 * The request body as text, read straight from Node's request with a size cap: a declared
 * length over the cap is refused before reading, and a chunked body is cut off at the cap.
 */
export async function readBodyText(c: Context): Promise<string> {
  const limit = c.get(BODY_LIMIT_KEY) as number;
  const incoming = (c.env as HttpBindings | undefined)?.incoming as IncomingMessage | undefined;
  if (!incoming) {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > limit) throw tooLarge(limit);
    return text;
  }
  const declared = Number(incoming.headers["content-length"] ?? Number.NaN);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export const SESSION_HEADER = "x-hermes-session-id";

export function sessionHeaders(sessionId: string): Record<string, string> {
  return { "X-Hermes-Session-Id": sessionId };
}

/** The request body as JSON; a 400 naming the problem when it is not JSON (or `{}` when optional and empty). */
export async function readJson(c: Context, optional = false): Promise<unknown> {
  const text = await readBodyText(c);
  if (!text.trim()) {
    if (optional) return {};
    throw new ApiError(400, "the request body is empty; send a JSON object");
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, `the request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** A JSON object body (or an empty one when no body was sent). */
export async function readJsonObject(c: Context, optional = false): Promise<Record<string, unknown>> {
  const body = await readJson(c, optional);
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new ApiError(400, "the request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/** `?limit=` and `?offset=` as bounded whole numbers. */
export function paging(c: Context, defaultLimit = 20, maxLimit = 100): { limit: number; offset: number } {
  const number = (name: string, fallback: number, max: number) => {
    const raw = c.req.query(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0)
      throw new ApiError(400, `${name} must be a whole number, 0 or more`, { param: name });
    return Math.min(value, max);
  };
  return { limit: number("limit", defaultLimit, maxLimit), offset: number("offset", 0, Number.MAX_SAFE_INTEGER) };
}
