/**
 * Request bodies as the Bot API accepts them: JSON, form-encoded, a query string, or
 * multipart/form-data whose file parts are referenced from fields as `attach://<name>`.
 */
import type { IncomingMessage } from "node:http";

export interface UploadedFile {
  filename: string;
  bytes: Buffer;
}

export interface ParsedBody {
  params: Record<string, unknown>;
  files: Record<string, UploadedFile>;
}

export async function readRequest(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A form field's value: JSON where it is JSON (numbers, objects), the string otherwise. */
function fieldValue(raw: string): unknown {
  if (/^[[{]/.test(raw) || /^-?\d+$/.test(raw) || raw === "true" || raw === "false") {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

function parseMultipart(body: Buffer, boundary: string): ParsedBody {
  const params: Record<string, unknown> = {};
  const files: Record<string, UploadedFile> = {};
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    // The part runs from after the delimiter's line break to before the next one's.
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf("\r\n\r\n");
    const head = part.subarray(0, split).toString("utf8");
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    const filename = /filename="?([^";\r\n]*)"?/i.exec(head)?.[1];
    if (name !== undefined) {
      if (filename !== undefined) files[name] = { filename, bytes: Buffer.from(content) };
      else params[name] = fieldValue(content.toString("utf8"));
    }
    at = next;
  }
  return { params, files };
}

export function parseBody(contentType: string | undefined, body: Buffer, query: URLSearchParams): ParsedBody {
  const params: Record<string, unknown> = {};
  for (const [key, value] of query) params[key] = fieldValue(value);
  const type = contentType ?? "";
  if (type.startsWith("multipart/form-data")) {
    const boundary = /boundary=("?)([^";]+)\1/.exec(type)?.[2];
    if (!boundary) throw new Error("multipart body without a boundary");
    const parsed = parseMultipart(body, boundary);
    return { params: { ...params, ...parsed.params }, files: parsed.files };
  }
  if (type.startsWith("application/x-www-form-urlencoded")) {
    for (const [key, value] of new URLSearchParams(body.toString("utf8"))) params[key] = fieldValue(value);
    return { params, files: {} };
  }
  const text = body.toString("utf8").trim();
  if (text) Object.assign(params, JSON.parse(text) as Record<string, unknown>);
  return { params, files: {} };
}
