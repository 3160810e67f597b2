/**
 * Approval and question prompts as messages with buttons, and what a press means. Approval
 * buttons carry `hermes:ap:<answer>`; a question's carry `hermes:q:<index>`, and the choice's
 * full text is kept by prompt message (a label is cut at 80 characters), falling back to the
 * pressed button's label when the prompt predates a restart.
 */
import { ButtonStyle, ComponentType } from "discord.js";
import type { ApprovalPrompt, QuestionPrompt } from "../../types.js";

const PREFIX = "hermes:";
const MAX_CONTENT = 2000;
const MAX_LABEL = 80;
const PER_ROW = 5;
const MAX_BUTTONS = 25;

export const APPROVAL_ANSWERS: Record<string, { label: string; text: string; style: ButtonStyle }> = {
  once: { label: "Allow once", text: "/approve", style: ButtonStyle.Success },
  session: { label: "Allow for this session", text: "/approve session", style: ButtonStyle.Primary },
  always: { label: "Always allow", text: "/approve always", style: ButtonStyle.Secondary },
  deny: { label: "Deny", text: "/deny", style: ButtonStyle.Danger },
};

interface Button {
  type: ComponentType.Button;
  style: ButtonStyle;
  label: string;
  custom_id: string;
}

export interface ActionRow {
  type: ComponentType.ActionRow;
  components: Button[];
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function rows(buttons: Button[]): ActionRow[] {
  const out: ActionRow[] = [];
  for (let i = 0; i < buttons.length; i += PER_ROW) {
    out.push({ type: ComponentType.ActionRow, components: buttons.slice(i, i + PER_ROW) });
  }
  return out;
}

/** A code span that a backtick run inside the command cannot close early. */
function codeBlock(text: string): string {
  return `\`\`\`\n${text.replaceAll("```", "`\u200b``")}\n\`\`\``;
}

export function approvalMessage(prompt: ApprovalPrompt): { content: string; components: ActionRow[] } {
  const head = `⚠ I want to run a command that needs your approval (${clip(prompt.reason, 300)}):`;
  const command = codeBlock(clip(prompt.command, MAX_CONTENT - head.length - 20));
  const buttons = Object.entries(APPROVAL_ANSWERS).map(([key, answer]) => ({
    type: ComponentType.Button as const,
    style: answer.style,
    label: answer.label,
    custom_id: `${PREFIX}ap:${key}`,
  }));
  return { content: `${head}\n${command}`, components: rows(buttons) };
}

export function questionMessage(prompt: QuestionPrompt): { content: string; components: ActionRow[] } {
  if (prompt.choices.length === 0) throw new Error("a question with buttons needs at least one choice");
  if (prompt.choices.length > MAX_BUTTONS) {
    throw new Error(`Discord shows at most ${MAX_BUTTONS} buttons; this question has ${prompt.choices.length} choices`);
  }
  const buttons = prompt.choices.map((choice, index) => ({
    type: ComponentType.Button as const,
    style: ButtonStyle.Secondary,
    label: clip(choice.trim() || `Choice ${index + 1}`, MAX_LABEL),
    custom_id: `${PREFIX}q:${index}`,
  }));
  return { content: clip(`❓ ${prompt.question}`, MAX_CONTENT), components: rows(buttons) };
}

export type Press = { kind: "approval"; text: string; label: string } | { kind: "question"; index: number };

export function parsePress(customId: string): Press | undefined {
  if (!customId.startsWith(PREFIX)) return undefined;
  const [kind, value] = customId.slice(PREFIX.length).split(":");
  if (kind === "ap") {
    const answer = APPROVAL_ANSWERS[value ?? ""];
    return answer ? { kind: "approval", text: answer.text, label: answer.label } : undefined;
  }
  if (kind === "q" && /^\d{1,2}$/.test(value ?? "")) return { kind: "question", index: Number(value) };
  return undefined;
}

/** The prompt's text after a press, saying who chose what; the buttons are gone. */
export function answeredContent(original: string, choice: string, who: string): string {
  const line = `\n\n→ ${clip(choice, 200)} (${clip(who, 80)})`;
  return `${clip(original, MAX_CONTENT - line.length)}${line}`;
}

/** Remembers the choices of recent questions by prompt message id. */
export class QuestionChoices {
  private readonly byMessage = new Map<string, string[]>();

  constructor(private readonly capacity = 200) {}

  remember(messageId: string, choices: string[]): void {
    this.byMessage.set(messageId, choices);
    if (this.byMessage.size > this.capacity) {
      const oldest = this.byMessage.keys().next().value;
      if (oldest !== undefined) this.byMessage.delete(oldest);
    }
  }

  choice(messageId: string, index: number): string | undefined {
    return this.byMessage.get(messageId)?.[index];
  }
}
