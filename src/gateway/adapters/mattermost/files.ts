/**
 * Files in and out of Mattermost. Files users attach are fetched with the bot's token
 * (`GET /files/{id}/info`, then `GET /files/{id}`) into `$HERMES_HOME/cache/mattermost/`; one
 * over 50 MiB, or over `gateway.max_inbound_media_bytes` when that is smaller, is refused by its
 * declared size, or while it streams in. Files the agent sends are uploaded with `POST /files`
 * and attached to a post by their ids.
 */
import { openAsBlob, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { attachmentsDir, safeFileName } from "../../attachments.js";
import type { Attachment } from "../../types.js";
import { gatewayCapPhrase, type MediaCap, mediaCap, readCapped } from "../capped-read.js";
import type { MattermostRest } from "./rest.js";

/** Larger files are named in the message but not downloaded. */
export const MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024;

export interface FileInfo {
  id?: string;
  name?: string;
  mime_type?: string;
  size?: number;
}

export interface DownloadOptions {
  home: string;
  log: (line: string) => void;
  /** `gateway.max_inbound_media_bytes` (0 or unset: no ceiling beyond MAX_DOWNLOAD_BYTES). */
  maxInboundMediaBytes?: number;
  timeoutMs: number;
}

function kindOf(mimeType: string): Attachment["kind"] {
  if (mimeType.startsWith("image/")) return "image";
  if (mimeType.startsWith("audio/")) return "audio";
  if (mimeType.startsWith("video/")) return "video";
  return "file";
}

function overCap(cap: MediaCap): string {
  return cap.fromGateway ? `it is over ${gatewayCapPhrase(cap)}` : `it is over ${cap.bytes} bytes`;
}

async function download(rest: MattermostRest, fileId: string, options: DownloadOptions, prefix: string) {
  const info = await rest.get<FileInfo>(`/files/${fileId}/info`);
  const cap = mediaCap(MAX_DOWNLOAD_BYTES, options.maxInboundMediaBytes);
  if ((info.size ?? 0) > cap.bytes) throw new Error(overCap(cap));
  const response = await rest.download(`/files/${fileId}`, options.timeoutMs);
  const mimeType = info.mime_type || response.headers.get("content-type")?.split(";")[0] || "application/octet-stream";
  const body = await readCapped(response, cap.bytes);
  if (!body) throw new Error(overCap(cap));
  const name = safeFileName(info.name, fileId);
  const path = join(attachmentsDir(options.home, "mattermost"), `${prefix}-${name}`);
  writeFileSync(path, body, { mode: 0o600 });
  const attachment: Attachment = { kind: kindOf(mimeType), url: path, name, mimeType, bytes: body.length };
  return attachment;
}

/** Downloads what can be downloaded; a file that cannot is named in `failures` and logged. */
export async function downloadFiles(
  rest: MattermostRest,
  fileIds: readonly string[],
  postId: string,
  options: DownloadOptions,
): Promise<{ attachments: Attachment[]; failures: string[] }> {
  const attachments: Attachment[] = [];
  const failures: string[] = [];
  for (const [index, fileId] of fileIds.entries()) {
    try {
      attachments.push(await download(rest, fileId, options, `${postId}-${index}`));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      failures.push(`${fileId}: ${why}`);
      options.log(`mattermost: could not download file ${fileId}: ${why}`);
    }
  }
  return { attachments, failures };
}

/** Uploads a local file to a channel; returns the file id a post can attach. */
export async function uploadFile(rest: MattermostRest, channelId: string, path: string): Promise<string> {
  const form = new FormData();
  form.append("channel_id", channelId);
  form.append("files", await openAsBlob(path), basename(path));
  const result = await rest.post<{ file_infos?: FileInfo[] }>("/files", form);
  const id = result.file_infos?.[0]?.id;
  if (!id) throw new Error("Mattermost's upload answer named no file id");
  return id;
}
