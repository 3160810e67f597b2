/**
 * The terminal UI's `display.*` settings (and the top-level `paste_collapse_*` keys) as one
 * plain object, and the pure text rules they drive: timestamps, collapsed long messages,
 * shortened reasoning, memory notices and the runtime footer. Kept free of the screen so tests
 * can pin each rule directly.
 */
import { homedir } from "node:os";
import type { HermesConfig } from "../../state/config-schema.js";

export type FinalMarkdownMode = "render" | "strip" | "raw";
export type ReasoningStyle = "code" | "blockquote" | "subtext";
export type IndicatorStyle = "kaomoji" | "emoji" | "unicode" | "ascii";

export interface DisplayOptions {
  /** `display.timestamps`: HH:MM next to each message you send and each final answer. */
  timestamps: boolean;
  /** `display.tool_preview_length`: characters of a tool call's argument preview (0 = 80). */
  toolPreviewLength: number;
  /** `display.user_message_preview`: lines kept at each end of a collapsed message. */
  userPreview: { firstLines: number; lastLines: number };
  /**
   * When a sent message is shown collapsed: more lines than `pastedLines` (it came with a
   * bracketed paste) or `typedLines` (it did not), or more characters than `chars`. 0 = no limit.
   */
  collapse: { pastedLines: number; typedLines: number; chars: number };
  /** `display.reasoning_full`: the whole reasoning instead of its last lines. */
  reasoningFull: boolean;
  /** `display.final_response_markdown`. */
  finalMarkdown: FinalMarkdownMode;
  /** `display.interim_assistant_messages`: show what the model writes before calling tools. */
  interimMessages: boolean;
  /** `display.memory_notifications`: a line when the agent changes its memory. */
  memoryNotifications: boolean;
  /** `display.runtime_footer`. */
  footer: { enabled: boolean; fields: string[] };
  /** `display.friendly_tool_labels`: "Reading file" instead of `read_file`. */
  friendlyToolLabels: boolean;
  /** `display.inline_diffs`: a short coloured diff after write_file and patch. */
  inlineDiffs: boolean;
  /** `display.skin`. */
  skin: string;
  /** `display.reasoning_style`: how shown reasoning is set off from the reply. */
  reasoningStyle: ReasoningStyle;
  /** `display.tui_status_indicator`: the frames of the busy indicator. */
  indicator: IndicatorStyle;
  /** `display.cli_refresh_interval`: seconds between status bar refreshes while busy (0 = none). */
  refreshSeconds: number;
  /** `display.persist_prompts`: an approval or clarify question leaves a line with its answer. */
  persistPrompts: boolean;
  /** `display.turn_completion_explainer`: a line when a turn ends without a real answer. */
  turnExplainer: boolean;
  /** `display.file_mutation_verifier`: a warning naming files a failed edit left unchanged. */
  fileMutationVerifier: boolean;
}

/** Characters of an argument preview when `display.tool_preview_length` is 0. */
export const DEFAULT_PREVIEW_LENGTH = 80;

export const DEFAULT_DISPLAY_OPTIONS: DisplayOptions = {
  timestamps: false,
  toolPreviewLength: 0,
  userPreview: { firstLines: 2, lastLines: 2 },
  collapse: { pastedLines: 5, typedLines: 5, chars: 2000 },
  reasoningFull: false,
  finalMarkdown: "strip",
  interimMessages: true,
  memoryNotifications: true,
  footer: { enabled: false, fields: ["model", "context_pct", "cwd"] },
  friendlyToolLabels: true,
  inlineDiffs: true,
  skin: "default",
  reasoningStyle: "code",
  indicator: "kaomoji",
  refreshSeconds: 1,
  persistPrompts: true,
  turnExplainer: true,
  fileMutationVerifier: true,
};

export function displayOptionsFrom(config: HermesConfig): DisplayOptions {
  const d = config.display;
  return {
    timestamps: d.timestamps,
    toolPreviewLength: d.tool_preview_length,
    userPreview: { firstLines: d.user_message_preview.first_lines, lastLines: d.user_message_preview.last_lines },
    collapse: {
      pastedLines: config.paste_collapse_threshold,
      typedLines: config.paste_collapse_threshold_fallback,
      chars: config.paste_collapse_char_threshold,
    },
    reasoningFull: d.reasoning_full,
    finalMarkdown: d.final_response_markdown,
    interimMessages: d.interim_assistant_messages,
    memoryNotifications: d.memory_notifications === "on",
    footer: { enabled: d.runtime_footer.enabled, fields: d.runtime_footer.fields },
    friendlyToolLabels: d.friendly_tool_labels,
    inlineDiffs: d.inline_diffs,
    skin: d.skin,
    reasoningStyle: d.reasoning_style,
    indicator: d.tui_status_indicator,
    refreshSeconds: d.cli_refresh_interval,
    persistPrompts: d.persist_prompts,
    turnExplainer: d.turn_completion_explainer,
    fileMutationVerifier: d.file_mutation_verifier,
  };
}

/** `14:05`, in local time. */
export function clockTime(date: Date): string {
  return `${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
}

/**
 * A long message as the transcript shows it: its first and last lines around a count of what
 * is left out. The model always gets the whole message; this is only what the screen keeps.
 */
export function collapseMessage(text: string, options: DisplayOptions, pasted: boolean): string {
  const { collapse, userPreview } = options;
  const lines = text.split("\n");
  const lineLimit = pasted ? collapse.pastedLines : collapse.typedLines;
  const tooManyLines = lineLimit > 0 && lines.length > lineLimit;
  const tooManyChars = collapse.chars > 0 && text.length > collapse.chars;
  if (!tooManyLines && !tooManyChars) return text;
  const first = userPreview.firstLines;
  const last = userPreview.lastLines;
  if (lines.length > first + last) {
    const hidden = lines.length - first - last;
    const kept = [...lines.slice(0, first), `… ${hidden} more line${hidden === 1 ? "" : "s"} …`];
    if (last > 0) kept.push(...lines.slice(-last));
    return kept.join("\n");
  }
  // Few but very long lines: keep the start and the end of the text itself.
  const keep = Math.max(200, Math.floor(collapse.chars / 4));
  const hidden = text.length - 2 * keep;
  if (hidden <= 0) return text;
  return `${text.slice(0, keep)} … ${hidden} more characters … ${text.slice(-keep)}`;
}

const REASONING_LINES = 6;
const REASONING_CHARS = 600;

/** Reasoning as shown without `display.reasoning_full`: its latest lines, with a count of the rest. */
export function shortenReasoning(text: string, full: boolean): string {
  const trimmed = text.trim();
  if (full) return trimmed;
  const lines = trimmed.split("\n");
  let kept = lines.slice(-REASONING_LINES).join("\n");
  if (kept.length > REASONING_CHARS) kept = `…${kept.slice(-(REASONING_CHARS - 1))}`;
  const hidden = lines.length - Math.min(lines.length, REASONING_LINES);
  if (hidden === 0 && kept.length === trimmed.length) return trimmed;
  return hidden > 0 ? `(${hidden} earlier line${hidden === 1 ? "" : "s"})\n${kept}` : kept;
}

/** Reasoning as `display.reasoning_style` sets it off: after 💭, or with each line quoted, or bare. */
export function reasoningText(shown: string, reasoningStyle: ReasoningStyle): string {
  if (reasoningStyle === "blockquote") return shown.replace(/^/gm, "> ");
  return reasoningStyle === "subtext" ? shown : `💭 ${shown}`;
}

/** The line shown when the memory tool changed an entry, or undefined when it did not. */
export function memoryNotice(args: unknown, result: string): string | undefined {
  if (!args || typeof args !== "object") return undefined;
  const { action, target, content, old_text } = args as Record<string, unknown>;
  try {
    const parsed = JSON.parse(result) as { success?: unknown } | null;
    if (parsed && typeof parsed === "object" && parsed.success === false) return undefined;
  } catch {
    // Not JSON (cut short, or a note appended): the tool did not report a failure.
  }
  const file = target === "user" ? "USER.md" : "MEMORY.md";
  const entry = (value: unknown) => {
    const flat = typeof value === "string" ? value.replace(/\s+/g, " ").trim() : "";
    return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
  };
  if (action === "add") return `🧠 Saved to memory (${file}): ${entry(content)}`;
  if (action === "replace") return `🧠 Updated memory (${file}): ${entry(content)}`;
  if (action === "remove") return `🧠 Removed from memory (${file}): ${entry(old_text)}`;
  return undefined;
}

/** The footer fields this version knows; others in `display.runtime_footer.fields` are skipped. */
export const FOOTER_FIELDS = ["model", "context_pct", "cwd", "duration", "tokens"] as const;

export interface FooterFacts {
  model: string;
  contextPercent?: number | undefined;
  cwd: string;
  durationMs?: number | undefined;
  tokensIn?: number | undefined;
  tokensOut?: number | undefined;
}

function homeRelative(path: string): string {
  const home = homedir();
  return home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
}

/** `model · ctx 12% · ~/project`, in the order of `fields`; unknown fields and missing facts are left out. */
export function footerLine(fields: readonly string[], facts: FooterFacts): string {
  const parts: string[] = [];
  for (const field of fields) {
    if (field === "model") parts.push(facts.model);
    else if (field === "context_pct" && facts.contextPercent !== undefined) parts.push(`ctx ${facts.contextPercent}%`);
    else if (field === "cwd") parts.push(homeRelative(facts.cwd));
    else if (field === "duration" && facts.durationMs !== undefined) {
      parts.push(`${(facts.durationMs / 1000).toFixed(1)}s`);
    } else if (field === "tokens" && facts.tokensIn !== undefined) {
      parts.push(`${facts.tokensIn} in / ${facts.tokensOut ?? 0} out`);
    }
  }
  return parts.join(" · ");
}
