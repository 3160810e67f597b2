/**
 * Where a Responses request continues. A stored response remembers its session and how many
 * messages that session held when it was done. Continuing from the newest response of a
 * session simply continues the session; continuing from an older one (a branch) forks a new
 * session holding the conversation up to that response, so neither branch sees the other.
 */
import { isTurnNote, lastUserMessageIndex } from "../agent/turn-checks.js";
import type { Message } from "../llm/types.js";
import type { StoredResponse } from "../state/api-store.js";
import type { StoredMessage } from "../state/session-store.js";
import { PLATFORM, type ServerContext } from "./context.js";
import { ApiError } from "./errors.js";

export interface ChainRequest {
  previousResponseId?: string | undefined;
  conversation?: string | undefined;
  /** Items of the request before the new user turn. */
  history: Message[];
  store: boolean;
}

export interface ChainStart {
  previous: StoredResponse | null;
  /** Continue this session ... */
  sessionId?: string;
  /** ... or start a new one from these messages. */
  history?: Message[];
}

async function conversationMessages(ctx: ServerContext, response: StoredResponse): Promise<StoredMessage[]> {
  if (!(await ctx.runtime.store.getSession(response.sessionId))) {
    throw new ApiError(404, `the conversation of response "${response.id}" no longer exists`, {
      param: "previous_response_id",
    });
  }
  const messages = await ctx.runtime.store.getMessages(response.sessionId);
  return messages.filter((m) => m.role !== "system");
}

async function previousResponse(ctx: ServerContext, namespace: string, request: ChainRequest) {
  if (request.previousResponseId) {
    const found = await ctx.store.getResponse(namespace, request.previousResponseId);
    if (!found) {
      throw new ApiError(404, `no stored response with id "${request.previousResponseId}"`, {
        param: "previous_response_id",
        code: "response_not_found",
      });
    }
    return found;
  }
  if (request.conversation) return ctx.store.latestInConversation(namespace, request.conversation);
  return null;
}

export async function startOfChain(ctx: ServerContext, namespace: string, request: ChainRequest): Promise<ChainStart> {
  const previous = await previousResponse(ctx, namespace, request);
  if (!previous) return { previous, history: request.history };
  const messages = await conversationMessages(ctx, previous);
  const upToPrevious = messages.slice(0, previous.messageCount) as Message[];
  if (!request.store) return { previous, history: [...upToPrevious, ...request.history] };
  if (messages.length === previous.messageCount && request.history.length === 0) {
    return { previous, sessionId: previous.sessionId };
  }
  const source = await ctx.runtime.store.getSession(previous.sessionId);
  const fork = await ctx.runtime.store.createSession({
    source: PLATFORM,
    parentSessionId: previous.sessionId,
    model: source?.model ?? null,
    systemPrompt: source?.systemPrompt ?? null,
  });
  await ctx.runtime.store.appendMessages(fork.id, [...upToPrevious, ...request.history]);
  await ctx.store.setSessionOwner(fork.id, namespace);
  return { previous, sessionId: fork.id };
}

/** Messages the session holds now (system prompt aside): where the next response's chain ends. */
export async function messageCount(ctx: ServerContext, sessionId: string): Promise<number> {
  const messages = await ctx.runtime.store.getMessages(sessionId);
  return messages.filter((m) => m.role !== "system").length;
}

/** What a turn added after the user's input: tool calls, their results, the answer. */
export function newMessagesOf(messages: readonly Message[]): Message[] {
  return messages.slice(lastUserMessageIndex(messages) + 1).filter((message) => !isTurnNote(message));
}
