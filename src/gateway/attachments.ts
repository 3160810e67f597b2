/**
 * Files in and out of chats. Inbound: adapters download what users send into
 * `$HERMES_HOME/cache/<platform>/`; images reach the model as image parts, every other file as a
 * line naming where it was saved, so the agent can open it with its tools. Outbound: a reply
 * line `MEDIA:/path` or a markdown image of a local file `![alt](/path)` is sent as a file or an
 * image, unless it is one of the agent's own secrets, a device, or not a regular file.
 */
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, extname, isAbsolute, join, relative, resolve } from "node:path";
import type { ContentPart } from "../llm/types.js";
import { HOME_SECRET_DIRS, readRefusal, realLocation } from "../tools/builtin/file-paths.js";
import { describedImageNote, type ImageDescriptions } from "./image-input.js";
import type { Attachment } from "./types.js";

/** Images larger than this go to the model as a file note instead of inline. */
export const MAX_INLINE_IMAGE_BYTES = 10 * 1024 * 1024;

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** Where an adapter saves what users send on `platform` (created on first use). */
export function attachmentsDir(home: string, platform: string): string {
  const dir = join(home, "cache", platform.replaceAll(/[^a-z0-9_-]/gi, "_"));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** A file name from a user, made safe to use inside the cache directory. */
export function safeFileName(name: string | undefined, fallback: string): string {
  const cleaned = basename(name ?? "")
    .replaceAll(/[^\w.-]+/g, "_")
    .replace(/^\.+/, "")
    .slice(0, 120);
  return cleaned || fallback;
}

/** What a voice message said, or why it could not be transcribed. */
export type Transcripts = ReadonlyMap<Attachment, { text: string } | { error: string }>;

function describe(attachment: Attachment, transcripts?: Transcripts): string {
  const heard = transcripts?.get(attachment);
  if (heard && "text" in heard) return `[Voice message (saved at ${attachment.url}), transcribed:] ${heard.text}`;
  if (heard) return `${plainDescription(attachment)} [It could not be transcribed: ${heard.error}]`;
  return plainDescription(attachment);
}

function plainDescription(attachment: Attachment): string {
  const details = [attachment.mimeType, attachment.bytes !== undefined ? `${attachment.bytes} bytes` : undefined]
    .filter(Boolean)
    .join(", ");
  const name = attachment.name ? `${attachment.name} ` : "";
  return `[The user sent a ${attachment.kind}: ${name}${details ? `(${details}) ` : ""}saved at ${attachment.url}]`;
}

function imagePart(attachment: Attachment): ContentPart | undefined {
  if (attachment.kind !== "image" || !isAbsolute(attachment.url)) return undefined;
  const type = attachment.mimeType?.startsWith("image/")
    ? attachment.mimeType
    : IMAGE_TYPES[extname(attachment.url).toLowerCase()];
  if (!type) return undefined;
  try {
    if (statSync(attachment.url).size > MAX_INLINE_IMAGE_BYTES) return undefined;
    const data = readFileSync(attachment.url).toString("base64");
    return { type: "image_url", image_url: { url: `data:${type};base64,${data}` } };
  } catch {
    return undefined;
  }
}

/**
 * The model's input for a message: its text, with images inline and other files named. An image
 * in `described` (`agent.image_input_mode` text) is given by its description instead.
 */
export function inboundInput(
  text: string,
  attachments: readonly Attachment[] = [],
  transcripts?: Transcripts,
  described?: ImageDescriptions,
): string | ContentPart[] {
  if (attachments.length === 0) return text;
  const images: ContentPart[] = [];
  const notes: string[] = [];
  for (const attachment of attachments) {
    const description = described?.get(attachment);
    if (description) {
      notes.push(describedImageNote(attachment, description));
      continue;
    }
    const image = imagePart(attachment);
    if (image) images.push(image);
    else notes.push(describe(attachment, transcripts));
  }
  const fullText = [text, ...notes].filter((line) => line.trim()).join("\n");
  if (images.length === 0) return fullText;
  return [{ type: "text", text: fullText || "(an image)" }, ...images];
}

export interface OutboundFile {
  path: string;
  /** Shown inline where the platform can (an image type). */
  image: boolean;
}

const MEDIA_LINE = /^[ \t]*MEDIA:[ \t]*(\S.*?)[ \t]*$/gm;
const MARKDOWN_IMAGE = /!\[[^\]\n]*\]\((\/[^)\s]+)\)/g;

/**
 * `gateway.strict` and its companions: in strict mode a reply may send only files under the
 * agent's media cache (`$HERMES_HOME/cache`: downloads, speech, images) or a folder of
 * `media_delivery_allow_dirs`, and, with `trust_recent_files`, a file changed in the last
 * `trust_recent_files_seconds` (one the agent just made). Not strict: any regular file that is
 * not a secret.
 */
export interface MediaPolicy {
  strict: boolean;
  /** HERMES_HOME, whose cache folder is always allowed. */
  home: string;
  allowDirs: readonly string[];
  trustRecentFiles: boolean;
  trustRecentSeconds: number;
  now?: () => number;
}

function inside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function strictRefusal(path: string, real: string, policy: MediaPolicy): string | null {
  const roots = [join(policy.home, "cache"), ...policy.allowDirs.map((dir) => realLocation(expandHome(dir)))];
  if (roots.some((root) => inside(root, real))) return null;
  if (policy.trustRecentFiles) {
    const changed = statSync(real).mtimeMs;
    if ((policy.now ?? Date.now)() - changed <= policy.trustRecentSeconds * 1000) return null;
  }
  return `${path} is outside the folders files may be sent from (gateway.strict: the media cache and gateway.media_delivery_allow_dirs)`;
}

function expandHome(dir: string): string {
  return dir === "~" ? homedir() : dir.startsWith("~/") ? join(homedir(), dir.slice(2)) : dir;
}

/** Why a path the reply names may not leave the machine, or null when it may. */
export function outboundRefusal(path: string, policy?: MediaPolicy): string | null {
  if (!isAbsolute(path)) return `${path} is not an absolute path`;
  const real = realLocation(path);
  const refusal = readRefusal(real);
  if (refusal) return refusal;
  const home = homedir();
  if (HOME_SECRET_DIRS.some((dir) => real.startsWith(join(home, dir, "/"))))
    return `${path} is in a credentials directory`;
  try {
    if (!statSync(real).isFile()) return `${path} is not a regular file`;
  } catch {
    return `${path} does not exist`;
  }
  return policy?.strict ? strictRefusal(path, real, policy) : null;
}

/**
 * Splits a reply into the text to send and the local files it asks to send. Lines that name a
 * file that may not be sent stay in the text with a note, so the user sees what was refused.
 */
export function extractOutboundFiles(
  reply: string,
  policy?: MediaPolicy,
): { text: string; files: OutboundFile[]; refused: string[] } {
  const files: OutboundFile[] = [];
  const refused: string[] = [];
  const take = (path: string): boolean => {
    const why = outboundRefusal(path, policy);
    if (why) {
      refused.push(why);
      return false;
    }
    if (!files.some((file) => file.path === path)) {
      files.push({ path, image: extname(path).toLowerCase() in IMAGE_TYPES });
    }
    return true;
  };
  let text = reply.replace(MEDIA_LINE, (line, path: string) => (take(path.trim()) ? "" : line));
  text = text.replace(MARKDOWN_IMAGE, (whole, path: string) => (take(path) ? "" : whole));
  return { text: text.replaceAll(/\n{3,}/g, "\n\n").trim(), files, refused };
}
