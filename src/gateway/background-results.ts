/**
 * Background subagents dispatched from a chat: when one finishes, its result becomes a new turn
 * of that chat's session, queued in the session's lane behind whatever runs or waits there, so
 * it is ordered with the user's messages; the agent's answer goes to the chat. The turn is
 * recorded in the inbound table like a message, so a restart before it ran still runs it.
 */
import { type BackgroundOrigin, type BackgroundResult, backgroundResultsMessage } from "../agent/delegation.js";
import type { GatewayRunner } from "./runner.js";
import type { ChatType, InboundMessage } from "./types.js";

/** What the gateway hands its sessions' tools as the chat they serve (`cronOrigin`). */
interface ChatOrigin {
  platform: string;
  chatId: string;
  threadId?: string | null;
  userId: string;
  sessionKey: string;
}

const MESSAGE_ID_PREFIX = "subagent-";
const CHAT_TYPES: readonly ChatType[] = ["dm", "group", "channel", "thread"];

function chatOf(origin: BackgroundOrigin): ChatOrigin | undefined {
  const chat = origin.chat as Partial<ChatOrigin> | undefined;
  if (!chat || typeof chat.sessionKey !== "string" || typeof chat.chatId !== "string") return undefined;
  if (typeof chat.platform !== "string" || typeof chat.userId !== "string") return undefined;
  return chat as ChatOrigin;
}

/** Session keys read `agent:main:<platform>:<chat type>:...` (see session-key.ts). */
function chatTypeOf(sessionKey: string): ChatType {
  const kind = sessionKey.split(":")[3] as ChatType;
  return CHAT_TYPES.includes(kind) ? kind : "dm";
}

/** A turn the gateway made for a background result, not a message anyone sent: answers are not replies to it. */
export function isBackgroundResultMessage(message: Pick<InboundMessage, "messageId">): boolean {
  return message.messageId.startsWith(MESSAGE_ID_PREFIX);
}

function resultMessage(chat: ChatOrigin, result: BackgroundResult): InboundMessage {
  return {
    platform: chat.platform,
    chatId: chat.chatId,
    chatType: chatTypeOf(chat.sessionKey),
    ...(chat.threadId ? { threadId: chat.threadId } : {}),
    userId: chat.userId,
    // In a shared chat each turn names its sender; this one is not the user.
    userName: "background subagent",
    messageId: `${MESSAGE_ID_PREFIX}${result.id}`,
    text: backgroundResultsMessage([result]),
  };
}

async function queueResult(runner: GatewayRunner, chat: ChatOrigin, result: BackgroundResult): Promise<void> {
  const message = resultMessage(chat, result);
  const key = { platform: message.platform, chatId: message.chatId, messageId: message.messageId };
  const claim = await runner.store.claimInbound(key, chat.sessionKey, message, runner.now());
  // While stopping it is only recorded: the next start runs it, as with any message.
  if (!claim.accepted || runner.isStopping) return;
  runner.log(`${chat.sessionKey}: background subagent ${result.id} ${result.report.status}; its result is queued`);
  runner.enqueue({ sessionKey: chat.sessionKey, message, extra: [] });
}

/** Delivers finished background subagents of this gateway's chats; returns the detach function. */
export function deliverBackgroundResults(runner: GatewayRunner): () => void {
  return runner.runtime.background.attach({
    accepts: (origin) => {
      const chat = chatOf(origin);
      return chat !== undefined && runner.adapter(chat.platform) !== undefined;
    },
    deliver: (result) => {
      const chat = chatOf(result.origin);
      if (!chat) return;
      queueResult(runner, chat, result).catch((error: unknown) => {
        runner.log(
          `${chat.sessionKey}: could not queue background subagent ${result.id}: ${error instanceof Error ? error.message : error}`,
        );
      });
    },
  });
}
