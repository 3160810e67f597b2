/**
 * Telegram messages as the gateway's inbound messages: who wrote where (private chat, group,
 * forum topic), the text or caption, and the files, downloaded into the attachments cache first.
 */
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Api } from "grammy";
import type { Chat, Message } from "grammy/types";
import { attachmentsDir, safeFileName } from "../../attachments.js";
import type { Attachment, ChatType, InboundMessage } from "../../types.js";
import { gatewayCapPhrase, type MediaCap, mediaCap } from "../capped-read.js";
import { describeError } from "./errors.js";

/** The Bot API serves files up to this size to bots. */
export const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 120_000;

export interface FileSource {
  api: Api;
  apiRoot: string;
  token: string;
  home: string;
  /** `gateway.max_inbound_media_bytes`: a ceiling over MAX_DOWNLOAD_BYTES (0 or unset: none). */
  maxInboundMediaBytes?: number;
}

export function chatTypeOf(chat: Chat): ChatType {
  if (chat.type === "private") return "dm";
  if (chat.type === "channel") return "channel";
  return "group";
}

/** The topic a send goes to, as the Bot API takes it. */
export function thread(address: { threadId?: string | null }): { message_thread_id?: number } {
  return address.threadId && /^\d+$/.test(address.threadId) ? { message_thread_id: Number(address.threadId) } : {};
}

/** The forum topic a message belongs to, when it is in one. */
export function topicOf(message: Pick<Message, "message_thread_id" | "is_topic_message">): string | undefined {
  return message.is_topic_message && message.message_thread_id !== undefined
    ? String(message.message_thread_id)
    : undefined;
}

interface FileRef {
  kind: Attachment["kind"];
  fileId: string;
  uniqueId: string;
  size?: number | undefined;
  name?: string | undefined;
  mimeType?: string | undefined;
  fallbackName: string;
}

function fileOf(message: Message): FileRef | undefined {
  if (message.photo?.length) {
    const largest = message.photo.reduce((best, size) =>
      size.width * size.height > best.width * best.height ? size : best,
    );
    return {
      kind: "image",
      fileId: largest.file_id,
      uniqueId: largest.file_unique_id,
      size: largest.file_size,
      mimeType: "image/jpeg",
      fallbackName: "photo.jpg",
    };
  }
  const typed = (
    [
      ["file", message.document, "document"],
      ["audio", message.voice, "voice.ogg"],
      ["audio", message.audio, "audio"],
      ["video", message.video, "video.mp4"],
    ] as const
  ).find(([, file]) => file !== undefined);
  if (!typed) return undefined;
  const [kind, file, fallbackName] = typed;
  if (!file) return undefined;
  return {
    kind,
    fileId: file.file_id,
    uniqueId: file.file_unique_id,
    size: file.file_size,
    name: "file_name" in file ? file.file_name : undefined,
    mimeType: file.mime_type,
    fallbackName,
  };
}

function limitOf(cap: MediaCap): string {
  return cap.fromGateway ? gatewayCapPhrase(cap) : "Telegram's 20 MB limit for bots";
}

/** Downloads a file into the cache; returns the attachment, or a note saying why not. */
async function download(source: FileSource, ref: FileRef, messageId: number): Promise<Attachment | string> {
  const label = ref.name ?? ref.fallbackName;
  const cap = mediaCap(MAX_DOWNLOAD_BYTES, source.maxInboundMediaBytes);
  if (ref.size !== undefined && ref.size > cap.bytes) {
    return `[The user sent ${label} (${ref.size} bytes), which is over ${limitOf(cap)}; it was not downloaded]`;
  }
  const target = join(
    attachmentsDir(source.home, "telegram"),
    `${messageId}-${safeFileName(ref.uniqueId, "file")}-${safeFileName(label, ref.fallbackName)}`,
  );
  try {
    const file = await source.api.getFile(ref.fileId);
    if (!file.file_path) throw new Error("Telegram gave no path to download it from");
    if (file.file_size !== undefined && file.file_size > cap.bytes) throw new Error(`it is over ${limitOf(cap)}`);
    const url = `${source.apiRoot}/file/bot${source.token}/${file.file_path.split("/").map(encodeURIComponent).join("/")}`;
    const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
    if (!response.ok || !response.body) throw new Error(`the download answered ${response.status}`);
    let bytes = 0;
    const counted = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream).map((chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > cap.bytes) throw new Error(`it is over ${limitOf(cap)}`);
      return chunk;
    });
    await pipeline(counted, createWriteStream(target, { mode: 0o600 }));
    return {
      kind: ref.kind,
      url: target,
      name: label,
      bytes,
      ...(ref.mimeType ? { mimeType: ref.mimeType } : {}),
    };
  } catch (error) {
    await rm(target, { force: true });
    return `[The user sent ${label}, but it could not be downloaded: ${describeError(error, source.token)}]`;
  }
}

/**
 * A message as an inbound message, or undefined for what the agent does not read (service
 * messages, bots). Its file is downloaded only when `admits` (the core's ask ahead) lets the
 * sender in: a stranger's upload never reaches the disk.
 */
export async function inboundFromMessage(
  message: Message,
  source: FileSource,
  admits: (message: InboundMessage) => Promise<boolean> = async () => true,
): Promise<InboundMessage | undefined> {
  const from = message.from;
  if (!from || from.is_bot) return undefined;
  const ref = fileOf(message);
  const text = message.text ?? message.caption ?? "";
  if (!text && !ref) return undefined;
  const threadId = topicOf(message);
  const replied = message.reply_to_message?.message_id;
  // In a topic every message "replies" to the topic's first message; that is not a reply.
  const replyTo = replied !== undefined && replied !== message.message_thread_id ? String(replied) : undefined;
  const inbound: InboundMessage = {
    platform: "telegram",
    chatId: String(message.chat.id),
    chatType: chatTypeOf(message.chat),
    ...(threadId ? { threadId } : {}),
    userId: String(from.id),
    ...(from.username ? { userName: from.username } : {}),
    ...("title" in message.chat && message.chat.title ? { chatName: message.chat.title } : {}),
    text,
    messageId: String(message.message_id),
    ...(replyTo ? { replyTo } : {}),
    sentAt: message.date * 1000,
  };
  if (!ref) return inbound;
  if (!(await admits(inbound)))
    return { ...inbound, text: [text, "[a file, not downloaded]"].filter(Boolean).join("\n") };
  const result = await download(source, ref, message.message_id);
  if (typeof result === "string") return { ...inbound, text: [text, result].filter(Boolean).join("\n") };
  return { ...inbound, attachments: [result] };
}
