/** Text of the TUI's one-line pieces (tool progress, status bar), kept pure so tests can pin them. */
import type { ContextStatus, SessionUsage } from "../slash/context.js";
import { formatCost, formatTokens } from "../slash/control-commands.js";

export const DEFAULT_TOOL_EMOJI = "⚙️";

export interface ToolLineInput {
  emoji?: string | undefined;
  name: string;
  /** Words for what the tool does (`display.friendly_tool_labels`), shown instead of its name. */
  label?: string | undefined;
  preview: string;
  /** Set once the tool finished. */
  durationMs?: number;
  failed?: boolean;
}

/** `💻 terminal: ls -la (0.3s)` (`💻 Running ls -la (0.3s)` with a label), ending in `…` while it runs. */
export function toolLine(input: ToolLineInput): string {
  const preview = input.preview ? `${input.label ? " " : ": "}${input.preview}` : "";
  const head = `${input.emoji ?? DEFAULT_TOOL_EMOJI} ${input.label ?? input.name}${preview}`;
  if (input.durationMs === undefined) return `${head} …`;
  return `${head} (${(input.durationMs / 1000).toFixed(1)}s)${input.failed ? " ✗" : ""}`;
}

export interface StatusInput {
  model: string;
  usage: SessionUsage;
  context?: ContextStatus | undefined;
  busy: boolean;
  queued: number;
  yolo: boolean;
  /** The session's permission mode (Shift+Tab cycles it). */
  mode?: string;
  /** Include the estimated cost (`display.show_cost`). */
  showCost?: boolean;
  /** How long the running turn has taken so far (`display.cli_refresh_interval` keeps it current). */
  busyForMs?: number | undefined;
}

/** `12s`, or `3m 05s` from a minute on. */
function runningTime(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}

export function statusText(input: StatusInput): string {
  const parts = [input.model];
  if (input.usage.turns > 0 || input.usage.inputTokens > 0) {
    parts.push(`${formatTokens(input.usage.inputTokens)} in / ${formatTokens(input.usage.outputTokens)} out`);
    if (input.showCost) parts.push(input.usage.cost === undefined ? "cost unknown" : formatCost(input.usage.cost));
  }
  if (input.context) parts.push(`ctx ${input.context.percent}%`);
  if (input.yolo || input.mode === "yolo") parts.push("YOLO");
  else if (input.mode) parts.push(`${input.mode} mode`);
  if (input.queued > 0) parts.push(`${input.queued} queued`);
  if (input.busy && input.busyForMs !== undefined) parts.push(`turn ${runningTime(input.busyForMs)}`);
  parts.push(input.busy ? "working (Ctrl+C to stop)" : "/help");
  return parts.join(" · ");
}

/** Pick the answer to an approval prompt typed as text: o/s/a/d or the whole word; anything else denies. */
export function parseApprovalAnswer(text: string): "once" | "session" | "always" | "deny" {
  const word = text.trim().toLowerCase();
  if (word === "o" || word === "once" || word === "y" || word === "yes") return "once";
  if (word === "s" || word === "session") return "session";
  if (word === "a" || word === "always") return "always";
  return "deny";
}

/** A typed clarify answer: a choice number picks that choice, anything else is the answer itself. */
export function parseClarifyAnswer(text: string, choices: readonly string[] | undefined): string {
  const trimmed = text.trim();
  const index = /^\d+$/.test(trimmed) ? Number(trimmed) - 1 : -1;
  return choices?.[index] ?? trimmed;
}
