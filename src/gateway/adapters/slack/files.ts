/**
 * Files users send: each is downloaded with the bot token (Slack serves `url_private_download`
 * only to authenticated apps) into `$HERMES_HOME/cache/slack/`. The token is only ever sent to
 * Slack's own hosts, or to the host of a configured API root (a local stand-in of Slack). A file
 * over 50 MiB, or over `gateway.max_inbound_media_bytes` when that is smaller, is refused: by
 * the size Slack declares, and otherwise while it streams in.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { attachmentsDir, safeFileName } from "../../attachments.js";
import type { Attachment } from "../../types.js";
import { gatewayCapPhrase, type MediaCap, mediaCap, readCapped } from "../capped-read.js";
import type { SlackFile } from "./inbound.js";

/** Larger files are named in the message but not downloaded. */
export const MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024;

export interface DownloadOptions {
  home: string;
  botToken: string;
  /** The configured API root, whose host may also serve files. */
  apiUrl?: string;
  timeoutMs: number;
  log: (line: string) => void;
  /** `gateway.max_inbound_media_bytes`: a ceiling over MAX_DOWNLOAD_BYTES (0 or unset: none). */
  maxInboundMediaBytes?: number;
}

function kindOf(mimeType: string): Attachment["kind"] {
  if (mimeType.startsWith("image/")) return "image";
  if (mimeType.startsWith("audio/")) return "audio";
  if (mimeType.startsWith("video/")) return "video";
  return "file";
}

function trustedHost(url: URL, apiUrl: string | undefined): boolean {
  if (url.protocol === "https:" && (url.hostname === "slack.com" || url.hostname.endsWith(".slack.com"))) return true;
  if (!apiUrl) return false;
  const api = new URL(apiUrl);
  return url.protocol === api.protocol && url.host === api.host;
}

function overCap(cap: MediaCap): string {
  return cap.fromGateway ? `it is over ${gatewayCapPhrase(cap)}` : `it is over ${cap.bytes} bytes`;
}

async function download(file: SlackFile, options: DownloadOptions, prefix: string): Promise<Attachment> {
  const source = file.url_private_download ?? file.url_private;
  if (!source) throw new Error("it has no download URL");
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw new Error("its download URL is not a URL");
  }
  if (!trustedHost(url, options.apiUrl)) throw new Error(`its download URL is not on Slack (${url.host})`);
  const cap = mediaCap(MAX_DOWNLOAD_BYTES, options.maxInboundMediaBytes);
  if ((file.size ?? 0) > cap.bytes) throw new Error(overCap(cap));
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${options.botToken}` },
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  if (!response.ok) throw new Error(`the download answered HTTP ${response.status}`);
  const contentType = response.headers.get("content-type") ?? "";
  const mimeType = file.mimetype || contentType.split(";")[0] || "application/octet-stream";
  // Without a valid token Slack answers with its sign-in page instead of the file.
  if (contentType.startsWith("text/html") && !mimeType.startsWith("text/html")) {
    throw new Error("Slack answered with a sign-in page (does the app have the files:read scope?)");
  }
  const body = await readCapped(response, cap.bytes);
  if (!body) throw new Error(overCap(cap));
  const name = safeFileName(file.name, file.id ?? "file");
  const path = join(attachmentsDir(options.home, "slack"), `${prefix}-${name}`);
  writeFileSync(path, body, { mode: 0o600 });
  return { kind: kindOf(mimeType), url: path, name, mimeType, bytes: body.length };
}

/** Downloads what can be downloaded; a file that cannot is left out and logged. */
export async function downloadFiles(
  files: SlackFile[],
  options: DownloadOptions,
  messageTs: string,
): Promise<{ attachments: Attachment[]; failures: string[] }> {
  const attachments: Attachment[] = [];
  const failures: string[] = [];
  for (const [index, file] of files.slice(0, 10).entries()) {
    const prefix = `${messageTs.replace(".", "_")}-${index}`;
    try {
      attachments.push(await download(file, options, prefix));
    } catch (error) {
      const name = safeFileName(file.name, file.id ?? "a file");
      const why = error instanceof Error ? error.message : String(error);
      failures.push(`${name}: ${why}`);
      options.log(`slack: could not download ${name}: ${why}`);
    }
  }
  return { attachments, failures };
}
