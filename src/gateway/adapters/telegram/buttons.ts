/**
 * Inline keyboards for approvals and questions, and what a press on one means. Callback data is
 * short (`ap:once`, `q:2`) and comes from whoever pressed: anything else is refused.
 */
import type { InlineKeyboardMarkup } from "grammy/types";

export const APPROVAL_BUTTONS = [
  { data: "ap:once", label: "Allow once", command: "/approve", outcome: "Allowed once" },
  {
    data: "ap:session",
    label: "Allow for this session",
    command: "/approve session",
    outcome: "Allowed for this session",
  },
  { data: "ap:always", label: "Always allow", command: "/approve always", outcome: "Always allowed" },
  { data: "ap:deny", label: "Deny", command: "/deny", outcome: "Denied" },
] as const;

export function approvalKeyboard(): InlineKeyboardMarkup {
  const [once, session, always, deny] = APPROVAL_BUTTONS;
  const button = (b: (typeof APPROVAL_BUTTONS)[number]) => ({ text: b.label, callback_data: b.data });
  return {
    inline_keyboard: [
      [button(once), button(session)],
      [button(always), button(deny)],
    ],
  };
}

export function questionKeyboard(choices: string[]): InlineKeyboardMarkup {
  return {
    inline_keyboard: choices.map((choice, index) => [{ text: choice.slice(0, 120), callback_data: `q:${index}` }]),
  };
}

/** A prompt this adapter sent and nobody has answered yet. */
export interface OpenPrompt {
  /** The prompt as sent (MarkdownV2), to show again with the decision under it. */
  text: string;
  choices?: string[];
}

export interface Press {
  /** The inbound text the press stands for. */
  text: string;
  /** What the prompt shows once decided. */
  outcome: string;
}

/** What a press means, or undefined when the data is not one of our buttons. */
export function readPress(
  data: string,
  prompt: OpenPrompt | undefined,
  keyboard?: InlineKeyboardMarkup,
): Press | undefined {
  const approval = APPROVAL_BUTTONS.find((b) => b.data === data);
  if (approval) return { text: approval.command, outcome: approval.outcome };
  const question = /^q:(\d{1,3})$/.exec(data);
  if (!question) return undefined;
  const index = Number(question[1]);
  // After a restart only the keyboard still on the message tells what the choice was.
  const choice =
    prompt?.choices?.[index] ??
    keyboard?.inline_keyboard.flat().find((b) => "callback_data" in b && b.callback_data === data)?.text;
  return choice === undefined ? undefined : { text: choice, outcome: `Answered: ${choice}` };
}

const MAX_REMEMBERED = 200;

/**
 * Prompts by chat and message id: open ones, and which were already decided so a second press
 * (before the keyboard is gone) is not taken as a second answer. The oldest are forgotten.
 */
export class OpenPrompts {
  private readonly open = new Map<string, OpenPrompt>();
  private readonly decided = new Set<string>();

  add(chatId: string, messageId: string, prompt: OpenPrompt): void {
    this.open.set(`${chatId}:${messageId}`, prompt);
    trim(this.open);
  }

  /** Marks the prompt decided: `first` is false when it already was. */
  decide(chatId: string, messageId: string): { first: boolean; prompt: OpenPrompt | undefined } {
    const key = `${chatId}:${messageId}`;
    if (this.decided.has(key)) return { first: false, prompt: undefined };
    const prompt = this.open.get(key);
    this.open.delete(key);
    this.decided.add(key);
    trim(this.decided);
    return { first: true, prompt };
  }
}

function trim(items: Map<string, unknown> | Set<string>): void {
  for (const key of items.keys()) {
    if (items.size <= MAX_REMEMBERED) return;
    items.delete(key);
  }
}
