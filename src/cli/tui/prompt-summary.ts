/**
 * `display.persist_prompts`: an approval or clarify question disappears from above the input once
 * answered; these are the lines the transcript keeps instead, so scrolling back shows what was
 * asked and what was decided.
 */
import type { ApprovalAnswer, ApprovalRequest } from "../../tools/registry.js";

const SHOWN_CHARS = 80;

/** One line of text from the model, safe to print. */
function oneLine(text: string): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > SHOWN_CHARS ? `${flat.slice(0, SHOWN_CHARS - 1)}…` : flat;
}

const DECISIONS: Record<ApprovalAnswer, string> = {
  once: "allowed this once",
  session: "allowed for the rest of this session",
  always: "always allowed (saved to command_allowlist)",
  deny: "denied",
};

/** `⚠ rm -r build (recursive delete): denied` */
export function approvalSummary(request: ApprovalRequest, answer: ApprovalAnswer): string {
  return `⚠ ${oneLine(request.command)} (${oneLine(request.reason)}): ${DECISIONS[answer] ?? DECISIONS.deny}`;
}

/** `? Which file? → src/app.ts` */
export function clarifySummary(question: string, answer: string): string {
  return `? ${oneLine(question)} → ${answer.trim() ? oneLine(answer) : "(no answer)"}`;
}
