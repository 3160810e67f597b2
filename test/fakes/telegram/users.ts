/** What users do in the fake: messages (with files) as the Bot API delivers them in updates. */
import type { FakeChat, FakeUser, TelegramWorld } from "./methods.js";

export const ALICE: FakeUser = { id: 111, first_name: "Alice", username: "alice" };

export interface UserMessageInput {
  from?: FakeUser;
  chat?: FakeChat;
  text?: string;
  caption?: string;
  /** A forum topic of the chat. */
  threadId?: number;
  replyTo?: number;
  photo?: Buffer;
  document?: { bytes?: Buffer; filename: string; mimeType?: string; declaredSize?: number };
  voice?: Buffer;
}

/** A user's message as a Bot API Message object; its files are stored in the world for getFile. */
export function userMessage(world: TelegramWorld, input: UserMessageInput): Record<string, unknown> {
  const from = input.from ?? ALICE;
  const chat = input.chat ?? { id: from.id, type: "private" as const };
  world.chats.set(chat.id, chat);
  const message: Record<string, unknown> = {
    message_id: world.messageId(chat.id),
    date: Math.floor(Date.now() / 1000),
    chat,
    from,
  };
  if (input.threadId !== undefined) {
    Object.assign(message, {
      message_thread_id: input.threadId,
      is_topic_message: true,
      reply_to_message: { message_id: input.threadId, date: message.date, chat },
    });
  }
  if (input.replyTo !== undefined) message.reply_to_message = { message_id: input.replyTo, date: message.date, chat };
  if (input.text !== undefined) message.text = input.text;
  if (input.caption !== undefined) message.caption = input.caption;
  if (input.photo) {
    const small = world.addFile(input.photo.length, input.photo.subarray(0, 16), "jpg");
    const large = world.addFile(input.photo.length, input.photo, "jpg");
    message.photo = [
      { file_id: small.fileId, file_unique_id: small.uniqueId, width: 90, height: 90, file_size: 16 },
      { file_id: large.fileId, file_unique_id: large.uniqueId, width: 800, height: 600, file_size: large.size },
    ];
  }
  if (input.document) {
    const { bytes, filename, mimeType, declaredSize } = input.document;
    const file = world.addFile(declaredSize ?? bytes?.length ?? 0, bytes);
    message.document = {
      file_id: file.fileId,
      file_unique_id: file.uniqueId,
      file_name: filename,
      file_size: file.size,
      ...(mimeType ? { mime_type: mimeType } : {}),
    };
  }
  if (input.voice) {
    const file = world.addFile(input.voice.length, input.voice, "oga");
    message.voice = {
      file_id: file.fileId,
      file_unique_id: file.uniqueId,
      duration: 2,
      mime_type: "audio/ogg",
      file_size: file.size,
    };
  }
  return message;
}
