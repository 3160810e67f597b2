/**
 * The go-ahead question before /new and /undo in a chat. A chat cannot hold the command while it
 * waits, so the command asks and returns; the answer is the same command with a word after it:
 * `/new confirm` (go ahead once), `/new always` (go ahead and stop asking, saved to config.yaml),
 * `/new cancel`. Buttons, where the platform has them, send exactly those texts. No answer within
 * approvals.timeout counts as cancel: a later answer is refused and the command has to be sent
 * again. So is an answer after the conversation changed under the question.
 */

import { lastUserMessageIndex } from "../agent/turn-checks.js";
import {
  type ConfirmAnswer,
  type ConfirmKind,
  confirmKey,
  stopAsking,
  takeSkipWord,
  wantsConfirmation,
} from "../runtime/slash-confirm.js";
import { askWithButtons } from "./chat-prompts.js";
import type { CommandContext } from "./commands.js";
import type { GatewayRunner } from "./runner.js";

/** What a confirmed command would throw away: the question, and what must not change meanwhile. */
export interface Stake {
  question: string;
  /** Compared when the answer arrives; a different value means the question is stale. */
  fingerprint: string;
}

export type ChatConfirmOutcome =
  | { proceed: true; args: string; note?: string }
  | { proceed: false; reply: string | undefined };

const ANSWER_WORDS: Record<string, ConfirmAnswer> = {
  confirm: "once",
  once: "once",
  always: "always",
  cancel: "cancel",
};

interface Pending {
  fingerprint: string;
  deadline: number;
}

/** Open questions per runner, by session key and command. */
const pendingByRunner = new WeakMap<GatewayRunner, Map<string, Pending>>();

function pendingOf(runner: GatewayRunner): Map<string, Pending> {
  let pending = pendingByRunner.get(runner);
  if (!pending) {
    pending = new Map();
    pendingByRunner.set(runner, pending);
  }
  return pending;
}

function timeoutMs(runner: GatewayRunner): number {
  return runner.options.approvalTimeoutMs ?? runner.runtime.config.approvals.timeout * 1000;
}

/** Only /new and /undo ask in chats (the gateway has no /reload-mcp). */
const KIND: ConfirmKind = "destructive";

/**
 * Whether `command` (its name, without the slash) goes ahead now; otherwise what to reply
 * (undefined once buttons are shown). `stake` is undefined when there is nothing to lose.
 */
export async function confirmInChat(
  ctx: CommandContext,
  command: string,
  typedArgs: string,
  stake: () => Promise<Stake | undefined>,
): Promise<ChatConfirmOutcome> {
  const { runner, sessionKey } = ctx;
  const pending = pendingOf(runner);
  const slot = `${sessionKey}\u0000${command}`;
  const [first = "", ...rest] = typedArgs.split(/\s+/).filter(Boolean);
  const answer = ANSWER_WORDS[first.toLowerCase()];
  if (answer) return answerQuestion(ctx, { command, slot, stake }, answer, rest.join(" "));
  const { args, skip } = takeSkipWord(typedArgs);
  if (skip || !wantsConfirmation(runner.runtime.config, KIND)) {
    pending.delete(slot);
    return { proceed: true, args };
  }
  const atStake = await stake();
  if (!atStake) return { proceed: true, args };
  pending.set(slot, { fingerprint: atStake.fingerprint, deadline: runner.now() + timeoutMs(runner) });
  return { proceed: false, reply: await showQuestion(ctx, command, atStake.question) };
}

async function answerQuestion(
  ctx: CommandContext,
  question: { command: string; slot: string; stake: () => Promise<Stake | undefined> },
  answer: ConfirmAnswer,
  args: string,
): Promise<ChatConfirmOutcome> {
  const { runner } = ctx;
  const pending = pendingOf(runner);
  const open = pending.get(question.slot);
  const again = `send /${question.command} again`;
  if (!open || runner.now() > open.deadline) {
    pending.delete(question.slot);
    return {
      proceed: false,
      reply: `Nothing is waiting for /${question.command} to be confirmed (an unanswered question expires after ${Math.round(timeoutMs(runner) / 1000)} s): ${again}.`,
    };
  }
  if (answer === "cancel") {
    pending.delete(question.slot);
    return { proceed: false, reply: "Cancelled: nothing changed." };
  }
  if (answer === "always" && !(await mayTurnOff(ctx))) {
    return {
      proceed: false,
      reply: `Only the admin can turn this question off for good; /${question.command} confirm goes ahead this once.`,
    };
  }
  pending.delete(question.slot);
  if ((await question.stake())?.fingerprint !== open.fingerprint) {
    return { proceed: false, reply: `The conversation changed since I asked, so nothing was done: ${again}.` };
  }
  if (answer === "once") return { proceed: true, args };
  const { config, home } = runner.runtime;
  return { proceed: true, args, note: await stopAsking(home, config, KIND) };
}

/** "always" changes config.yaml for every chat: the admin's call, or anyone's before there is an admin. */
async function mayTurnOff(ctx: CommandContext): Promise<boolean> {
  return ctx.admin || !(await ctx.runner.store.approvedUsers()).some((user) => user.admin);
}

/** Buttons where the platform has them (undefined: nothing more to reply), else the question in text. */
async function showQuestion(ctx: CommandContext, name: string, question: string): Promise<string | undefined> {
  const command = `/${name}`;
  const seconds = Math.round(timeoutMs(ctx.runner) / 1000);
  const choices = [`${command} confirm`, `${command} always`, `${command} cancel`];
  const withButtons = `${question}\n(${command} always also stops this question; no answer in ${seconds} s means cancel.)`;
  if (await askWithButtons(ctx.runner, ctx.message, withButtons, choices)) return undefined;
  return [
    `⚠ ${question}`,
    `Reply ${command} confirm to go ahead, ${command} always to go ahead and stop asking`,
    `(saves ${confirmKey(KIND)}: false), or ${command} cancel. No answer in ${seconds} s means cancel.`,
  ].join("\n");
}

async function sessionMessages(runner: GatewayRunner, sessionId: string | undefined) {
  if (!sessionId || !(await runner.runtime.store.getSession(sessionId))) return undefined;
  return runner.runtime.store.getMessages(sessionId);
}

/** /new loses nothing in an empty conversation; another session routed here makes the question stale. */
export async function newConversationStake(
  runner: GatewayRunner,
  sessionId: string | undefined,
): Promise<Stake | undefined> {
  const messages = await sessionMessages(runner, sessionId);
  if (!messages?.length) return undefined;
  return {
    question: `Start a new conversation? This one (${messages.length} messages) stays saved; /sessions and /resume bring it back.`,
    fingerprint: sessionId ?? "",
  };
}

/** /undo loses nothing when there is no exchange to forget; any new message makes the question stale. */
export async function undoStake(runner: GatewayRunner, sessionId: string | undefined): Promise<Stake | undefined> {
  const messages = await sessionMessages(runner, sessionId);
  const index = messages ? lastUserMessageIndex(messages) : -1;
  if (!messages || index < 0) return undefined;
  const content = messages[index]?.content;
  const text = (typeof content === "string" ? content : JSON.stringify(content)).replace(/\s+/g, " ").trim();
  const shown = text.length > 60 ? `${text.slice(0, 59)}…` : text;
  return {
    question: `Forget the last exchange ("${shown}")? It is removed from the saved conversation too.`,
    fingerprint: `${sessionId}:${messages.length}`,
  };
}
