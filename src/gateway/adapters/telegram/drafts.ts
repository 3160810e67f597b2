/**
 * Streamed previews as Telegram message drafts (`sendMessageDraft`, Bot API 9.3): in a private
 * chat the growing reply shows as an animated draft, which leaves no message behind; the final
 * reply is then sent as a message of its own. A server that lacks the method, or refuses drafts
 * to this bot, is not asked again until restart.
 */
import type { Api } from "grammy";
import type { ChatAddress } from "../../types.js";
import { describeError, isGrammyError, isParseError } from "./errors.js";
import { isMissingMethod, type RichMessages } from "./rich.js";
import { thread } from "./updates.js";

export interface TextBody {
  text: string;
  parse_mode?: "MarkdownV2";
}

/** Sends as MarkdownV2 and, when Telegram cannot parse that, as plain text (the adapter's own). */
export type PlainFallback = <T>(action: string, text: string, call: (body: TextBody) => Promise<T>) => Promise<T>;

export interface MessageDraftsOptions {
  api: Api;
  rich: RichMessages;
  withPlainFallback: PlainFallback;
  token: string;
  log: (line: string) => void;
}

/** Telegram gives private chats positive ids (the user's), groups and channels negative ones. */
export function isPrivateChat(chatId: string): boolean {
  return /^\d+$/.test(chatId);
}

export class MessageDrafts {
  private available = true;

  constructor(private readonly options: MessageDraftsOptions) {}

  /**
   * Shows `text` as draft `draftId`; false when this chat cannot have drafts (not a private chat,
   * or the server cannot draft). Rejects with a PlatformSendError when the draft failed.
   */
  async show(address: ChatAddress, draftId: number, text: string): Promise<boolean> {
    if (!this.available || !isPrivateChat(address.chatId)) return false;
    if (await this.options.rich.draft(address, draftId, text)) return true;
    await this.options.withPlainFallback("sendMessageDraft", text, (body) =>
      this.options.api
        .sendMessageDraft(Number(address.chatId), draftId, body.text, { ...body, ...thread(address) })
        .catch((error: unknown) => {
          this.noteFailure(error);
          throw error;
        }),
    );
    return true;
  }

  /** A missing method or a refusal (a 400 other than unparsable text) will not pass: drafts stop. */
  private noteFailure(error: unknown): void {
    if (!isMissingMethod(error) && !(isGrammyError(error, 400) && !isParseError(error))) return;
    this.available = false;
    this.options.log(
      `telegram: sendMessageDraft failed (${describeError(error, this.options.token)}); ` +
        "previews are edited messages until restart",
    );
  }
}
