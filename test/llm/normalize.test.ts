import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LlmError } from "../../src/llm/errors.js";
import {
  collect,
  deterministicToolCallId,
  normalizeFinishReason,
  type SplitPiece,
  ThinkTagSplitter,
} from "../../src/llm/normalize.js";
import type { LlmEvent } from "../../src/llm/types.js";

function split(chunks: string[]): { text: string; reasoning: string } {
  const splitter = new ThinkTagSplitter();
  const pieces: SplitPiece[] = [...chunks.flatMap((c) => splitter.push(c)), ...splitter.flush()];
  return {
    text: pieces
      .filter((p) => p.kind === "text")
      .map((p) => p.text)
      .join(""),
    reasoning: pieces
      .filter((p) => p.kind === "reasoning")
      .map((p) => p.text)
      .join(""),
  };
}

async function* from(events: LlmEvent[]): AsyncGenerator<LlmEvent> {
  yield* events;
}

describe("think-tag splitter", () => {
  const input = "Intro. <think>step one, step two</think>Answer: 7.";

  test("separates reasoning from text in one chunk", () => {
    assert.deepEqual(split([input]), { text: "Intro. Answer: 7.", reasoning: "step one, step two" });
  });

  test("gives the same result at every possible chunk boundary", () => {
    for (let i = 1; i < input.length; i++) {
      assert.deepEqual(split([input.slice(0, i), input.slice(i)]), split([input]), `split at ${i}`);
    }
  });

  test("gives the same result when streamed one character at a time", () => {
    assert.deepEqual(split([...input]), split([input]));
  });

  test("recognises <thinking>, <reasoning> and <REASONING_SCRATCHPAD>", () => {
    for (const tag of ["thinking", "reasoning", "REASONING_SCRATCHPAD"]) {
      const text = `<${tag}>plan</${tag}>done`;
      assert.deepEqual(split([...text]), { text: "done", reasoning: "plan" }, tag);
    }
  });

  test("does not close a block on a different tag's closer", () => {
    assert.deepEqual(split(["<thinking>a</think>b</thinking>c"]), { text: "c", reasoning: "a</think>b" });
  });

  test("releases a held-back partial tag that never completes", () => {
    assert.deepEqual(split(["1 < 2 and <thi"]), { text: "1 < 2 and <thi", reasoning: "" });
  });

  test("keeps an unclosed block as reasoning", () => {
    assert.deepEqual(split(["<think>still going"]), { text: "", reasoning: "still going" });
  });
});

describe("finish reasons and ids", () => {
  test("maps provider reasons to the four internal ones", () => {
    const cases: Array<[string, string]> = [
      ["end_turn", "stop"],
      ["stop_sequence", "stop"],
      ["tool_use", "tool_calls"],
      ["function_call", "tool_calls"],
      ["max_tokens", "length"],
      ["max_output_tokens", "length"],
      ["refusal", "content_filter"],
      ["content_filtered", "content_filter"],
      ["guardrail_intervened", "content_filter"],
      ["SAFETY", "content_filter"],
      ["something_new", "stop"],
    ];
    for (const [raw, expected] of cases) assert.equal(normalizeFinishReason(raw), expected, raw);
  });

  test("a reply with tool calls finishes with tool_calls unless truncated or filtered", () => {
    assert.equal(normalizeFinishReason("stop", true), "tool_calls");
    assert.equal(normalizeFinishReason(undefined, true), "tool_calls");
    assert.equal(normalizeFinishReason("length", true), "length");
  });

  test("deterministic ids depend on index, name and arguments", () => {
    const a = deterministicToolCallId(0, "read_file", '{"path":"a"}');
    assert.equal(a, deterministicToolCallId(0, "read_file", '{"path":"a"}'));
    assert.notEqual(a, deterministicToolCallId(1, "read_file", '{"path":"a"}'));
    assert.notEqual(a, deterministicToolCallId(0, "read_file", '{"path":"b"}'));
    assert.match(a, /^call_0_[0-9a-f]{12}$/);
  });
});

describe("collect", () => {
  test("assembles text, reasoning, tool calls by index, usage, continuity and finish", async () => {
    const usage = { inputTokens: 5, outputTokens: 2, cacheReadTokens: 1, cacheWriteTokens: 0, reasoningTokens: 1 };
    const reply = await collect(
      from([
        { type: "reasoning_delta", text: "hm" },
        { type: "text_delta", text: "Hi " },
        { type: "tool_call_start", index: 1, id: "b", name: "two" },
        { type: "tool_call_start", index: 0, id: "a", name: "one", responseItemId: "fc_1" },
        { type: "tool_call_delta", index: 1, argumentsDelta: '{"y":' },
        { type: "tool_call_delta", index: 0, argumentsDelta: '{"x":1}' },
        { type: "tool_call_delta", index: 1, argumentsDelta: "2}" },
        { type: "text_delta", text: "there" },
        { type: "usage", usage },
        { type: "reasoning_continuity", continuity: { openrouterDetails: [{ type: "reasoning.text" }] } },
        { type: "finish", reason: "tool_calls" },
      ]),
    );
    assert.equal(reply.text, "Hi there");
    assert.equal(reply.reasoning, "hm");
    assert.deepEqual(reply.toolCalls, [
      { id: "a", type: "function", function: { name: "one", arguments: '{"x":1}' }, responseItemId: "fc_1" },
      { id: "b", type: "function", function: { name: "two", arguments: '{"y":2}' } },
    ]);
    assert.deepEqual(reply.usage, usage);
    assert.deepEqual(reply.continuity, { openrouterDetails: [{ type: "reasoning.text" }] });
    assert.equal(reply.finish, "tool_calls");
  });

  test("refuses a stream that ended before finish", async () => {
    await assert.rejects(
      collect(from([{ type: "text_delta", text: "partial answer" }])),
      (error: unknown) => error instanceof LlmError && error.kind === "disconnect",
    );
  });

  test("passes a transport error through unchanged", async () => {
    const boom = new LlmError("boom", { kind: "timeout" });
    async function* failing(): AsyncGenerator<LlmEvent> {
      yield { type: "text_delta", text: "x" };
      throw boom;
    }
    await assert.rejects(collect(failing()), (error) => error === boom);
  });
});
