/** Small HTTP helpers shared by the routes. */
import type { Context } from "hono";
import { ApiError } from "./errors.js";

export const SESSION_HEADER = "x-hermes-session-id";

export function sessionHeaders(sessionId: string): Record<string, string> {
  return { "X-Hermes-Session-Id": sessionId };
}

/** The request body as JSON; a 400 naming the problem when it is not JSON (or `{}` when optional and empty). */
export async function readJson(c: Context, optional = false): Promise<unknown> {
  const text = await c.req.text();
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
      throw new ApiError(400, `${name} must be a whole number`, { param: name });
    return Math.min(value, max);
  };
  return { limit: number("limit", defaultLimit, maxLimit), offset: number("offset", 0, Number.MAX_SAFE_INTEGER) };
}
