import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { findBoundaries } from "../../src/agent/compression/boundaries.js";
import { pruneOldToolResults, shortenArgumentsJson } from "../../src/agent/compression/prune.js";
import { MISSING_RESULT_TEXT, sanitizeToolPairs } from "../../src/agent/compression/sanitize.js";
import { SUMMARY_END_MARKER, SUMMARY_TAG } from "../../src/agent/compression/summary.js";
import {
  ContextCompressor,
  type ContextCompressorOptions,
  computeThresholdTokens,
  SUMMARY_FAILURE_COOLDOWN_MS,
} from "../../src/agent/compressor.js";
import type { Message } from "../../src/llm/types.js";
import { estimateTokens } from "../../src/util/tokens.js";
import { syntheticTranscript } from "../helpers/synthetic-transcript.js";

interface Case {
  id: string;
  input: { call?: string; args?: unknown[]; class?: string; construct?: Record<string, unknown> };
  expect: { returns?: unknown; fields?: Record<string, unknown> };
}

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/hermes-cases/compressor.json", import.meta.url), "utf8"),
) as { cases: Case[] };

describe("compressor acceptance cases", () => {
  for (const c of fixture.cases) {
    test(c.id, () => {
      let result: unknown;
      if (c.input.class === "ContextCompressor") {
        const compressor = new ContextCompressor(c.input.construct as unknown as ContextCompressorOptions);
        result = c.input.call
          ? (compressor as unknown as Record<string, (...a: unknown[]) => unknown>)[c.input.call]!.apply(
              compressor,
              c.input.args ?? [],
            )
          : compressor;
      } else {
        assert.equal(c.input.call, "computeThresholdTokens");
        const [contextLength, percent, maxTokens] = c.input.args as [number, number, unknown];
        result = computeThresholdTokens(contextLength, percent, maxTokens);
      }
      if ("returns" in c.expect) assert.deepEqual(result, c.expect.returns);
      for (const [key, value] of Object.entries(c.expect.fields ?? {})) {
        assert.deepEqual((result as Record<string, unknown>)[key], value, key);
      }
    });
  }
});

/** Checks the history invariants every provider relies on; returns the first problem found. */
function historyProblem(messages: readonly Message[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const previous = messages[i - 1];
    if ((message.role === "user" || message.role === "assistant") && previous?.role === message.role) {
      return `two ${message.role} messages in a row at ${i}`;
    }
    if (message.role === "tool") {
      let j = i - 1;
      while (j >= 0 && messages[j]!.role === "tool") j--;
      const owner = messages[j];
      if (!owner?.tool_calls?.some((c) => c.id === message.tool_call_id)) return `orphan tool result at ${i}`;
    }
    if (message.role === "assistant" && message.tool_calls?.length) {
      const answered = new Set<string>();
      for (let j = i + 1; j < messages.length && messages[j]!.role === "tool"; j++) {
        answered.add(messages[j]!.tool_call_id ?? "");
      }
      const missing = message.tool_calls.find((c) => !answered.has(c.id));
      if (missing) return `tool call ${missing.id} at ${i} has no result`;
    }
  }
  return undefined;
}

function lastUser(messages: readonly Message[]): Message {
  return [...messages].reverse().find((m) => m.role === "user")!;
}

function recordingSummarizer(reply: (prompt: string, call: number) => string | Promise<string>) {
  const prompts: string[] = [];
  const budgets: number[] = [];
  const summarize = async (prompt: string, options: { maxTokens: number }) => {
    prompts.push(prompt);
    budgets.push(options.maxTokens);
    return reply(prompt, prompts.length);
  };
  return { summarize, prompts, budgets };
}

function withFinalUser(messages: Message[], text = "Now please write the release notes for all of this."): Message[] {
  return [...messages, { role: "user", content: text }];
}

const noSleep = async () => {};

describe("thresholds and budgets", () => {
  test("recalibrate moves every budget to the new window", () => {
    const compressor = new ContextCompressor({ contextLength: 200_000 });
    assert.equal(compressor.thresholdTokens, 100_000);
    compressor.recalibrate(32_000);
    assert.equal(compressor.thresholdTokens, 27_200);
    // 20% of the 27,200-token threshold, not of the window.
    assert.equal(compressor.tailTokenBudget, 5_440);
    assert.equal(compressor.maxSummaryTokens, 1_600);
    assert.equal(compressor.shouldCompress(30_000), true);
  });
  test("defaults and clamping", () => {
    const compressor = new ContextCompressor({ contextLength: 200_000, summaryTargetRatio: 0.01 });
    assert.equal(compressor.protectFirstN, 3);
    assert.equal(compressor.protectLastN, 20);
    assert.equal(compressor.summaryTargetRatio, 0.1);
    assert.equal(compressor.maxSummaryTokens, 10_000);
  });
});

describe("phase 1: pruning old tool results", () => {
  const transcript = withFinalUser(syntheticTranscript({ messages: 40 }));

  test("replaces old results with one-line summaries per tool and leaves the tail alone", () => {
    const tailStart = transcript.length - 6;
    const { messages, summarizedResults } = pruneOldToolResults(transcript, { tailStart });
    assert.ok(summarizedResults > 0);
    const terminal = messages.find((m) => m.role === "tool" && m.name === "terminal")!;
    assert.match(String(terminal.content), /^\[terminal: ran "npm test -- --grep case0" → exit 1, \d+ lines\]$/);
    const search = messages.find((m) => m.role === "tool" && m.name === "search_files")!;
    assert.equal(search.content, "[search_files: content search for 'TODO0' in src → 3 matches]");
    assert.deepEqual(messages.slice(tailStart), transcript.slice(tailStart));
    assert.notEqual(transcript[3]!.content, messages[3]!.content, "input must not be mutated");
    assert.ok(String(transcript[3]!.content).length > 200);
  });

  test("keeps only the newest full copy of identical results", () => {
    const tailStart = transcript.length - 1;
    const { messages, dedupedResults } = pruneOldToolResults(transcript, { tailStart });
    assert.ok(dedupedResults > 0);
    assert.ok(messages.some((m) => String(m.content).includes("same output as a later call")));
  });

  test("long tool-call arguments are shortened but stay valid JSON", () => {
    const big = { path: "notes.md", content: `# Title\n${"x".repeat(5_000)}"quoted"` };
    const history: Message[] = [
      { role: "user", content: "write it" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "w1", type: "function", function: { name: "write_file", arguments: JSON.stringify(big) } }],
      },
      { role: "tool", tool_call_id: "w1", name: "write_file", content: "ok" },
      { role: "user", content: "thanks" },
    ];
    const { messages, truncatedArguments } = pruneOldToolResults(history, { tailStart: 3 });
    assert.equal(truncatedArguments, 1);
    const args = messages[1]!.tool_calls![0]!.function.arguments;
    assert.ok(args.length < 600);
    const parsed = JSON.parse(args) as { path: string; content: string };
    assert.equal(parsed.path, "notes.md");
    assert.match(parsed.content, /truncated\]$/);
    assert.equal(shortenArgumentsJson("{not json"), "{not json");
  });

  test("inline images outside the tail are removed", () => {
    const history: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(10_000)}` } },
        ],
      },
      { role: "assistant", content: "seen" },
      { role: "user", content: "next" },
    ];
    const { messages, removedImages } = pruneOldToolResults(history, { tailStart: 2 });
    assert.equal(removedImages, 1);
    assert.deepEqual(messages[0]!.content, [
      { type: "text", text: "look" },
      { type: "text", text: "[image removed to save context]" },
    ]);
  });
});

describe("phase 2: boundaries", () => {
  test("the tail never starts on a tool result", () => {
    const transcript = syntheticTranscript({ messages: 60 });
    for (let budget = 50; budget < 8_000; budget += 97) {
      const { headEnd, tailStart } = findBoundaries(transcript, {
        protectFirstN: 3,
        protectLastN: 3,
        tailTokenBudget: budget,
      });
      assert.notEqual(transcript[tailStart]?.role, "tool", `budget ${budget}`);
      assert.notEqual(transcript[headEnd]?.role, "tool", `budget ${budget}`);
    }
  });
  test("the last user message stays in the tail even with a tiny budget", () => {
    const transcript = syntheticTranscript({ messages: 60 });
    transcript.push({ role: "assistant", content: "x".repeat(4_000) });
    const last = transcript.map((m) => m.role).lastIndexOf("user");
    const { tailStart } = findBoundaries(transcript, { protectFirstN: 3, protectLastN: 1, tailTokenBudget: 10 });
    assert.ok(tailStart <= last);
  });
});

describe("compress on a 200-message transcript", () => {
  const options = { contextLength: 64_000, sleep: noSleep };

  test("keeps pairing, alternation and the last user message; summarizes the middle", async () => {
    const transcript = withFinalUser(syntheticTranscript({ messages: 200 }));
    assert.ok(transcript.length >= 200);
    const { summarize, prompts, budgets } = recordingSummarizer(() => "## Active Task\nwrite release notes");
    const compressor = new ContextCompressor({ ...options, summarize });
    const result = await compressor.compress(transcript);

    assert.equal(result.compressed, true);
    assert.equal(result.summary, "## Active Task\nwrite release notes");
    assert.equal(historyProblem(result.messages), undefined);
    assert.deepEqual(lastUser(result.messages), lastUser(transcript));
    assert.equal(result.messages.at(-1), transcript.at(-1));
    assert.ok(result.tokensAfter < result.tokensBefore / 2);
    assert.equal(result.tokensBefore, estimateTokens(transcript));
    assert.equal(result.droppedMessages, 0);
    assert.ok(result.summarizedMessages > 100);
    assert.equal(result.messages[0]!.role, "system");
    assert.match(String(result.messages[0]!.content), /condensed into a summary/);
    assert.ok(result.messages.some((m) => String(m.content).startsWith(SUMMARY_TAG)));
    assert.equal(prompts.length, 1);
    for (const section of ["## Active Task", "## Goal", "## Progress", "## Key Decisions", "## Files Touched"]) {
      assert.ok(prompts[0]!.includes(section), section);
    }
    assert.ok(prompts[0]!.includes("## Open Questions") && prompts[0]!.includes("## Remaining Work"));
    assert.ok(budgets[0]! >= 1 && budgets[0]! <= compressor.maxSummaryTokens);
  });

  test("the second pass feeds the previous summary back in", async () => {
    const { summarize, prompts } = recordingSummarizer((_p, n) => `SUMMARY-NUMBER-${n}`);
    const compressor = new ContextCompressor({ ...options, summarize });
    const first = await compressor.compress(withFinalUser(syntheticTranscript({ messages: 200 })));
    const grown = withFinalUser([...first.messages, ...syntheticTranscript({ messages: 150 }).slice(1)], "and tag it");
    const second = await compressor.compress(grown);

    assert.equal(second.compressed, true);
    assert.equal(prompts.length, 2);
    assert.ok(prompts[1]!.includes("PREVIOUS SUMMARY:\nSUMMARY-NUMBER-1"));
    assert.equal(prompts[1]!.split("SUMMARY-NUMBER-1").length, 2, "the old summary appears once, not again as a turn");
    assert.equal(historyProblem(second.messages), undefined);
    assert.equal(lastUser(second.messages).content, "and tag it");
    assert.equal(compressor.previousSummary, "SUMMARY-NUMBER-2");
  });

  test("a fresh compressor picks up a summary carried in the history", async () => {
    const first = await new ContextCompressor({ ...options, summarize: async () => "CARRIED" }).compress(
      withFinalUser(syntheticTranscript({ messages: 200 })),
    );
    const { summarize, prompts } = recordingSummarizer(() => "NEXT");
    await new ContextCompressor({ ...options, summarize }).compress(
      withFinalUser([...first.messages, ...syntheticTranscript({ messages: 150 }).slice(1)]),
    );
    assert.ok(prompts[0]!.includes("PREVIOUS SUMMARY:\nCARRIED"));
  });

  test("a focus topic is passed to the summarizer", async () => {
    const { summarize, prompts } = recordingSummarizer(() => "s");
    const compressor = new ContextCompressor({ ...options, summarize });
    await compressor.compress(withFinalUser(syntheticTranscript({ messages: 200 })), { focusTopic: "database schema" });
    assert.match(prompts[0]!, /FOCUS: .*"database schema"/);
  });

  test("a failing summarizer is retried twice with backoff, then the history is returned unchanged", async () => {
    const transcript = withFinalUser(syntheticTranscript({ messages: 200 }));
    const snapshot = structuredClone(transcript);
    const delays: number[] = [];
    let calls = 0;
    let clock = 1_000;
    const compressor = new ContextCompressor({
      ...options,
      summarize: async () => {
        calls++;
        throw new Error("aux model unavailable");
      },
      sleep: async (ms) => {
        delays.push(ms);
      },
      now: () => clock,
    });
    const result = await compressor.compress(transcript);

    assert.equal(calls, 3);
    assert.deepEqual(delays, [1_000, 2_000]);
    assert.equal(result.compressed, false);
    assert.match(result.reason ?? "", /aux model unavailable/);
    assert.deepEqual(result.messages, snapshot);
    assert.deepEqual(transcript, snapshot);
    assert.equal(result.droppedMessages, 0);
    assert.equal(result.tokensAfter, result.tokensBefore);
    // Automatic compression waits before calling the failing summarizer again.
    assert.equal(compressor.shouldCompress(60_000), false);
    clock += SUMMARY_FAILURE_COOLDOWN_MS;
    assert.equal(compressor.shouldCompress(60_000), true);
  });

  test("a summarizer that recovers on the last retry still compresses", async () => {
    let calls = 0;
    const compressor = new ContextCompressor({
      ...options,
      summarize: async () => {
        calls++;
        if (calls < 3) throw new Error("flaky");
        return "ok summary";
      },
    });
    const result = await compressor.compress(withFinalUser(syntheticTranscript({ messages: 200 })));
    assert.equal(result.compressed, true);
    assert.equal(result.summary, "ok summary");
  });

  test("with abort_on_summary_failure a failed summary drops nothing, even on an overflow", async () => {
    const transcript = withFinalUser(syntheticTranscript({ messages: 200 }));
    const compressor = new ContextCompressor({
      ...options,
      summarize: async () => {
        throw new Error("summary model down");
      },
      abortOnSummaryFailure: true,
    });
    const result = await compressor.compress(transcript, { contextOverflow: true });
    assert.equal(result.compressed, false);
    assert.equal(result.droppedMessages, 0);
    assert.deepEqual(result.messages, transcript);
    assert.match(result.reason ?? "", /summary model down.*abort_on_summary_failure is on, so no turn was dropped/);
  });

  test("turns are dropped, and counted, only when the history cannot fit", async () => {
    const transcript = withFinalUser(syntheticTranscript({ messages: 200 }));
    const failing = async () => {
      throw new Error("down");
    };
    const overflow = await new ContextCompressor({ ...options, summarize: failing }).compress(transcript, {
      contextOverflow: true,
    });
    assert.equal(overflow.compressed, true);
    assert.ok(overflow.droppedMessages > 100);
    assert.match(overflow.reason ?? "", /dropped/);
    assert.equal(historyProblem(overflow.messages), undefined);
    assert.deepEqual(lastUser(overflow.messages), lastUser(transcript));
    assert.ok(overflow.messages.some((m) => String(m.content).includes("could not be produced")));

    // Larger than the window, but the pruning pre-pass alone makes it fit: nothing is dropped.
    const prunedOnly = await new ContextCompressor({
      contextLength: 20_000,
      summarize: failing,
      sleep: noSleep,
    }).compress(transcript);
    assert.ok(prunedOnly.tokensBefore > 20_000);
    assert.equal(prunedOnly.compressed, true);
    assert.equal(prunedOnly.droppedMessages, 0);
    assert.equal(prunedOnly.messages.length, transcript.length);
    assert.ok(prunedOnly.tokensAfter < 20_000);
    assert.match(prunedOnly.reason ?? "", /tool outputs were shortened/);

    // Too large even after pruning: dropping is needed even without an overflow error.
    const tooBig = await new ContextCompressor({ contextLength: 3_000, summarize: failing, sleep: noSleep }).compress(
      transcript,
    );
    assert.ok(tooBig.droppedMessages > 0);
    assert.ok(tooBig.tokensAfter < 3_000);
    assert.equal(historyProblem(tooBig.messages), undefined);
  });

  test("an abort during the retry wait returns the history unchanged", async () => {
    const controller = new AbortController();
    const compressor = new ContextCompressor({
      ...options,
      summarize: async () => {
        throw new Error("down");
      },
      sleep: async () => {
        controller.abort();
      },
    });
    const transcript = withFinalUser(syntheticTranscript({ messages: 200 }));
    const result = await compressor.compress(transcript, { signal: controller.signal });
    assert.equal(result.compressed, false);
    assert.equal(result.reason, "aborted");
    assert.deepEqual(result.messages, transcript);
  });

  test("backs off after two passes that free less than 10%, until recalibrated", async () => {
    const transcript = withFinalUser(syntheticTranscript({ messages: 200 }));
    const compressor = new ContextCompressor({
      ...options,
      summarize: async () => "y".repeat(estimateTokens(transcript) * 4),
    });
    assert.equal(compressor.shouldCompress(64_000), true);
    await compressor.compress(transcript);
    assert.equal(compressor.shouldCompress(64_000), true);
    const second = await compressor.compress(transcript);
    assert.equal(compressor.shouldCompress(64_000), false);
    assert.match(second.reason ?? "", /\/new/);
    compressor.recalibrate(64_000);
    assert.equal(compressor.shouldCompress(64_000), true);
  });
});

describe("phase 4: role of the summary", () => {
  const text = (role: "user" | "assistant", content: string): Message => ({ role, content });
  const compressor = () =>
    // Ratio 0.1 keeps the verbatim tail at 680 tokens (10% of the 6,800-token threshold).
    new ContextCompressor({
      contextLength: 8_000,
      protectFirstN: 2,
      protectLastN: 3,
      summaryTargetRatio: 0.1,
      summarize: async () => "S",
    });

  test("merged into the first tail message when neither role fits", async () => {
    const history: Message[] = [
      { role: "system", content: "sys" },
      text("user", "u1"),
      text("assistant", "a1"),
      text("user", "u2"),
      text("assistant", "a2"),
      text("user", "u3"),
      text("assistant", "a".repeat(4_000)),
      text("user", "u4"),
    ];
    const result = await compressor().compress(history);
    assert.equal(historyProblem(result.messages), undefined);
    assert.deepEqual(
      result.messages.map((m) => m.role),
      ["system", "user", "assistant", "user", "assistant", "user"],
    );
    const merged = String(result.messages[3]!.content);
    assert.ok(merged.startsWith(SUMMARY_TAG));
    assert.ok(merged.endsWith(`${SUMMARY_END_MARKER}\n\nu3`));
  });

  test("a user summary with the end marker between tool results and an assistant message", async () => {
    const call = (id: string) => [{ id, type: "function" as const, function: { name: "terminal", arguments: "{}" } }];
    const history: Message[] = [{ role: "system", content: "sys" }, text("user", "one long task")];
    for (let i = 0; i < 6; i++) {
      history.push({ role: "assistant", content: null, tool_calls: call(`c${i}`) });
      history.push({ role: "tool", tool_call_id: `c${i}`, name: "terminal", content: `r${i} `.repeat(400) });
    }
    history.push(text("assistant", "done"));
    const result = await compressor().compress(history);
    assert.equal(result.compressed, true);
    assert.equal(historyProblem(result.messages), undefined);
    const index = result.messages.findIndex((m) => String(m.content).startsWith(SUMMARY_TAG));
    const summary = result.messages[index]!;
    assert.equal(summary.role, "user");
    assert.equal(result.messages[index - 1]!.role, "tool");
    assert.equal(result.messages[index + 1]!.role, "assistant");
    assert.ok(String(summary.content).endsWith(SUMMARY_END_MARKER));
  });

  test("an assistant summary between tool results and a user message", async () => {
    const call = [{ id: "c0", type: "function" as const, function: { name: "terminal", arguments: "{}" } }];
    const history: Message[] = [
      { role: "system", content: "sys" },
      text("user", "u1"),
      { role: "assistant", content: null, tool_calls: call },
      { role: "tool", tool_call_id: "c0", name: "terminal", content: "ok" },
      text("assistant", "a1"),
      text("user", "u2"),
      text("assistant", "a".repeat(4_000)),
      text("user", "u3"),
    ];
    const result = await new ContextCompressor({
      contextLength: 8_000,
      protectFirstN: 2,
      protectLastN: 3,
      summaryTargetRatio: 0.1,
      summarize: async () => "S",
    }).compress(history);
    assert.equal(historyProblem(result.messages), undefined);
    const summary = result.messages.find((m) => String(m.content).startsWith(SUMMARY_TAG))!;
    assert.equal(summary.role, "assistant");
    assert.ok(!String(summary.content).includes(SUMMARY_END_MARKER));
  });
});

describe("phase 5: tool pair sanitation", () => {
  test("orphan results are removed and unanswered calls get a placeholder result", () => {
    const call = (id: string) => ({ id, type: "function" as const, function: { name: "terminal", arguments: "{}" } });
    const history: Message[] = [
      { role: "user", content: "go" },
      { role: "tool", tool_call_id: "gone", content: "orphan" },
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "A" },
      { role: "tool", tool_call_id: "zzz", content: "stray" },
      { role: "user", content: "more" },
      { role: "assistant", content: null, tool_calls: [call("c")] },
    ];
    const result = sanitizeToolPairs(history);
    assert.equal(result.removedResults, 2);
    assert.equal(result.addedResults, 1);
    assert.deepEqual(
      result.messages.map((m) => m.tool_call_id ?? m.role),
      ["user", "assistant", "a", "b", "user", "assistant"],
    );
    assert.equal(result.messages[3]!.content, MISSING_RESULT_TEXT);
  });
  test("adjacent user messages left by removals are merged", () => {
    const result = sanitizeToolPairs([
      { role: "user", content: "one" },
      { role: "tool", tool_call_id: "x", content: "orphan" },
      { role: "user", content: "two" },
    ]);
    assert.deepEqual(result.messages, [{ role: "user", content: "one\n\ntwo" }]);
  });
});

test("a second compression in a one-message task still has a middle: an earlier summary is not the user's request", async () => {
  const { ContextCompressor: Compressor } = await import("../../src/agent/compressor.js");
  const big = "x".repeat(6000);
  const history: Message[] = [{ role: "user", content: "print numbers" }];
  const addRound = (i: number) => {
    history.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${i}`, type: "function", function: { name: "terminal", arguments: "{}" } }],
    });
    history.push({ role: "tool", tool_call_id: `c${i}`, content: big });
  };
  for (let i = 0; i < 5; i++) addRound(i);
  const compressor = new Compressor({ contextLength: 9000, protectLastN: 4, summarize: async () => "notes so far" });
  const first = await compressor.compress(history);
  assert.equal(first.compressed, true);
  const again = [...first.messages];
  history.length = 0;
  history.push(...again);
  for (let i = 5; i < 9; i++) addRound(i);
  const second = await compressor.compress(history);
  assert.equal(second.compressed, true, second.reason);
  assert.ok(second.summarizedMessages > 0);
});
