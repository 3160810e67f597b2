/**
 * Files in and out of Matrix. A file a user sends is an `mxc://server/media-id` address,
 * fetched with the bot's token from the authenticated media API
 * (`GET /_matrix/client/v1/media/download/{server}/{media-id}`) into `$HERMES_HOME/cache/matrix/`;
 * one over 50 MiB, or over `gateway.max_inbound_media_bytes` when that is smaller, is refused by
 * its declared size, or while it streams in. Files the agent sends are uploaded with
 * `POST /_matrix/media/v3/upload` and sent as an m.image or m.file message naming the
 * `content_uri` the homeserver returned.
 */
import { openAsBlob, statSync, writeFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { attachmentsDir, safeFileName } from "../../attachments.js";
import type { Attachment } from "../../types.js";
import { gatewayCapPhrase, type MediaCap, mediaCap, readCapped } from "../capped-read.js";
import type { MatrixFile } from "./inbound.js";
import type { MatrixRest } from "./rest.js";

/** Larger files are named in the message but not downloaded. */
export const MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024;

export interface DownloadOptions {
  home: string;
  /** `gateway.max_inbound_media_bytes` (0 or unset: no ceiling beyond MAX_DOWNLOAD_BYTES). */
  maxInboundMediaBytes?: number;
  /** MATRIX_MAX_MEDIA_BYTES: the platform's own ceiling instead of MAX_DOWNLOAD_BYTES. */
  maxMediaBytes?: number;
  timeoutMs: number;
}

/** `mxc://server/media-id`, with a server name and media id that are safe in a URL path. */
const MXC = /^mxc:\/\/([A-Za-z0-9.-]+(?::\d{1,5})?|\[[0-9A-Fa-f:.]+\](?::\d{1,5})?)\/([A-Za-z0-9_-]+)$/;

export function mediaPath(mxc: string): string {
  const match = MXC.exec(mxc);
  if (!match) throw new Error(`"${mxc.slice(0, 80)}" is not an mxc:// address`);
  return `/_matrix/client/v1/media/download/${encodeURIComponent(match[1] as string)}/${match[2]}`;
}

function overCap(cap: MediaCap, fromEnv: boolean): string {
  if (cap.fromGateway) return `it is over ${gatewayCapPhrase(cap)}`;
  return fromEnv ? `it is over MATRIX_MAX_MEDIA_BYTES (${cap.bytes} bytes)` : `it is over ${cap.bytes} bytes`;
}

export async function downloadFile(
  rest: MatrixRest,
  file: MatrixFile,
  eventId: string,
  options: DownloadOptions,
): Promise<Attachment> {
  const path = mediaPath(file.mxc);
  const cap = mediaCap(options.maxMediaBytes ?? MAX_DOWNLOAD_BYTES, options.maxInboundMediaBytes);
  const fromEnv = options.maxMediaBytes !== undefined;
  if ((file.size ?? 0) > cap.bytes) throw new Error(overCap(cap, fromEnv));
  const response = await rest.download(path, options.timeoutMs);
  const mimeType = file.mimeType || response.headers.get("content-type")?.split(";")[0] || "application/octet-stream";
  const body = await readCapped(response, cap.bytes);
  if (!body) throw new Error(overCap(cap, fromEnv));
  const name = safeFileName(file.name, "file");
  const prefix = eventId.replaceAll(/[^\w-]/g, "").slice(0, 40) || "event";
  const saved = join(attachmentsDir(options.home, "matrix"), `${prefix}-${name}`);
  writeFileSync(saved, body, { mode: 0o600 });
  return { kind: file.kind, url: saved, name, mimeType, bytes: body.length };
}

const MIME_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
  ".mp3": "audio/mpeg",
  ".ogg": "audio/ogg",
  ".wav": "audio/wav",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".pdf": "application/pdf",
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".json": "application/json",
  ".zip": "application/zip",
};

export function mimeTypeOf(path: string): string {
  return MIME_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
}

/** Uploads a local file; returns its `mxc://` address and what a message says about it. */
export async function uploadFile(
  rest: MatrixRest,
  path: string,
): Promise<{ contentUri: string; name: string; mimeType: string; size: number }> {
  const name = basename(path);
  const mimeType = mimeTypeOf(path);
  const size = statSync(path).size;
  const data = await openAsBlob(path);
  const result = await rest.post<{ content_uri?: string }>(
    `/_matrix/media/v3/upload?filename=${encodeURIComponent(name)}`,
    undefined,
    { raw: { data, contentType: mimeType } },
  );
  if (typeof result.content_uri !== "string" || !result.content_uri.startsWith("mxc://")) {
    throw new Error("the homeserver's upload answer named no mxc:// content_uri");
  }
  return { contentUri: result.content_uri, name, mimeType, size };
}
