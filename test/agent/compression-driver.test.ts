import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BETWEEN_TURNS_SHARE,
  CompressionDriver,
  type CompressionDriverOptions,
  PROBE_AFTER_TOKENS,
  type PromptState,
  summarizeWithRoute,
} from "../../src/agent/compression-driver.js";
import type { CompressionResult, CompressOptions, SummarizeFn } from "../../src/agent/compressor.js";
import { ContextCompressor } from "../../src/agent/compressor.js";
import type { ContextEngine, ContextEngineInput } from "../../src/agent/context-engine.js";
import { DEFAULT_CONTEXT_LENGTH } from "../../src/agent/context-window.js";
import { AgentEmitter, type AgentEvent } from "../../src/agent/events.js";
import type { ModelRoute } from "../../src/agent/model-call.js";
import type { LlmEvent, LlmRequest, Message, Transport } from "../../src/llm/types.js";
import { estimateTextTokens, estimateTokens } from "../../src/util/tokens.js";

/** A model that is in no catalog, so only a probe (or the default) can tell its window. */
const LOCAL = { model: "local-test-model-without-catalog-entry", baseUrl: "http://127.0.0.1:9/v1" };

function recorder() {
  const emitter = new AgentEmitter();
  const events: AgentEvent[] = [];
  emitter.on((event) => events.push(event));
  const statuses = () => events.flatMap((e) => (e.type === "status" ? [`${e.kind}: ${e.message}`] : []));
  return { emitter, events, statuses };
}

/** The label that starts message `i` of `turns`. */
const label = (i: number) => `message-${String(i).padStart(2, "0")} `;

/** Numbered user/assistant turns of 11 + `chars` characters each. */
function turns(count: number, chars = 0): Message[] {
  return Array.from({ length: count }, (_, i) => ({
    role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
    content: `${label(i)}${"x".repeat(chars)}`,
  }));
}

function state(history: readonly Message[], systemPrompt = "You are a test."): PromptState {
  return { systemPrompt, history, toolTokens: 0 };
}

/** A summarizer that records the prompts it was given. */
function summarizer(text = "the summary") {
  const prompts: string[] = [];
  const summarize: SummarizeFn = async (prompt) => {
    prompts.push(prompt);
    return text;
  };
  return { summarize, prompts };
}

function probeCounting(window: number) {
  const calls: string[] = [];
  const probe = async (options: { baseUrl: string; model: string }) => {
    calls.push(`${options.baseUrl} ${options.model}`);
    return window;
  };
  return { probe, calls };
}

function driverWith(options: Partial<CompressionDriverOptions> = {}) {
  const { emitter, statuses } = recorder();
  const { summarize, prompts } = summarizer();
  const driver = new CompressionDriver({ window: { model: "m", configured: 200_000 }, summarize, emitter, ...options });
  return { driver, statuses, prompts };
}

/** A context engine whose answers a test scripts, recording what the driver asks of it. */
class ScriptedEngine implements ContextEngine {
  contextLength = 0;
  backedOff = false;
  resets = 0;
  readonly recalibrations: number[] = [];
  readonly compressions: Array<{ messages: readonly Message[]; options: CompressOptions | undefined }> = [];

  constructor(
    readonly input: ContextEngineInput,
    private readonly answer: (messages: readonly Message[]) => Partial<CompressionResult>,
  ) {
    this.contextLength = input.contextLength;
  }

  recalibrate(contextLength: number): void {
    this.recalibrations.push(contextLength);
    this.contextLength = contextLength;
  }

  shouldCompress(promptTokens: number): boolean {
    return promptTokens >= this.contextLength / 2;
  }

  resetBackoff(): void {
    this.resets++;
  }

  async compress(messages: readonly Message[], options?: CompressOptions): Promise<CompressionResult> {
    this.compressions.push({ messages, options });
    return {
      messages: [...messages],
      compressed: true,
      tokensBefore: 0,
      tokensAfter: 0,
      droppedMessages: 0,
      summarizedMessages: 0,
      prunedToolResults: 0,
      ...this.answer(messages),
    };
  }
}

function scripted(
  answer: (messages: readonly Message[]) => Partial<CompressionResult> = () => ({}),
  options: Partial<CompressionDriverOptions> = {},
) {
  const engines: ScriptedEngine[] = [];
  const { emitter, statuses } = recorder();
  const driver = new CompressionDriver({
    window: { model: "m", configured: 10_000 },
    summarize: async () => "unused",
    emitter,
    engine: (input) => {
      const engine = new ScriptedEngine(input, answer);
      engines.push(engine);
      return engine;
    },
    ...options,
  });
  assert.equal(engines.length, 1);
  return { driver, engine: engines[0]!, statuses };
}

test("a context engine is built from the default window, the output reservation, the settings and the summarizer", () => {
  const settings = { threshold: 0.7, protectLastN: 9 };
  const summarize: SummarizeFn = async () => "s";
  const inputs: ContextEngineInput[] = [];
  const build = (maxTokens: number | undefined) =>
    new CompressionDriver({
      window: { model: "m", configured: 50_000 },
      maxTokens,
      settings,
      summarize,
      emitter: new AgentEmitter(),
      engine: (input) => {
        inputs.push(input);
        return new ScriptedEngine(input, () => ({}));
      },
    });
  const driver = build(4_096);
  build(undefined);
  assert.equal(inputs.length, 2);
  assert.equal(inputs[0]!.contextLength, DEFAULT_CONTEXT_LENGTH);
  assert.equal(inputs[0]!.maxTokens, 4_096);
  assert.equal(inputs[0]!.settings, settings);
  assert.equal(inputs[0]!.summarize, summarize);
  assert.equal(inputs[1]!.maxTokens, null);
  // The configured window replaces the default through recalibrate.
  assert.equal(driver.contextLength, 50_000);
});

test("compression.threshold decides when the built-in compressor compresses", async () => {
  const history = turns(30, 400);
  const atDefault = driverWith();
  const atNinety = driverWith({ settings: { threshold: 0.9 } });
  for (const { driver } of [atDefault, atNinety]) driver.recordUsage(150_000, history.length);
  assert.ok(await atDefault.driver.maybeCompress(state(history), "preflight"), "150k of 200k is past the default 50%");
  assert.equal(await atNinety.driver.maybeCompress(state(history), "preflight"), undefined, "but not past 90%");
  atNinety.driver.recordUsage(180_000, history.length);
  assert.ok(await atNinety.driver.maybeCompress(state(history), "preflight"), "180k of 200k is at 90%");
});

test("the output reservation shrinks the window the threshold is a share of", async () => {
  const history = turns(30, 400);
  const reserving = driverWith({ maxTokens: 40_000 });
  const plain = driverWith();
  for (const { driver } of [reserving, plain]) driver.recordUsage(90_000, history.length);
  // Half of 200k - 40k is 80k; half of 200k is 100k.
  assert.ok(await reserving.driver.maybeCompress(state(history), "preflight"), "90k is past half of 160k");
  assert.equal(await plain.driver.maybeCompress(state(history), "preflight"), undefined);
});

test("protect_first_n, protect_last_n and target_ratio decide which turns the summary takes", async () => {
  // 40 turns in a 4,000-token window: the threshold is 85% of the window (64,000 does not fit),
  // the tail budget 3,400 * ratio tokens, and the tail may grow to 1.5 times that to keep
  // protect_last_n messages.
  const history = turns(40, 328);
  const summarized = async (settings: CompressionDriverOptions["settings"]) => {
    const { driver, prompts } = driverWith({ window: { model: "m", configured: 4_000 }, settings });
    const result = await driver.run(state(history), "manual");
    assert.equal(prompts.length, 1);
    const inPrompt = history.map((_, i) => prompts[0]!.includes(label(i)));
    return { first: inPrompt.indexOf(true), last: inPrompt.lastIndexOf(true), count: result.summarizedMessages };
  };
  const defaults = await summarized(undefined);
  assert.equal(defaults.first, 3, "three messages after the system prompt are kept by default");
  const head = await summarized({ protectFirstN: 1 });
  assert.equal(head.first, 1);
  assert.equal(head.count, defaults.count + 2);

  // A ratio of 0.1 gives a 200-token tail: four messages, or up to six when protect_last_n asks.
  const small = await summarized({ targetRatio: 0.1, protectLastN: 4 });
  const wider = await summarized({ targetRatio: 0.1, protectLastN: 6 });
  assert.equal(history.length - 1 - small.last, 4);
  assert.equal(history.length - 1 - wider.last, 6);
  const larger = await summarized({ targetRatio: 0.3, protectLastN: 4 });
  assert.ok(larger.last < small.last - 4, `a larger ratio keeps a longer tail: ${larger.last} vs ${small.last}`);
});

test("compression.summary_retry_delay_ms is the wait before the summarizer's first retry", async (t) => {
  const delays: number[] = [];
  t.mock.method(globalThis, "setTimeout", ((callback: () => void, ms?: number) => {
    delays.push(ms ?? 0);
    queueMicrotask(callback);
    return 0;
  }) as unknown as typeof setTimeout);
  let calls = 0;
  const summarize: SummarizeFn = async () => {
    calls++;
    if (calls === 1) throw new Error("summarizer busy");
    return "the summary";
  };
  const { emitter } = recorder();
  const driver = new CompressionDriver({
    window: { model: "m", configured: 4_000 },
    settings: { summaryRetryDelayMs: 4_321 },
    summarize,
    emitter,
  });
  const result = await driver.run(state(turns(40, 189)), "manual");
  assert.equal(calls, 2);
  assert.match(result.summary ?? "", /the summary/);
  assert.deepEqual(delays, [4_321]);
});

test("the prompt count is the provider's last count plus estimates of the messages added since", () => {
  const { driver } = scripted();
  const history = turns(6, 40);
  const estimate = estimateTextTokens("sys") + estimateTokens(history) + 7;
  const prompt = { systemPrompt: "sys", history, toolTokens: 7 };
  assert.equal(driver.promptTokens(prompt), estimate, "no count yet: everything is estimated");
  driver.recordUsage(5_000, 4);
  assert.equal(driver.promptTokens(prompt), 5_000 + estimateTokens(history.slice(4)));
  driver.recordUsage(0, 4);
  assert.equal(driver.promptTokens(prompt), estimate, "a count of 0 is no count");
  driver.recordUsage(5_000, 8);
  assert.equal(
    driver.promptTokens(prompt),
    estimate,
    "a count for a longer history than this one (after /undo) is unused",
  );
});

test("a server is probed for its window once the prompt reaches PROBE_AFTER_TOKENS, and only once", async () => {
  const { probe, calls } = probeCounting(32_000);
  const { driver } = scripted(() => ({}), { window: LOCAL, probe });
  const history = turns(4);
  driver.recordUsage(PROBE_AFTER_TOKENS - 1, history.length);
  await driver.maybeCompress(state(history), "preflight");
  assert.equal(calls.length, 0);
  assert.equal(driver.contextLength, DEFAULT_CONTEXT_LENGTH);
  driver.recordUsage(PROBE_AFTER_TOKENS, history.length);
  await driver.maybeCompress(state(history), "tools");
  assert.deepEqual(calls, [`${LOCAL.baseUrl} ${LOCAL.model}`]);
  assert.equal(driver.contextLength, 32_000);
  await driver.maybeCompress(state(history), "tools");
  assert.equal(await driver.windowInUse(), 32_000);
  assert.equal(calls.length, 1);
});

test("a compression or a question about the window probes at once, whatever the prompt's size", async () => {
  const first = probeCounting(24_000);
  const asked = scripted(() => ({}), { window: LOCAL, probe: first.probe });
  assert.equal(await asked.driver.windowInUse(), 24_000);
  assert.equal(first.calls.length, 1);

  const second = probeCounting(16_000);
  const running = scripted(() => ({}), { window: LOCAL, probe: second.probe });
  await running.driver.run(state(turns(2)), "manual");
  assert.equal(second.calls.length, 1);
  assert.deepEqual(running.engine.recalibrations, [16_000]);
  assert.equal(await running.driver.windowInUse(), 16_000);
  assert.equal(second.calls.length, 1);
});

test("between turns a surface compresses from 85% of the window on, unless off or backed off", () => {
  const { driver, engine } = scripted();
  const history = turns(4);
  const share = 10_000 * BETWEEN_TURNS_SHARE;
  driver.recordUsage(share - 1, history.length);
  assert.equal(driver.shouldCompressBetweenTurns(state(history)), false);
  driver.recordUsage(share, history.length);
  assert.equal(driver.shouldCompressBetweenTurns(state(history)), true);
  engine.backedOff = true;
  assert.equal(driver.shouldCompressBetweenTurns(state(history)), false);
  const off = scripted(() => ({}), { settings: { enabled: false } });
  off.driver.recordUsage(share, history.length);
  assert.equal(off.driver.shouldCompressBetweenTurns(state(history)), false);
});

test("between turns a surface also compresses at compression.hygiene_hard_message_limit messages, whatever their size", () => {
  const { driver } = scripted(() => ({}), { settings: { hygieneMessageLimit: 6 } });
  driver.recordUsage(100, 5);
  assert.equal(driver.shouldCompressBetweenTurns(state(turns(5))), false);
  assert.equal(driver.shouldCompressBetweenTurns(state(turns(6))), true);
  const unlimited = scripted(() => ({}), { settings: { hygieneMessageLimit: 0 } });
  unlimited.driver.recordUsage(100, 5);
  assert.equal(unlimited.driver.shouldCompressBetweenTurns(state(turns(500))), false);
});

test("only a manual compression clears the engine's back-off; an overflow lets it drop turns", async () => {
  const { driver, engine } = scripted();
  const history = turns(4);
  await driver.run(state(history), "preflight");
  await driver.run(state(history), "tools");
  await driver.run(state(history), "overflow");
  assert.equal(engine.resets, 0);
  await driver.run(state(history), "manual", { focusTopic: "the parser" });
  assert.equal(engine.resets, 1);
  assert.deepEqual(
    engine.compressions.map((c) => c.options),
    [
      { contextOverflow: false },
      { contextOverflow: false },
      { contextOverflow: true },
      { focusTopic: "the parser", contextOverflow: false },
    ],
  );
  assert.deepEqual(engine.compressions[0]!.messages, [{ role: "system", content: "You are a test." }, ...history]);
});

test("each trigger is announced with the prompt's size before compressing", async () => {
  const { driver, statuses } = scripted(() => ({ summary: "s", summarizedMessages: 2 }));
  const history = turns(2);
  await driver.run(state(history), "preflight", { tokens: 123_456 });
  await driver.run(state(history), "tools", { tokens: 7_000 });
  await driver.run(state(history), "overflow", { tokens: 1_234_567 });
  await driver.run(state(history), "manual", { tokens: 12 });
  const announced = statuses().filter((s) => s.endsWith("compressing the conversation"));
  assert.deepEqual(announced, [
    "compression: the conversation is past the compression threshold (~123,456 tokens); compressing the conversation",
    "compression: tool results pushed the conversation past the compression threshold (~7,000 tokens); compressing the conversation",
    "compression: the provider reported that the conversation no longer fits its context window (~1,234,567 tokens); compressing the conversation",
    "compression: compression requested (~12 tokens); compressing the conversation",
  ]);
});

test("every outcome is reported in its own words, with a default reason where the engine gave none", async () => {
  const outcomes: Array<Partial<CompressionResult>> = [
    { compressed: false, tokensBefore: 9_000, tokensAfter: 9_000 },
    { compressed: false, reason: "aborted" },
    { droppedMessages: 5, tokensBefore: 12_000, tokensAfter: 3_000 },
    { droppedMessages: 5, reason: "the summarizer is down", tokensBefore: 12_000, tokensAfter: 3_000 },
    { tokensBefore: 8_000, tokensAfter: 6_500 },
    { reason: "nothing to summarize", tokensBefore: 8_000, tokensAfter: 6_500 },
    { summary: "s", summarizedMessages: 7, tokensBefore: 20_000, tokensAfter: 4_000 },
    { summary: "s", summarizedMessages: 7, prunedToolResults: 3, tokensBefore: 20_000, tokensAfter: 4_000 },
    {
      summary: "s",
      summarizedMessages: 7,
      reason: "compression is freeing little space",
      tokensBefore: 1_000,
      tokensAfter: 990,
    },
  ];
  const reports: string[][] = [];
  for (const outcome of outcomes) {
    const { driver, statuses } = scripted((messages) => ({ messages: [...messages], ...outcome }));
    await driver.run(state(turns(4)), "manual");
    reports.push(statuses().slice(1));
  }
  assert.deepEqual(reports, [
    ["warning: compression failed (nothing could be condensed); kept all 4 message(s) as they were"],
    ["warning: compression failed (aborted); kept all 4 message(s) as they were"],
    [
      "warning: the summary failed (~12,000 → ~3,000 tokens); earlier work in those messages is no longer visible to the model",
    ],
    [
      "warning: the summarizer is down (~12,000 → ~3,000 tokens); earlier work in those messages is no longer visible to the model",
    ],
    ["compression: old tool outputs were shortened (~8,000 → ~6,500 tokens)"],
    ["compression: nothing to summarize (~8,000 → ~6,500 tokens)"],
    ["compression: condensed 7 message(s) into a summary (~20,000 → ~4,000 tokens)"],
    ["compression: condensed 7 message(s) into a summary, 3 old tool output(s) shortened (~20,000 → ~4,000 tokens)"],
    [
      "compression: condensed 7 message(s) into a summary (~1,000 → ~990 tokens)",
      "warning: compression is freeing little space",
    ],
  ]);
});

test("a compression starts the prompt count afresh; a failed one keeps the provider's count", async () => {
  const history = turns(4, 40);
  const estimate = estimateTextTokens("You are a test.") + estimateTokens(history);
  const failing = scripted(() => ({ compressed: false }));
  failing.driver.recordUsage(9_000, history.length);
  await failing.driver.run(state(history), "manual");
  assert.equal(failing.driver.promptTokens(state(history)), 9_000);
  const working = scripted(() => ({ summary: "s" }));
  working.driver.recordUsage(9_000, history.length);
  await working.driver.run(state(history), "manual");
  assert.equal(working.driver.promptTokens(state(history)), estimate);
});

test("the summarizer asks the main route for at most 4,096 tokens, without streaming to the user", async () => {
  const requests: LlmRequest[] = [];
  const transport: Transport = {
    apiMode: "chat_completions",
    async *stream(request: LlmRequest): AsyncIterable<LlmEvent> {
      requests.push(request);
      yield { type: "text_delta", text: "the summary text" };
      yield { type: "finish", reason: "stop" };
    },
  };
  const route: ModelRoute = { provider: "custom", model: "summary-model", transport };
  const { emitter, events } = recorder();
  const summarize = summarizeWithRoute(route, emitter);
  assert.equal(await summarize("condense this", { maxTokens: 12_000 }), "the summary text");
  assert.equal(await summarize("condense that", { maxTokens: 1_000 }), "the summary text");
  assert.deepEqual(
    requests.map((r) => [r.model, r.maxTokens, r.messages]),
    [
      ["summary-model", 4_096, [{ role: "user", content: "condense this" }]],
      ["summary-model", 1_000, [{ role: "user", content: "condense that" }]],
    ],
  );
  assert.deepEqual(
    events.filter((e) => e.type === "text_delta"),
    [],
    "the summary is not shown as the assistant's reply",
  );
});

test("the built-in compressor is used without an engine and gets the settings as given", () => {
  const { driver } = driverWith({ settings: { threshold: 0.6, targetRatio: 0.3, protectFirstN: 2, protectLastN: 8 } });
  assert.ok(driver.compressor instanceof ContextCompressor, "the built-in compressor");
  const compressor = driver.compressor as ContextCompressor;
  assert.deepEqual(
    [compressor.thresholdPercent, compressor.summaryTargetRatio, compressor.protectFirstN, compressor.protectLastN],
    [0.6, 0.3, 2, 8],
  );
  assert.equal(compressor.thresholdTokens, 120_000);
});
