/**
 * Files users attach, saved under the platform's cache directory before the message reaches the
 * core. A file over `discord.max_attachment_bytes` (or `gateway.max_inbound_media_bytes`, when
 * smaller) is not fetched (checked against the size Discord declares and again while reading);
 * unless `discord.allow_any_attachment` is on, only images, audio, video, text, PDF and JSON are
 * taken. What is skipped is named in the text.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { attachmentsDir, safeFileName } from "../../attachments.js";
import type { Attachment } from "../../types.js";
import { MEDIA_CAP_KEY, type MediaCap, readCapped } from "../capped-read.js";

export interface IncomingFile {
  id: string;
  name: string;
  url: string;
  size: number;
  contentType: string | null;
}

const DOWNLOAD_TIMEOUT_MS = 60_000;
const ACCEPTED_DOCUMENTS = new Set(["application/pdf", "application/json"]);

export function kindOf(contentType: string): Attachment["kind"] {
  if (contentType.startsWith("image/")) return "image";
  if (contentType.startsWith("audio/")) return "audio";
  if (contentType.startsWith("video/")) return "video";
  return "file";
}

function accepted(contentType: string, anyType: boolean): boolean {
  return (
    anyType || kindOf(contentType) !== "file" || contentType.startsWith("text/") || ACCEPTED_DOCUMENTS.has(contentType)
  );
}

function tooLarge(cap: MediaCap): string {
  return `larger than ${cap.bytes} bytes, the limit set by ${cap.fromGateway ? MEDIA_CAP_KEY : "discord.max_attachment_bytes"}`;
}

export async function downloadFiles(
  files: IncomingFile[],
  options: { home: string; messageId: string; cap: MediaCap; anyType: boolean },
): Promise<{ attachments: Attachment[]; notes: string[] }> {
  const attachments: Attachment[] = [];
  const notes: string[] = [];
  for (const file of files) {
    const mimeType =
      (file.contentType ?? "application/octet-stream").split(";")[0]?.trim() || "application/octet-stream";
    const name = safeFileName(file.name, `attachment-${file.id}`);
    if (file.size > options.cap.bytes) {
      notes.push(`[${name} (${file.size} bytes) was not downloaded: ${tooLarge(options.cap)}]`);
      continue;
    }
    if (!accepted(mimeType, options.anyType)) {
      notes.push(`[${name} (${mimeType}) was not downloaded: that file type is not accepted]`);
      continue;
    }
    if (!/^https?:\/\//i.test(file.url)) {
      notes.push(`[${name} was not downloaded: it has no http(s) address]`);
      continue;
    }
    try {
      const response = await fetch(file.url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await readCapped(response, options.cap.bytes);
      if (!data) {
        notes.push(`[${name} was not downloaded: ${tooLarge(options.cap)}]`);
        continue;
      }
      const path = join(attachmentsDir(options.home, "discord"), `${options.messageId}-${name}`);
      await writeFile(path, data, { mode: 0o600 });
      attachments.push({ kind: kindOf(mimeType), url: path, name, mimeType, bytes: data.length });
    } catch (error) {
      notes.push(`[${name} could not be downloaded: ${error instanceof Error ? error.message : String(error)}]`);
    }
  }
  return { attachments, notes };
}
