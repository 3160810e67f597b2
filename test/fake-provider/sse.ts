/** Server-sent event encoding. */

/** A `data:` line only (chat completions style). */
export function sseData(payload: unknown): string {
  return `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`;
}

/** A named event (Anthropic and Responses style). */
export function sseEvent(name: string, payload: unknown): string {
  return `event: ${name}\n${sseData(payload)}`;
}

/** The payload of a malformed chunk: looks like the start of JSON but never closes. */
export const BROKEN_JSON = '{"malformed": tru';
