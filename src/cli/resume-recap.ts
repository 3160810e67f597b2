/**
 * What a resumed session shows of itself (`display.resume_*`): its last exchanges, each the
 * user's message and the reply that closed it, cut to a few lines, so the user sees where the
 * conversation stood without paging through `/history`.
 */
import { isTurnNote } from "../agent/turn-checks.js";
import type { Message } from "../llm/types.js";

export interface RecapSettings {
  /** full: the last exchanges; minimal: one line. */
  mode: "full" | "minimal";
  exchanges: number;
  maxUserChars: number;
  maxAssistantChars: number;
  maxAssistantLines: number;
  /** Leave out exchanges whose reply was only tool calls, with no text. */
  skipToolOnly: boolean;
}

interface Exchange {
  user: string;
  reply: string;
  /** The model called tools in this exchange. */
  tools: boolean;
}

function textOf(content: Message["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "[image]")).join(" ");
}

function cut(text: string, maxChars: number, maxLines = Number.POSITIVE_INFINITY): string {
  const lines = text.trim().split("\n");
  let kept = lines.slice(0, Math.max(1, maxLines)).join("\n");
  let shortened = lines.length > maxLines;
  if (maxChars > 0 && kept.length > maxChars) {
    kept = kept.slice(0, maxChars).trimEnd();
    shortened = true;
  }
  return shortened ? `${kept}…` : kept;
}

function exchangesOf(messages: readonly Message[]): Exchange[] {
  const exchanges: Exchange[] = [];
  for (const message of messages) {
    if (message.role === "user" && !isTurnNote(message)) {
      exchanges.push({ user: textOf(message.content), reply: "", tools: false });
    } else if (message.role === "assistant" && exchanges.length > 0) {
      const exchange = exchanges[exchanges.length - 1]!;
      const text = textOf(message.content).trim();
      if (text) exchange.reply = text;
      if (message.tool_calls?.length) exchange.tools = true;
    }
  }
  return exchanges;
}

/** The lines to show for a resumed session of these messages. */
export function resumeRecap(messages: readonly Message[], settings: RecapSettings): string[] {
  const all = exchangesOf(messages);
  const header = `Resumed a session with ${messages.length} messages`;
  if (settings.mode !== "full" || all.length === 0 || settings.exchanges <= 0) {
    return [`${header}; /history shows them.`];
  }
  const shown = (settings.skipToolOnly ? all.filter((e) => e.reply !== "" || !e.tools) : all).slice(
    -settings.exchanges,
  );
  const earlier = all.length - shown.length;
  const lines = [`${header}${earlier > 0 ? ` (the last ${shown.length} exchanges; /history shows all)` : ""}:`];
  for (const exchange of shown) {
    lines.push(`you: ${cut(exchange.user, settings.maxUserChars).replaceAll("\n", " ")}`);
    if (exchange.reply) {
      lines.push(`hermes: ${cut(exchange.reply, settings.maxAssistantChars, settings.maxAssistantLines)}`);
    }
  }
  return lines;
}

/** The settings from config.yaml's `display` section. */
export function recapSettings(display: {
  resume_display: "full" | "minimal";
  resume_exchanges: number;
  resume_max_user_chars: number;
  resume_max_assistant_chars: number;
  resume_max_assistant_lines: number;
  resume_skip_tool_only: boolean;
}): RecapSettings {
  return {
    mode: display.resume_display,
    exchanges: display.resume_exchanges,
    maxUserChars: display.resume_max_user_chars,
    maxAssistantChars: display.resume_max_assistant_chars,
    maxAssistantLines: display.resume_max_assistant_lines,
    skipToolOnly: display.resume_skip_tool_only,
  };
}
