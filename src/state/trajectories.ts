/**
 * Training-data export: finished conversations appended as ShareGPT-style JSONL lines to
 * `trajectory_samples.jsonl` (completed) or `failed_trajectories.jsonl` (not completed).
 * The ephemeral system-prompt layer is execution-only and never written.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { redactObject } from "../util/redact.js";
import { hermesPaths } from "./paths.js";
import type { StoredContentPart, StoredMessage } from "./session-store.js";

export type ShareGptFrom = "system" | "human" | "gpt" | "tool";

export interface ShareGptTurn {
  from: ShareGptFrom;
  value: string;
}

export interface TrajectoryInput {
  messages: readonly StoredMessage[];
  /** Whether the conversation completed (chooses the file). */
  success: boolean;
  model: string;
  /** The stable system prompt; written as the first turn. */
  systemPrompt?: string;
  /** The per-run layer added to the system prompt during execution; removed wherever it appears. */
  ephemeral?: string;
  /** Extra fields copied onto the JSONL record (task id, toolsets, ...). */
  metadata?: Record<string, unknown>;
  now?: Date;
}

export interface TrajectoryRecord {
  conversations: ShareGptTurn[];
  timestamp: string;
  model: string;
  completed: boolean;
  [extra: string]: unknown;
}

function contentText(content: StoredMessage["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part: StoredContentPart) => (part.type === "text" ? part.text : "[image]"))
    .filter(Boolean)
    .join("\n");
}

function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function assistantValue(message: StoredMessage): string {
  const pieces: string[] = [];
  if (message.reasoning) pieces.push(`<think>\n${message.reasoning}\n</think>`);
  const text = contentText(message.content);
  if (text) pieces.push(text);
  for (const call of message.tool_calls ?? []) {
    const body = { name: call.function.name, arguments: parseArguments(call.function.arguments) };
    pieces.push(`<tool_call>\n${JSON.stringify(body)}\n</tool_call>`);
  }
  return pieces.join("\n");
}

function toolValue(message: StoredMessage): string {
  const body = {
    tool_call_id: message.tool_call_id ?? null,
    name: message.name ?? null,
    content: contentText(message.content),
  };
  return `<tool_response>\n${JSON.stringify(body)}\n</tool_response>`;
}

function withoutEphemeral(text: string, ephemeral: string | undefined): string {
  if (!ephemeral?.trim()) return text;
  return text.split(ephemeral).join("").trim();
}

export function toShareGpt(input: Pick<TrajectoryInput, "messages" | "systemPrompt" | "ephemeral">): ShareGptTurn[] {
  const turns: ShareGptTurn[] = [];
  const systemTexts =
    input.systemPrompt !== undefined
      ? [input.systemPrompt]
      : input.messages.filter((m) => m.role === "system").map((m) => contentText(m.content));
  for (const text of systemTexts) {
    const value = withoutEphemeral(text, input.ephemeral);
    if (value) turns.push({ from: "system", value });
  }
  for (const message of input.messages) {
    if (message.role === "user") turns.push({ from: "human", value: contentText(message.content) });
    else if (message.role === "assistant") turns.push({ from: "gpt", value: assistantValue(message) });
    else if (message.role === "tool") turns.push({ from: "tool", value: toolValue(message) });
  }
  return turns;
}

/** Append one conversation to the trajectory file under `home`. Returns the file written. */
export function writeTrajectory(home: string, input: TrajectoryInput): string {
  const paths = hermesPaths(home);
  const file = input.success ? paths.trajectorySamples : paths.failedTrajectories;
  const record: TrajectoryRecord = {
    ...input.metadata,
    conversations: toShareGpt(input),
    timestamp: (input.now ?? new Date()).toISOString(),
    model: input.model,
    completed: input.success,
  };
  mkdirSync(paths.home, { recursive: true });
  // One write call per record, so concurrent writers never interleave inside a line.
  // Transcripts may quote what tools printed: readable by the user only, like the session store.
  // Tool-call arguments are stored as the model wrote them; the samples are masked like any output.
  appendFileSync(file, `${JSON.stringify(redactObject(record))}\n`, { encoding: "utf8", mode: 0o600 });
  return file;
}
