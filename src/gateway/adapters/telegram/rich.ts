/**
 * Telegram's rich messages (Bot API 10.1): a final reply whose markdown MarkdownV2 renders badly
 * (tables, task lists, `<details>`, display math) is sent as the markdown itself with
 * `sendRichMessage`, which Telegram renders natively; with `rich_drafts`, the previews of such a
 * reply are rich drafts too. Every failure falls back to the classic path for that message, and a
 * server without the methods is not asked again until restart.
 */
import type { Api } from "grammy";
import type { ChatAddress, OutboundText, SentMessage } from "../../types.js";
import { describeError, isGrammyError, isNotModified, isUnanswered, toSendError } from "./errors.js";
import { isMarkdownV2 } from "./format.js";
import { thread } from "./updates.js";

/** The most characters one rich message may hold. */
export const RICH_MESSAGE_MAX_LENGTH = 32_768;

export interface RichSettings {
  /** `rich_messages`: final replies that need it go out as rich messages. */
  messages: boolean;
  /** `rich_drafts`: previews of such replies are rich drafts (only with `messages` on). */
  drafts: boolean;
}

const FENCE = /^\s*(`{3,}|~{3,})/;
/** A table's header divider: dashes (with optional colons) between pipes, at least one inner pipe or both outer ones. */
const TABLE_DIVIDER = /^\s*(\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?|\|\s*:?-+:?\s*\|)\s*$/;
const TASK_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+\[[ xX]\]\s+\S/;
const DETAILS_TAG = /^\s*<\/?(?:details|summary)(?:\s[^>]*)?>/i;
const DISPLAY_MATH = /\$\$[^$]+\$\$/;

/**
 * Whether markdown uses what the classic MarkdownV2 path renders badly: a table, a task list, a
 * `<details>` block or `$$` display math, outside code blocks.
 */
export function needsRichRendering(markdown: string): boolean {
  const prose: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.replace(/\r\n?/g, "\n").split("\n")) {
    const marker = FENCE.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      continue;
    }
    if (fence) continue;
    const previous = prose.at(-1);
    if (TABLE_DIVIDER.test(line) && previous?.includes("|")) return true;
    if (TASK_ITEM.test(line) || DETAILS_TAG.test(line)) return true;
    prose.push(line);
  }
  return DISPLAY_MATH.test(prose.join("\n"));
}

/** A failure that says the server has no such method (an older or self-hosted Bot API server). */
export function isMissingMethod(error: unknown): boolean {
  return (
    isGrammyError(error, 404) ||
    (isGrammyError(error) && /method.*not found|no such method|not implemented/i.test(error.description))
  );
}

export interface RichMessagesOptions {
  api: Api;
  settings: RichSettings;
  token: string;
  log: (line: string) => void;
}

export class RichMessages {
  private sendable: boolean;
  private draftable: boolean;

  constructor(private readonly options: RichMessagesOptions) {
    this.sendable = options.settings.messages;
    this.draftable = options.settings.messages && options.settings.drafts;
  }

  /**
   * Whether a final reply goes out whole as one rich message rather than formatted and split:
   * it is plain markdown (not MarkdownV2 already), needs rich rendering and fits.
   */
  takesWhole(markdown: string): boolean {
    return this.sendable && fitsRich(markdown);
  }

  /** The reply as a rich message, or undefined when that failed and it should go the classic way. */
  async send(message: OutboundText): Promise<SentMessage | undefined> {
    const replyTo = message.replyTo && /^\d+$/.test(message.replyTo) ? Number(message.replyTo) : undefined;
    try {
      const sent = await this.options.api.sendRichMessage(
        message.chatId,
        { markdown: message.text },
        {
          ...thread(message),
          ...(replyTo ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
        },
      );
      return { messageId: String(sent.message_id) };
    } catch (error) {
      this.failed("sendRichMessage", error);
      return undefined;
    }
  }

  /** Turns a message (a streamed preview) into the rich reply; false when the classic edit should be made. */
  async edit(address: ChatAddress, messageId: string, markdown: string): Promise<boolean> {
    try {
      await this.options.api.editMessageText(address.chatId, Number(messageId), { markdown });
      return true;
    } catch (error) {
      if (isNotModified(error)) return true;
      this.failed("editMessageText with rich_message", error);
      return false;
    }
  }

  /** Shows a preview as a rich draft when it needs one; false when a classic draft should be shown. */
  async draft(address: ChatAddress, draftId: number, markdown: string): Promise<boolean> {
    if (!this.draftable || !fitsRich(markdown)) return false;
    try {
      await this.options.api.sendRichMessageDraft(Number(address.chatId), draftId, { markdown }, thread(address));
      return true;
    } catch (error) {
      if (isMissingMethod(error)) this.draftable = false;
      if (isGrammyError(error, 429)) throw toSendError(error, "sendRichMessageDraft");
      this.options.log(
        `telegram: sendRichMessageDraft failed (${describeError(error, this.options.token)}); ${
          this.draftable ? "showing a classic draft" : "rich drafts are off until restart"
        }`,
      );
      return false;
    }
  }

  /**
   * A rate limit is waited out by the caller, and a network failure retried by it (Telegram may
   * have posted the message: a classic copy at once would make two); a refusal sends the classic
   * way, and a missing method turns rich off.
   */
  private failed(action: string, error: unknown): void {
    if (isGrammyError(error, 429) || isUnanswered(error)) throw toSendError(error, action);
    if (isMissingMethod(error)) this.sendable = false;
    this.options.log(
      `telegram: ${action} failed (${describeError(error, this.options.token)}); sent as MarkdownV2${
        this.sendable ? "" : ", and rich messages are off until restart"
      }`,
    );
  }
}

function fitsRich(markdown: string): boolean {
  return markdown.length <= RICH_MESSAGE_MAX_LENGTH && !isMarkdownV2(markdown) && needsRichRendering(markdown);
}
