/**
 * Phase 1 of compression, with no model call: shrink what lies before the protected tail.
 * Long tool results become one-line summaries tailored to the tool, repeated identical results
 * keep only their newest full copy, oversized tool-call arguments are shortened without breaking
 * their JSON, and inline base64 images are dropped.
 */
import type { ContentPart, Message, ToolCall } from "../../llm/types.js";
import { contentText } from "./text.js";

export interface PruneOptions {
  /** Index where the protected tail starts; messages from here on are left untouched. */
  tailStart: number;
  /** Tool results shorter than this stay as they are (default 200 characters). */
  minResultChars?: number;
  /** Tool-call arguments longer than this are shortened (default 2,000 characters). */
  maxArgumentChars?: number;
}

export interface PruneResult {
  messages: Message[];
  summarizedResults: number;
  dedupedResults: number;
  truncatedArguments: number;
  removedImages: number;
}

const DEFAULT_MIN_RESULT_CHARS = 200;
const DEFAULT_MAX_ARGUMENT_CHARS = 2_000;
/** String leaves of long arguments keep this many characters. */
const ARGUMENT_LEAF_KEEP = 200;
export const IMAGE_REMOVED_TEXT = "[image removed to save context]";

interface CallInfo {
  name: string;
  args: Record<string, unknown>;
}

export function pruneOldToolResults(messages: readonly Message[], options: PruneOptions): PruneResult {
  const minChars = options.minResultChars ?? DEFAULT_MIN_RESULT_CHARS;
  const maxArgChars = options.maxArgumentChars ?? DEFAULT_MAX_ARGUMENT_CHARS;
  const tailStart = Math.max(0, Math.min(options.tailStart, messages.length));
  const calls = indexToolCalls(messages);
  const out = [...messages];
  const result: PruneResult = {
    messages: out,
    summarizedResults: 0,
    dedupedResults: 0,
    truncatedArguments: 0,
    removedImages: 0,
  };

  // Newest first, so the newest copy of a repeated result is the one kept in full.
  const seenResults = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    const text = message.role === "tool" ? contentText(message.content) : "";
    const repeated = text.length >= minChars && seenResults.has(text);
    if (text.length >= minChars) seenResults.add(text);
    if (i >= tailStart || message.role === "system") continue;

    if (message.role === "tool" && text.length >= minChars) {
      const call = calls.get(message.tool_call_id ?? "") ?? { name: message.name ?? "tool", args: {} };
      const line = repeated ? `[${call.name}: same output as a later call, omitted]` : summarizeToolResult(call, text);
      out[i] = { ...message, content: line };
      if (repeated) result.dedupedResults++;
      else result.summarizedResults++;
      continue;
    }
    let updated = message;
    if (message.tool_calls?.some((c) => c.function.arguments.length > maxArgChars)) {
      updated = { ...updated, tool_calls: message.tool_calls.map((c) => shortenCall(c, maxArgChars, result)) };
    }
    if (Array.isArray(message.content) && message.content.some(isInlineImage)) {
      updated = { ...updated, content: message.content.map((part) => replaceImage(part, result)) };
    }
    out[i] = updated;
  }
  return result;
}

function indexToolCalls(messages: readonly Message[]): Map<string, CallInfo> {
  const calls = new Map<string, CallInfo>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) {
      calls.set(call.id, { name: call.function.name, args: parseArgs(call.function.arguments) });
    }
  }
  return calls;
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function isInlineImage(part: ContentPart): boolean {
  return part.type === "image_url" && part.image_url.url.startsWith("data:");
}

function replaceImage(part: ContentPart, result: PruneResult): ContentPart {
  if (!isInlineImage(part)) return part;
  result.removedImages++;
  return { type: "text", text: IMAGE_REMOVED_TEXT };
}

function shortenCall(call: ToolCall, maxChars: number, result: PruneResult): ToolCall {
  if (call.function.arguments.length <= maxChars) return call;
  const shortened = shortenArgumentsJson(call.function.arguments);
  if (shortened === call.function.arguments) return call;
  result.truncatedArguments++;
  return { ...call, function: { ...call.function, arguments: shortened } };
}

/**
 * Shortens long string values inside a JSON document and re-serializes it, so the result is
 * still valid JSON (cutting the raw text would leave an unterminated string that providers
 * reject). Text that is not JSON is returned unchanged.
 */
export function shortenArgumentsJson(raw: string, keep = ARGUMENT_LEAF_KEEP): string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw;
  }
  const shrink = (node: unknown): unknown => {
    if (typeof node === "string") {
      return node.length > keep * 1.5 ? `${node.slice(0, keep)}…[${node.length - keep} chars truncated]` : node;
    }
    if (Array.isArray(node)) return node.map(shrink);
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, shrink(v)]));
    }
    return node;
  };
  return JSON.stringify(shrink(value));
}

/** One line that tells the model what an old tool call did, without its full output. */
export function summarizeToolResult(call: CallInfo, text: string): string {
  const { name, args } = call;
  const size = `${text.length.toLocaleString("en-US")} chars`;
  const result = parseArgs(text);
  switch (name) {
    case "terminal": {
      const output = typeof result.output === "string" ? result.output : text;
      const exit = result.exit_code ?? "?";
      return `[terminal: ran "${clip(str(args.command), 80)}" → exit ${exit}, ${countLines(output)} lines]`;
    }
    case "read_file":
      return `[read_file: read ${str(args.path)} from line ${str(args.offset ?? 1)} (${size})]`;
    case "search_files": {
      const kind = args.target === "files" ? "file search" : "content search";
      const where = str(args.path ?? ".");
      return `[search_files: ${kind} for '${clip(str(args.pattern), 60)}' in ${where} → ${countMatches(result)} matches]`;
    }
    case "write_file":
      return `[write_file: wrote ${str(args.path)} (${str(args.content).length.toLocaleString("en-US")} chars)]`;
    case "patch":
      return `[patch: edited ${str(args.path)} (${size} result)]`;
    case "web_search":
      return `[web_search: "${clip(str(args.query), 80)}" → ${countMatches(result)} results]`;
    case "web_extract":
      return `[web_extract: ${clip(str(args.urls ?? args.url), 100)} (${size})]`;
    case "delegate_task":
      return `[delegate_task: '${clip(str(args.goal), 80)}' (${size} result)]`;
    default: {
      const preview = clip(
        Object.entries(args)
          .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
          .join(", "),
        80,
      );
      return `[${name}${preview ? `: ${preview}` : ""} (${size} result)]`;
    }
  }
}

function str(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.map(str).join(", ");
  return typeof value === "string" ? value : JSON.stringify(value);
}

function clip(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

function countLines(text: string): number {
  return text === "" ? 0 : text.split("\n").length;
}

function countMatches(result: Record<string, unknown>): string {
  for (const key of ["total_count", "count", "total"]) {
    if (typeof result[key] === "number") return String(result[key]);
  }
  for (const key of ["matches", "results", "files"]) {
    const list = result[key];
    if (Array.isArray(list)) return String(list.length);
  }
  return "?";
}
