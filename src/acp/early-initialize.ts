/**
 * Answering `initialize` before the ACP SDK loads. Importing the SDK (and the zod schemas it
 * brings) takes longer than the rest of the agent's start, and an editor waits for that answer
 * before it shows the agent as ready. The answer never depends on anything the SDK computes, so
 * the first frame is read here and, when it is a well-formed `initialize`, answered at once.
 * Every byte read is then put back on stdin: the SDK still sees and handles that `initialize`
 * (its connection state needs it), and its own answer, identical, is dropped on the way out.
 */
import { initializeResponse } from "./capabilities.js";

export interface EarlyAnswer {
  /** The request id answered; the SDK's response to it is not sent again. */
  id: string | number;
}

type Stdin = NodeJS.ReadableStream & { unshift(chunk: Buffer): void };

/** The first line of stdin (bytes), with everything read so far put back for the next reader. */
function peekFirstLine(stdin: Stdin): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const finish = (line: Buffer | undefined) => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.pause();
      const read = Buffer.concat(chunks);
      if (read.length > 0) stdin.unshift(read);
      resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      chunks.push(bytes);
      const all = Buffer.concat(chunks);
      const newline = all.indexOf(0x0a);
      if (newline >= 0) finish(all.subarray(0, newline));
    };
    const onEnd = () => finish(undefined);
    stdin.on("data", onData);
    stdin.once("end", onEnd);
  });
}

/** The id of a well-formed `initialize` request, or undefined for anything else. */
export function initializeRequestId(line: string): string | number | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof message !== "object" || message === null) return undefined;
  const { jsonrpc, method, id, params } = message as Record<string, unknown>;
  if (jsonrpc !== "2.0" || method !== "initialize") return undefined;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  const version = (params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  return typeof version === "number" && Number.isInteger(version) && version >= 0 ? id : undefined;
}

export async function answerInitializeEarly(
  stdin: Stdin,
  writeFrame: (line: string) => void,
): Promise<EarlyAnswer | undefined> {
  const line = await peekFirstLine(stdin);
  const id = line ? initializeRequestId(line.toString("utf8")) : undefined;
  if (id === undefined) return undefined;
  writeFrame(`${JSON.stringify({ jsonrpc: "2.0", id, result: initializeResponse() })}\n`);
  return { id };
}

/**
 * Passes frames through, except the first successful response to `answered.id` (already sent).
 * Frames are whole lines as the SDK writes them; only lines up to that response are parsed.
 */
export function dropRepeatedAnswer(answered: EarlyAnswer | undefined): (chunk: Uint8Array) => Uint8Array | undefined {
  let pending = answered !== undefined;
  const decoder = new TextDecoder();
  return (chunk) => {
    if (!pending) return chunk;
    const text = decoder.decode(chunk);
    const kept = text.split("\n").filter((frame) => {
      if (!pending || !frame) return true;
      try {
        const message = JSON.parse(frame) as { id?: unknown; result?: unknown };
        if (message.id === answered!.id && "result" in message) {
          pending = false;
          return false;
        }
      } catch {
        // Not ours to judge: pass it on.
      }
      return true;
    });
    const rest = kept.join("\n");
    return rest.trim() ? new TextEncoder().encode(rest) : undefined;
  };
}
