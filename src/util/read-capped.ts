/**
 * Reading an HTTP body whole, but never more than a cap: a declared length over it is refused
 * before a byte is read, and the count is kept while reading, so a body without a length (or
 * lying about it) is cut off as soon as it passes the cap instead of after it was buffered.
 */

export class BodyTooLarge extends Error {
  override name = "BodyTooLarge";
  constructor(
    readonly maxBytes: number,
    /** The length the server declared, when that is what gave it away. */
    readonly declared?: number,
  ) {
    super(declared === undefined ? `more than ${maxBytes} bytes` : `${declared} bytes, more than ${maxBytes}`);
  }
}

/** A Content-Length over `maxBytes`, as a number; undefined when absent or within the cap. */
export function declaredOver(contentLength: string | null | undefined, maxBytes: number): number | undefined {
  const declared = Number(contentLength ?? Number.NaN);
  return Number.isFinite(declared) && declared > maxBytes ? declared : undefined;
}

/** Reads `body` to the end; past `maxBytes` it calls `cancel` and throws BodyTooLarge. */
export async function readChunksCapped(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
  cancel: () => void,
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      cancel();
      throw new BodyTooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A `fetch` response's body, whole, at most `maxBytes` (BodyTooLarge otherwise, the body cancelled). */
export async function readResponseCapped(response: Response, maxBytes: number): Promise<Buffer> {
  const cancel = () => void response.body?.cancel().catch(() => undefined);
  const declared = declaredOver(response.headers.get("content-length"), maxBytes);
  if (declared !== undefined) {
    cancel();
    throw new BodyTooLarge(maxBytes, declared);
  }
  if (!response.body) return Buffer.alloc(0);
  return readChunksCapped(response.body as unknown as AsyncIterable<Uint8Array>, maxBytes, cancel);
}
