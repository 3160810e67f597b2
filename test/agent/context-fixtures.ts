/** Shared pieces for the context, compression and memory tests of the agent. */
import type { Message } from "../../src/llm/types.js";
import type { FakeProviderOptions, RecordedRequest, ScriptedTurn } from "../fake-provider/types.js";

/** A request the compressor sent to write a summary (not a turn of the conversation). */
export function isSummaryRequest(req: RecordedRequest): boolean {
  const messages = (req.body?.messages ?? []) as Message[];
  const first = messages[0];
  return messages.length === 1 && typeof first?.content === "string" && first.content.includes("context checkpoint");
}

export const SUMMARY_TEXT = [
  "## Active Task",
  '"Build the report from the data"; tool calls are still running.',
  "## Progress",
  "### Done",
  "1. echoed the data chunks",
].join("\n");

/**
 * A fake-provider script that answers summary requests with `summary` (a text, or a turn such
 * as a fault) and plays `turns` in order for every other request.
 */
export function withSummaries(turns: ScriptedTurn[], summary: string | ScriptedTurn = SUMMARY_TEXT) {
  let next = 0;
  const options: FakeProviderOptions = {
    fallback: (req) => {
      if (isSummaryRequest(req)) return typeof summary === "string" ? { text: summary } : summary;
      return turns[next++] ?? { text: "ok" };
    },
  };
  return options;
}

/** Model requests only: no summary calls, no GET probes. */
export function turnRequests(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => r.method === "POST" && !isSummaryRequest(r));
}

/** The system prompt a chat-completions request carried. */
export function systemOf(req: RecordedRequest): string {
  return String((req.body.messages as Message[])[0]?.content ?? "");
}

export function echoCall(text: string, id?: string): ScriptedTurn {
  return { toolCalls: [{ ...(id ? { id } : {}), name: "echo", arguments: { text } }] };
}

export const OVERFLOW_FAULT: ScriptedTurn = {
  fault: {
    kind: "status",
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 4000 tokens. However, your messages resulted in 9120 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
  },
};
