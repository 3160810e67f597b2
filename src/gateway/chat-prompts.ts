/**
 * Questions the agent puts to a chat mid-turn: approving a command and clarifying questions.
 * Buttons where the platform has them (a press comes back as a message), text otherwise; the
 * answer arrives through the runner's pending interactions.
 */

import type { ApprovalAnswer, ApprovalRequest } from "../tools/registry.js";
import type { GatewayRunner } from "./runner.js";
import type { InboundMessage } from "./types.js";

/** Waits for /approve or /deny from the chat; no answer within approvals.timeout means deny. */
export async function askApprovalInChat(
  runner: GatewayRunner,
  message: InboundMessage,
  sessionKey: string,
  request: ApprovalRequest,
): Promise<ApprovalAnswer> {
  const timeoutMs = runner.options.approvalTimeoutMs ?? runner.runtime.config.approvals.timeout * 1000;
  const answer = runner.interactions.approval(sessionKey, timeoutMs);
  const target = await runner.replyTarget(message);
  const adapter = runner.adapter(target.platform);
  if (adapter?.askApproval) {
    // A button press comes back as an /approve or /deny message.
    try {
      await adapter.askApproval({
        chatId: target.chatId,
        threadId: target.threadId,
        command: request.command,
        reason: request.reason,
      });
      return answer;
    } catch (error) {
      runner.log(`${target.platform}: approval buttons failed (${errorText(error)}); asking in text`);
    }
  }
  await runner.reply(
    message,
    sessionKey,
    [
      `⚠ I want to run a command that needs your approval (${request.reason}):`,
      request.command,
      "Reply /approve to allow it once, /approve session for the rest of this session,",
      `/approve always to save exactly this command, or /deny. No answer in ${Math.round(timeoutMs / 1000)} s means no.`,
    ].join("\n"),
  );
  return answer;
}

/** The chat's answer: a choice pressed or typed as it is, a choice picked by number, or free text. */
export async function askQuestionInChat(
  runner: GatewayRunner,
  message: InboundMessage,
  sessionKey: string,
  question: string,
  choices?: string[],
): Promise<string> {
  const { agent, approvals } = runner.runtime.config;
  // agent.clarify_timeout (the original's key) when set; else five approval timeouts.
  const timeoutMs = (agent.clarify_timeout || approvals.timeout * 5) * 1000;
  const answer = runner.interactions.question(sessionKey, timeoutMs);
  if (!(choices?.length && (await askWithButtons(runner, message, question, choices)))) {
    const listed = choices?.length ? `\n${choices.map((c, i) => `${i + 1}. ${c}`).join("\n")}` : "";
    await runner.reply(message, sessionKey, `❓ ${question}${listed}`);
  }
  const text = (await answer).trim();
  if (choices?.includes(text)) return text;
  const picked = /^\d+$/.test(text) ? choices?.[Number(text) - 1] : undefined;
  return picked ?? text;
}

/** False when the platform has no buttons or showing them failed. */
export async function askWithButtons(
  runner: GatewayRunner,
  message: InboundMessage,
  question: string,
  choices: string[],
): Promise<boolean> {
  const target = await runner.replyTarget(message);
  const adapter = runner.adapter(target.platform);
  if (!adapter?.askQuestion) return false;
  try {
    await adapter.askQuestion({ chatId: target.chatId, threadId: target.threadId, question, choices });
    return true;
  } catch (error) {
    runner.log(`${target.platform}: question buttons failed (${errorText(error)}); asking in text`);
    return false;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
