/**
 * One fetched mail turned into what the gateway needs: who sent it, which conversation it
 * belongs to, the new text (quoted history removed) and its files saved to the cache. Mail is
 * untrusted input: sizes are capped and file names made safe.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AddressObject, type HeaderValue, type ParsedMail, simpleParser } from "mailparser";
import { attachmentsDir, safeFileName } from "../../attachments.js";
import type { Attachment } from "../../types.js";
import { gatewayCapPhrase, type MediaCap, mediaCap } from "../capped-read.js";

export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
/** Longer text is cut: nobody writes a prompt this long by mail, but a forwarded log might be. */
const MAX_TEXT_CHARS = 100_000;

export interface ParsedInbound {
  messageId: string;
  /** The conversation: the first id in References, else In-Reply-To, else its own id. */
  threadRoot: string;
  /** Ids to carry in the References of a reply (its References plus its own id). */
  references: string[];
  from: string;
  fromName: string | undefined;
  subject: string;
  text: string;
  attachments: Attachment[];
  sentAt: number | undefined;
  /** Why the mail gets no answer (an auto-reply, a bounce, a list), when it gets none. */
  skipReason: string | undefined;
}

const MESSAGE_ID = /<[^<>\s]+>/g;

function ids(value: string | string[] | undefined): string[] {
  const joined = Array.isArray(value) ? value.join(" ") : (value ?? "");
  return joined.match(MESSAGE_ID) ?? [];
}

function header(mail: ParsedMail, name: string): string {
  const value: HeaderValue | undefined = mail.headers.get(name);
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "object" && "value" in value && typeof value.value === "string") return value.value;
  return String(value);
}

function firstSender(from: AddressObject | undefined): { address: string; name: string | undefined } | undefined {
  const entry = from?.value.find((item) => item.address);
  if (!entry?.address) return undefined;
  return { address: entry.address.trim().toLowerCase(), name: entry.name?.trim() || undefined };
}

/** Why a mail is machine-sent and must not be answered (answering could loop), or undefined. */
export function automatedReason(mail: ParsedMail, sender: string): string | undefined {
  const autoSubmitted = header(mail, "auto-submitted").trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== "no") return `Auto-Submitted: ${autoSubmitted}`;
  const precedence = header(mail, "precedence").trim().toLowerCase();
  if (["bulk", "list", "junk", "auto_reply"].includes(precedence)) return `Precedence: ${precedence}`;
  if (header(mail, "x-autoreply") || header(mail, "x-autorespond")) return "an auto-reply header";
  if (header(mail, "list-id")) return "a mailing list";
  const local = sender.split("@")[0] ?? "";
  if (/^(mailer-daemon|postmaster|no-?reply)$/i.test(local)) return `sent by ${local}`;
  if (/multipart\/report/i.test(header(mail, "content-type"))) return "a delivery report";
  return undefined;
}

/**
 * The new part of a reply: quoted lines (`>`), the "On ... wrote:" line that introduces them,
 * and anything below a forwarded or original-message separator are removed.
 */
export function stripQuotedHistory(text: string): string {
  const lines = text.replaceAll("\r\n", "\n").split("\n");
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const next = lines[index + 1] ?? "";
    if (/^-{2,}\s*(Original Message|Forwarded message)\s*-{2,}/i.test(line.trim())) break;
    if (/^On\b.*\bwrote:\s*$/.test(line.trim())) break;
    // Clients wrap a long attribution line: "On Mon, ... Alice" / "<alice@example.com> wrote:".
    if (/^On\b/.test(line.trim()) && /\bwrote:\s*$/.test(next.trim()) && !next.trim().startsWith(">")) break;
    if (/^\s*>/.test(line)) continue;
    kept.push(line);
  }
  return kept
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function attachmentKind(mimeType: string): Attachment["kind"] {
  if (mimeType.startsWith("image/")) return "image";
  if (mimeType.startsWith("audio/")) return "audio";
  if (mimeType.startsWith("video/")) return "video";
  return "file";
}

function limitOf(cap: MediaCap): string {
  if (cap.fromGateway) return gatewayCapPhrase(cap);
  return cap.bytes >= 1024 * 1024
    ? `the ${Math.round(cap.bytes / 1024 / 1024)} MB limit`
    : `the ${cap.bytes} bytes limit`;
}

function saveAttachments(mail: ParsedMail, home: string, cap: MediaCap): { saved: Attachment[]; notes: string[] } {
  const saved: Attachment[] = [];
  const notes: string[] = [];
  if (mail.attachments.length === 0) return { saved, notes };
  const dir = attachmentsDir(home, "email");
  for (const [index, part] of mail.attachments.entries()) {
    const name = safeFileName(part.filename, `attachment-${index + 1}`);
    if (part.size > cap.bytes || part.content.length > cap.bytes) {
      notes.push(`[The attachment ${name} (${part.content.length} bytes) is over ${limitOf(cap)} and was not saved]`);
      continue;
    }
    const path = join(dir, `${Date.now()}-${randomBytes(4).toString("hex")}-${name}`);
    writeFileSync(path, part.content, { mode: 0o600 });
    saved.push({
      kind: attachmentKind(part.contentType.toLowerCase()),
      url: path,
      name,
      mimeType: part.contentType,
      bytes: part.content.length,
    });
  }
  return { saved, notes };
}

export interface ParseOptions {
  home: string;
  ownAddress: string;
  /** Used for a mail without a Message-ID (stable for the same mail in the same mailbox). */
  fallbackId: string;
  /** Largest attachment saved (default 25 MB). */
  maxAttachmentBytes?: number;
  /** `gateway.max_inbound_media_bytes`: a ceiling over `maxAttachmentBytes` (0 or unset: none). */
  maxInboundMediaBytes?: number;
}

/** Parses a raw mail; attachments of mail that will not be answered are not saved. */
export async function parseInbound(source: Buffer, options: ParseOptions): Promise<ParsedInbound | undefined> {
  const mail = await simpleParser(source, { skipHtmlToText: false, maxHtmlLengthToParse: 2_000_000 });
  const sender = firstSender(mail.from);
  if (!sender) return undefined;
  const messageId = ids(mail.messageId)[0] ?? options.fallbackId;
  const references = ids(mail.references);
  const inReplyTo = ids(mail.inReplyTo)[0];
  const threadRoot = references[0] ?? inReplyTo ?? messageId;
  const subject = (mail.subject ?? "").replaceAll(/[\r\n]+/g, " ").trim();
  const ownMail = sender.address === options.ownAddress.toLowerCase();
  const skipReason = ownMail ? "sent from our own address" : automatedReason(mail, sender.address);
  const base = {
    messageId,
    threadRoot,
    references: [...references.filter((id) => id !== messageId), messageId],
    from: sender.address,
    fromName: sender.name,
    subject,
    sentAt: mail.date?.getTime(),
  };
  if (skipReason) return { ...base, text: "", attachments: [], skipReason };

  let text = stripQuotedHistory(mail.text ?? "");
  if (text.length > MAX_TEXT_CHARS) text = `${text.slice(0, MAX_TEXT_CHARS)}\n[... the rest of the mail was cut]`;
  const cap = mediaCap(options.maxAttachmentBytes ?? MAX_ATTACHMENT_BYTES, options.maxInboundMediaBytes);
  const { saved, notes } = saveAttachments(mail, options.home, cap);
  const firstInThread = threadRoot === messageId;
  // The subject is context for the first mail only; a reply's subject is just "Re: ...".
  if (firstInThread && subject && !text.startsWith("/")) text = text ? `Subject: ${subject}\n\n${text}` : subject;
  text = [text, ...notes].filter(Boolean).join("\n");
  return { ...base, text, attachments: saved, skipReason: undefined };
}
