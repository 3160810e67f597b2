/**
 * Approvals and clarifying questions as reactions, Matrix's nearest thing to buttons: the bot
 * posts the prompt and reacts to it with each option (✅ 🔁 ♾️ ❌, or 1️⃣ 2️⃣ ... for choices), so
 * a user answers with one click on a reaction that is already there. A user's reaction to an open
 * prompt comes back to the core as the message that option stands for (`/approve session`, the
 * choice's text), from that user, in the prompt's room and thread: the core decides whether that
 * user may answer, exactly as for a typed answer. The bot's own reactions, and reactions to
 * anything else, are not answers. Typed answers keep working.
 */
import type { ChatAddress, InboundMessage } from "../../types.js";
import type { MatrixEvent } from "./inbound.js";

export interface PromptOption {
  key: string;
  /** What choosing it says to the core. */
  text: string;
  label: string;
}

export const APPROVAL_OPTIONS: readonly PromptOption[] = [
  { key: "✅", text: "/approve", label: "allow once" },
  { key: "🔁", text: "/approve session", label: "for this session" },
  { key: "♾️", text: "/approve always", label: "always" },
  { key: "❌", text: "/deny", label: "deny" },
];

const NUMBER_KEYS = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟"];

/** Choices as numbered reactions; a question with more choices than there are numbers offers none. */
export function choiceOptions(choices: readonly string[]): PromptOption[] {
  if (choices.length > NUMBER_KEYS.length) return [];
  return choices.map((choice, index) => ({ key: NUMBER_KEYS[index] as string, text: choice, label: choice }));
}

/** The prompts still open, newest kept: a long-lived gateway forgets the oldest. */
const MAX_OPEN = 200;

interface OpenPrompt {
  address: ChatAddress;
  options: readonly PromptOption[];
}

export class ReactionPrompts {
  private readonly open = new Map<string, OpenPrompt>();

  remember(eventId: string, address: ChatAddress, options: readonly PromptOption[]): void {
    this.open.set(eventId, { address, options });
    if (this.open.size > MAX_OPEN) this.open.delete(this.open.keys().next().value as string);
  }

  /** The answer a reaction event gives to an open prompt (the prompt is then closed), or undefined. */
  answerFor(roomId: string, event: MatrixEvent, botUserId: string, isDm: boolean): InboundMessage | undefined {
    if (event.type !== "m.reaction" || !event.sender || event.sender === botUserId || !event.event_id) return undefined;
    const relation = event.content?.["m.relates_to"] as
      | { rel_type?: string; event_id?: string; key?: string }
      | undefined;
    if (relation?.rel_type !== "m.annotation" || !relation.event_id || !relation.key) return undefined;
    const prompt = this.open.get(relation.event_id);
    if (!prompt || prompt.address.chatId !== roomId) return undefined;
    const option = prompt.options.find((candidate) => sameKey(candidate.key, relation.key as string));
    if (!option) return undefined;
    this.open.delete(relation.event_id);
    return {
      platform: "matrix",
      chatId: roomId,
      chatType: isDm ? "dm" : "group",
      userId: event.sender,
      text: option.text,
      messageId: event.event_id,
      ...(prompt.address.threadId ? { threadId: prompt.address.threadId } : {}),
      ...(typeof event.origin_server_ts === "number" ? { sentAt: event.origin_server_ts } : {}),
    };
  }
}

/** Clients differ on the emoji variation selector (`♾` or `♾️`): both mean the same option. */
function sameKey(a: string, b: string): boolean {
  const plain = (key: string) => key.replaceAll("\uFE0F", "");
  return plain(a) === plain(b);
}

/** The prompt's text: what is asked, and the options with their reactions. */
export function promptText(heading: string, body: string | undefined, options: readonly PromptOption[]): string {
  const legend = options.map((option) => `${option.key} ${option.label}`).join(" · ");
  return [heading, body, legend ? `React with ${legend}, or reply in text.` : undefined]
    .filter((part) => part !== undefined)
    .join("\n\n");
}
