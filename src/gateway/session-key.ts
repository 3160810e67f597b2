/**
 * Which conversation a message belongs to. Keys follow the original's layout so routing state
 * carries over: `agent:main:<platform>:dm:<chat>[:<thread>]` for direct messages and
 * `agent:main:<platform>:<chat type>:<chat>[:<thread>][:<user>]` for groups, where the user is
 * appended when each participant gets their own session.
 */
import type { InboundMessage } from "./types.js";

export interface SessionKeyOptions {
  /** In a group (outside threads), each participant has their own session (default true). */
  groupSessionsPerUser: boolean;
  /** Inside a thread, each participant has their own session (default false: a thread is one conversation). */
  threadSessionsPerUser: boolean;
}

const PREFIX = "agent:main";

/** Colons would make keys ambiguous; ids that contain them are escaped. */
function part(value: string): string {
  return value.replaceAll("%", "%25").replaceAll(":", "%3A");
}

export function buildSessionKey(
  message: Pick<InboundMessage, "platform" | "chatType" | "chatId" | "threadId" | "userId">,
  options: SessionKeyOptions,
): string {
  const platform = part(message.platform || "unknown");
  const thread = message.threadId ? `:${part(message.threadId)}` : "";
  if (message.chatType === "dm") {
    // A DM without a chat id falls back to its sender, so two people's DMs never share a session.
    const anchor = part(message.chatId || message.userId);
    return `${PREFIX}:${platform}:dm:${anchor}${thread}`;
  }
  const inThread = Boolean(message.threadId) || message.chatType === "thread";
  const perUser = inThread ? options.threadSessionsPerUser : options.groupSessionsPerUser;
  const user = perUser && message.userId ? `:${part(message.userId)}` : "";
  return `${PREFIX}:${platform}:${message.chatType}:${part(message.chatId)}${thread}${user}`;
}
