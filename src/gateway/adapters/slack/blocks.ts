/**
 * Block Kit for the prompts the core asks for: an approval (four buttons) and a question (one
 * button per choice). A press arrives as a `block_actions` payload; `pressedAnswer` turns it back
 * into the text the core expects, and `answeredBlocks` is what the prompt becomes once answered,
 * with no buttons left to press.
 */
import type { ApprovalPrompt, QuestionPrompt } from "../../types.js";
import { escapeMrkdwn } from "./mrkdwn.js";

export const APPROVAL_ACTIONS: Record<string, { label: string; answer: string; style?: "primary" | "danger" }> = {
  "ap:once": { label: "Allow once", answer: "/approve", style: "primary" },
  "ap:session": { label: "Allow for this session", answer: "/approve session" },
  "ap:always": { label: "Always allow", answer: "/approve always" },
  "ap:deny": { label: "Deny", answer: "/deny", style: "danger" },
};

const QUESTION_ACTION = /^q:(\d{1,3})$/;
/** Slack's limits: a button label is at most 75 characters, its value at most 2,000. */
const LABEL_MAX = 75;
const VALUE_MAX = 2000;
const SECTION_MAX = 3000;

export type Block = { type: string; [key: string]: unknown };

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function section(text: string): Block {
  return { type: "section", text: { type: "mrkdwn", text: clip(text, SECTION_MAX) } };
}

function button(actionId: string, label: string, value: string, style?: string): Block {
  return {
    type: "button",
    action_id: actionId,
    text: { type: "plain_text", text: clip(label, LABEL_MAX), emoji: true },
    value: clip(value, VALUE_MAX),
    ...(style ? { style } : {}),
  };
}

export function approvalMessage(prompt: ApprovalPrompt): { text: string; blocks: Block[] } {
  const text = `⚠ I want to run a command that needs your approval (${escapeMrkdwn(prompt.reason)}):`;
  const command = `\`\`\`\n${escapeMrkdwn(prompt.command)}\n\`\`\``;
  return {
    text: `${text}\n${command}`,
    blocks: [
      section(`${text}\n${command}`),
      {
        type: "actions",
        block_id: "approval",
        elements: Object.entries(APPROVAL_ACTIONS).map(([id, action]) =>
          button(id, action.label, action.answer, action.style),
        ),
      },
    ],
  };
}

export function questionMessage(prompt: QuestionPrompt): { text: string; blocks: Block[] } {
  const text = `❓ ${escapeMrkdwn(prompt.question)}`;
  const listed = prompt.choices.map((choice, index) => `${index + 1}. ${escapeMrkdwn(choice)}`).join("\n");
  return {
    text: `${text}\n${listed}`,
    blocks: [
      section(text),
      {
        type: "actions",
        block_id: "question",
        // Slack shows at most 25 elements in one actions block.
        elements: prompt.choices.slice(0, 25).map((choice, index) => button(`q:${index}`, choice, choice)),
      },
    ],
  };
}

export interface PressedAction {
  action_id?: unknown;
  value?: unknown;
  text?: { text?: unknown };
}

/** The inbound text a press stands for, or undefined when the button is not one of ours. */
export function pressedAnswer(action: PressedAction): { answer: string; label: string } | undefined {
  const id = typeof action.action_id === "string" ? action.action_id : "";
  const approval = APPROVAL_ACTIONS[id];
  if (approval) return { answer: approval.answer, label: approval.label };
  if (QUESTION_ACTION.test(id) && typeof action.value === "string" && action.value.trim()) {
    return { answer: action.value, label: action.value };
  }
  return undefined;
}

/** The prompt as it reads once answered: its question, then who chose what. */
export function answeredBlocks(original: unknown, label: string, userId: string): { text: string; blocks: Block[] } {
  const blocks = Array.isArray(original) ? (original as Block[]) : [];
  const kept = blocks.filter((block) => block.type === "section").slice(0, 1);
  const decision = `*${escapeMrkdwn(label)}* — chosen by <@${userId.replaceAll(/[^A-Z0-9]/gi, "")}>`;
  return {
    text: decision,
    blocks: [...kept, { type: "context", elements: [{ type: "mrkdwn", text: decision }] }],
  };
}
