/**
 * Deterministic synthetic conversations for compression tests and benchmarks: user requests,
 * assistant tool calls (terminal, read_file, search_files, web_search) with bulky results,
 * repeated reads of the same file, and short assistant answers.
 */
import type { Message, ToolCall } from "../../src/llm/types.js";

export interface TranscriptOptions {
  /** Stop once the transcript has at least this many messages (default 200). */
  messages?: number;
  /** Or once it has at least this many characters (whichever comes first when both are given). */
  chars?: number;
  /** Characters of each tool result (default 1,600). */
  resultChars?: number;
}

const FILES = ["src/app.ts", "src/db.ts", "README.md", "src/routes/users.ts"];

function filler(label: string, chars: number): string {
  const line = `${label}: lorem ipsum dolor sit amet, consectetur adipiscing elit 0123456789\n`;
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

function call(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

export function syntheticTranscript(options: TranscriptOptions = {}): Message[] {
  const maxMessages = options.messages ?? (options.chars ? Number.POSITIVE_INFINITY : 200);
  const maxChars = options.chars ?? Number.POSITIVE_INFINITY;
  const resultChars = options.resultChars ?? 1_600;
  const messages: Message[] = [{ role: "system", content: "You are a helpful coding agent." }];
  let chars = 0;
  let turn = 0;
  while (messages.length < maxMessages && chars < maxChars) {
    const file = FILES[turn % FILES.length]!;
    const calls = [
      call(`call_${turn}_a`, "terminal", { command: `npm test -- --grep case${turn}` }),
      call(`call_${turn}_b`, "read_file", { path: file }),
    ];
    if (turn % 3 === 0) calls.push(call(`call_${turn}_c`, "search_files", { pattern: `TODO${turn}`, path: "src" }));
    const turnMessages: Message[] = [
      { role: "user", content: `Step ${turn}: please fix failing case ${turn} and explain what changed.` },
      { role: "assistant", content: `Looking into case ${turn}.`, tool_calls: calls },
      {
        role: "tool",
        tool_call_id: `call_${turn}_a`,
        name: "terminal",
        content: JSON.stringify({ output: filler(`test run ${turn}`, resultChars), exit_code: turn % 4 === 0 ? 1 : 0 }),
      },
      // Reads of the same file return the same text, so older copies are duplicates.
      {
        role: "tool",
        tool_call_id: `call_${turn}_b`,
        name: "read_file",
        content: JSON.stringify({ content: filler(file, resultChars), total_lines: 40 }),
      },
    ];
    if (turn % 3 === 0) {
      turnMessages.push({
        role: "tool",
        tool_call_id: `call_${turn}_c`,
        name: "search_files",
        content: JSON.stringify({ total_count: 3, matches: filler(`match ${turn}`, resultChars / 2) }),
      });
    }
    turnMessages.push({ role: "assistant", content: `Case ${turn} fixed: adjusted the handler in ${file}.` });
    for (const message of turnMessages) {
      chars += typeof message.content === "string" ? message.content.length : 0;
      for (const c of message.tool_calls ?? []) chars += c.function.arguments.length;
    }
    messages.push(...turnMessages);
    turn++;
  }
  return messages;
}
