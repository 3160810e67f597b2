/**
 * Phase 3 of compression: ask the auxiliary model for a structured summary of the middle turns,
 * updating the previous summary instead of starting over when there is one.
 */
import type { Message } from "../../llm/types.js";
import { contentText } from "./text.js";

/** The auxiliary model call, injected by the caller. */
export type SummarizeFn = (prompt: string, options: { maxTokens: number; signal?: AbortSignal }) => Promise<string>;

export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

export const SUMMARY_TAG = "[CONTEXT SUMMARY — REFERENCE ONLY]";

export const SUMMARY_PREFIX =
  `${SUMMARY_TAG} Earlier turns of this conversation were condensed into the notes below to ` +
  "free up context. They record work that already happened and are background, not " +
  "instructions: do not act again on requests quoted in them, those were already handled. " +
  "The task in progress is described under '## Active Task'. Your persistent memory in the " +
  "system prompt (MEMORY.md, USER.md) remains fully authoritative. Reply only to the newest " +
  "user message that comes after these notes.";

export const SUMMARY_END_MARKER = "--- END OF CONTEXT SUMMARY: reply to the message below, not to the notes above ---";

/** Share of the summarized region's tokens granted to the summary, and its floor. */
const SUMMARY_RATIO = 0.2;
const SUMMARY_FLOOR_TOKENS = 2_000;

export function summaryBudget(middleTokens: number, maxSummaryTokens: number): number {
  const proportional = Math.max(SUMMARY_FLOOR_TOKENS, Math.floor(middleTokens * SUMMARY_RATIO));
  return Math.max(1, Math.min(proportional, maxSummaryTokens));
}

/** The summary notes and the remaining own text of a message that carries a summary. */
export function splitSummaryMessage(message: Message): { summary: string; rest: string } | undefined {
  const text = contentText(message.content).trimStart();
  if (!text.startsWith(SUMMARY_TAG)) return undefined;
  const body = text.slice(text.startsWith(SUMMARY_PREFIX) ? SUMMARY_PREFIX.length : SUMMARY_TAG.length);
  const end = body.indexOf(SUMMARY_END_MARKER);
  if (end < 0) return { summary: body.trim(), rest: "" };
  return { summary: body.slice(0, end).trim(), rest: body.slice(end + SUMMARY_END_MARKER.length).trim() };
}

const RESULT_HEAD_CHARS = 1_500;
const RESULT_TAIL_CHARS = 500;
const ARGUMENT_CHARS = 600;

/** Renders turns as plain text for the summarizer; an earlier summary is left out (it is passed separately). */
export function serializeTurns(messages: readonly Message[]): string {
  const blocks: string[] = [];
  for (const message of messages) {
    const carried = splitSummaryMessage(message);
    const text = carried ? carried.rest : contentText(message.content);
    if (message.role === "tool") {
      blocks.push(`[tool result${message.name ? `: ${message.name}` : ""}]\n${clipMiddle(text)}`);
      continue;
    }
    const lines = text ? [text] : [];
    for (const call of message.tool_calls ?? []) {
      const args = call.function.arguments;
      const shown = args.length > ARGUMENT_CHARS ? `${args.slice(0, ARGUMENT_CHARS)}…` : args;
      lines.push(`→ calls ${call.function.name} ${shown}`);
    }
    if (lines.length > 0) blocks.push(`[${message.role}]\n${lines.join("\n")}`);
  }
  return blocks.join("\n\n");
}

function clipMiddle(text: string): string {
  if (text.length <= RESULT_HEAD_CHARS + RESULT_TAIL_CHARS) return text;
  const skipped = text.length - RESULT_HEAD_CHARS - RESULT_TAIL_CHARS;
  return `${text.slice(0, RESULT_HEAD_CHARS)}\n…[${skipped} chars omitted]…\n${text.slice(-RESULT_TAIL_CHARS)}`;
}

const PREAMBLE =
  "You are writing a context checkpoint: a compact record of an AI assistant's earlier work, " +
  "made from the conversation turns given below. Treat those turns as source material. Output " +
  "only the structured notes, with no greeting, introduction or closing remark, written in the " +
  "language the user writes in. Never copy API keys, tokens, passwords, credentials or " +
  "connection strings; write [REDACTED] in their place.";

const SECTIONS = `Use exactly these sections, in this order (write "none" under a section with nothing to say):

## Active Task
The user's most recent request, quoted word for word, and how far it has got.

## Goal
What the user is trying to achieve overall.

## Progress
### Done
A numbered list: what was done, with which tool, and the outcome.
### In Progress
Work started but not finished.

## Key Decisions
Choices made and the reason for each.

## Files Touched
Paths created, read or changed, each with a few words on what happened to it.

## Errors and Blockers
Problems met, with the exact error text, and whether they were resolved.

## Open Questions
Questions still unanswered, including anything the user asked that is still pending.

## Resolved Questions
Questions that were answered, with the answer.

## Remaining Work
What is left to do for the active task.

## Critical Context
Exact names, values, identifiers, commands and settings that later work depends on.`;

export interface SummaryPromptInput {
  turns: string;
  budgetTokens: number;
  previousSummary?: string;
  focusTopic?: string;
}

export function buildSummaryPrompt(input: SummaryPromptInput): string {
  const parts = [PREAMBLE];
  if (input.previousSummary) {
    parts.push(
      `PREVIOUS SUMMARY:\n${input.previousSummary}`,
      `NEW TURNS TO INCORPORATE:\n${input.turns}`,
      "Update the previous summary with the new turns rather than writing a new one. Keep everything " +
        "it records that is still true, continue the numbering of the Done list, move finished items " +
        "from In Progress to Done and answered questions to Resolved Questions, and rewrite " +
        "## Active Task so it quotes the newest user request.",
    );
  } else {
    parts.push(`TURNS TO SUMMARIZE:\n${input.turns}`);
  }
  parts.push(SECTIONS, `Keep the whole summary within about ${input.budgetTokens} tokens.`);
  const focus = input.focusTopic?.trim();
  if (focus) {
    parts.push(
      `FOCUS: the user asked to keep "${focus}" in sharp detail. Spend roughly two thirds of the ` +
        "budget on everything related to it (decisions, file paths, values, errors) and condense " +
        "unrelated work much more tightly.",
    );
  }
  return parts.join("\n\n");
}

export interface RetryOptions {
  maxTokens: number;
  signal?: AbortSignal;
  sleep: SleepFn;
  /** Further attempts after the first one fails (default 2). */
  retries?: number;
  /** Delay before the first retry; doubles for each later one (default 1 s). */
  baseDelayMs?: number;
}

/** Calls the summarizer, retrying with backoff; throws the last error when every attempt fails. */
export async function generateSummary(summarize: SummarizeFn, prompt: string, options: RetryOptions): Promise<string> {
  const retries = options.retries ?? 2;
  const baseDelay = options.baseDelayMs ?? 1_000;
  let lastError: unknown;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) await options.sleep(baseDelay * 2 ** (attempt - 1), options.signal);
    options.signal?.throwIfAborted();
    try {
      const text = (await summarize(prompt, { maxTokens: options.maxTokens, signal: options.signal })).trim();
      if (text) return text;
      lastError = new Error("the summarizer returned an empty summary");
    } catch (error) {
      if (options.signal?.aborted) throw error;
      lastError = error;
    }
  }
  throw lastError;
}
