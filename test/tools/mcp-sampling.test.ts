/**
 * MCP sampling: a real stdio server asks its client's model for completions; the model is the
 * auxiliary `mcp` task pointed at the fake provider, so each test reads what the model was sent.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createAuxiliaryClient } from "../../src/agent/auxiliary.js";
import { createTransport } from "../../src/llm/providers.js";
import { mcpSamplingModel } from "../../src/runtime/mcp-sampling.js";
import type { AuxiliaryTaskConfig } from "../../src/state/config-schema.js";
import { validateConfig } from "../../src/state/config-validate.js";
import { McpManager, type McpSamplingSettings } from "../../src/tools/mcp/index.js";
import { SamplingError, SamplingGate } from "../../src/tools/mcp/sampling.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { ToolsetCatalog } from "../../src/tools/toolsets.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, ScriptStep } from "../fake-provider/types.js";
import { lastToolResults } from "../helpers/agent-harness.js";
import { openTestRuntime } from "../helpers/test-runtime.js";

const SAMPLING_SERVER = fileURLToPath(new URL("./fixtures/mcp-sampling-server.mjs", import.meta.url));

let fake: FakeProvider;
before(async () => {
  fake = await startFakeProvider();
});
after(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.setScript([]);
});

interface Outcome {
  ok: boolean;
  code?: number;
  message?: string;
  // biome-ignore lint/suspicious/noExplicitAny: the result is whatever the client answered
  result?: any;
}
interface Report {
  clientSampling: boolean;
  outcomes: Outcome[];
}

function auxiliary(mcp: Partial<AuxiliaryTaskConfig>) {
  const client = createAuxiliaryClient({
    config: {
      auxiliary: {
        mcp: { provider: "custom", base_url: `${fake.url}/v1`, api_key: "aux-key", model: "aux-model", ...mcp },
      },
    },
    env: {},
  });
  return async () => client;
}

/** Starts the fixture server as "samp" with these settings; returns a function that runs its sample tool. */
async function samplingServer(
  t: TestContext,
  sampling: McpSamplingSettings | undefined,
  options: { auxiliary?: Partial<AuxiliaryTaskConfig>; noSamplingModel?: boolean } = {},
) {
  const registry = new ToolRegistry();
  const manager = new McpManager({
    servers: { samp: { command: process.execPath, args: [SAMPLING_SERVER], ...(sampling ? { sampling } : {}) } },
    registry,
    toolsets: new ToolsetCatalog(registry),
    ...(options.noSamplingModel ? {} : { sampling: mcpSamplingModel(auxiliary(options.auxiliary ?? {})) }),
  });
  t.after(() => manager.close());
  const [status] = await manager.start();
  assert.equal(status?.state, "connected", status?.error);
  return async (params: Record<string, unknown>, extra: { count?: number; parallel?: boolean } = {}) => {
    const text = await manager.callTool("samp", "sample", { params, ...extra });
    return JSON.parse(text) as Report;
  };
}

const userSays = (text: string) => [{ role: "user", content: { type: "text", text } }];

test("a server's request is answered by auxiliary.mcp's model with its own messages, capped and without tools", async (t) => {
  fake.setScript([{ text: "borrowed answer" }, { text: "second answer", finish: "length" }]);
  const sample = await samplingServer(t, { max_tokens_cap: 500 });
  const report = await sample({
    messages: [
      ...userSays("What is 2 + 2?"),
      { role: "assistant", content: { type: "text", text: "Let me think." } },
      { role: "user", content: [{ type: "text", text: "Answer briefly." }] },
    ],
    systemPrompt: "You are a calculator.",
    maxTokens: 100_000,
    temperature: 0.3,
    stopSequences: ["END"],
    includeContext: "allServers",
  });
  assert.equal(report.clientSampling, true);
  assert.deepEqual(report.outcomes[0], {
    ok: true,
    result: {
      role: "assistant",
      content: { type: "text", text: "borrowed answer" },
      model: "aux-model",
      stopReason: "endTurn",
    },
  });
  const body = fake.requests[0]!.body;
  assert.equal(body.model, "aux-model");
  assert.equal(body.max_tokens, 500, "maxTokens over the cap is lowered to max_tokens_cap");
  assert.equal(body.temperature, 0.3);
  assert.deepEqual(body.stop, ["END"]);
  assert.equal(body.tools, undefined, "no tools are offered to a sampling request");
  assert.deepEqual(
    body.messages,
    [
      { role: "system", content: "You are a calculator." },
      { role: "user", content: "What is 2 + 2?" },
      { role: "assistant", content: "Let me think." },
      { role: "user", content: "Answer briefly." },
    ],
    "includeContext adds nothing: the model sees the server's messages only",
  );
  assert.equal(fake.requests[0]!.headers.authorization, "Bearer aux-key");

  const under = await sample({ messages: userSays("again"), maxTokens: 64 });
  assert.equal(fake.requests[1]!.body.max_tokens, 64, "a maxTokens under the cap is sent as asked");
  assert.equal(under.outcomes[0]?.result.stopReason, "maxTokens");
});

test("the request past max_rpm in a minute is refused with a JSON-RPC error and never reaches the model", async (t) => {
  const sample = await samplingServer(t, { max_rpm: 2 });
  const report = await sample({ messages: userSays("hi"), maxTokens: 10 }, { count: 3 });
  assert.deepEqual(
    report.outcomes.map((o) => o.ok),
    [true, true, false],
  );
  const refused = report.outcomes[2]!;
  assert.equal(refused.code, -32600);
  assert.match(refused.message ?? "", /MCP server "samp" refused: rate limit reached: at most 2 requests per minute/);
  assert.match(refused.message ?? "", /mcp_servers\.samp\.sampling\.max_rpm/);
  assert.equal(fake.requests.length, 2);
});

test("with sampling.enabled false the capability is not declared and the server's request is refused", async (t) => {
  const sample = await samplingServer(t, { enabled: false });
  const report = await sample({ messages: userSays("hi"), maxTokens: 10 });
  assert.equal(report.clientSampling, false);
  assert.equal(report.outcomes[0]?.ok, false);
  assert.equal(report.outcomes[0]?.code, -32601, "the client has no handler: method not found");
  assert.equal(fake.requests.length, 0);
});

test("a manager given no sampling model declares sampling to no server", async (t) => {
  const sample = await samplingServer(t, undefined, { noSamplingModel: true });
  const report = await sample({ messages: userSays("hi"), maxTokens: 10 });
  assert.equal(report.clientSampling, false);
  assert.equal(report.outcomes[0]?.code, -32601);
});

test("a model that does not answer within auxiliary.mcp.timeout fails the request with that reason", async (t) => {
  fake.setScript([{ text: "never", fault: { kind: "stall", afterChunks: 0 } }]);
  const sample = await samplingServer(t, {}, { auxiliary: { timeout: 0.3 } });
  const started = Date.now();
  const report = await sample({ messages: userSays("hi"), maxTokens: 10 });
  const failed = report.outcomes[0]!;
  assert.equal(failed.ok, false);
  assert.equal(failed.code, -32603);
  assert.match(
    failed.message ?? "",
    /failed: the model failed: .*did not answer within 0\.3s \(auxiliary\.mcp\.timeout\)/,
  );
  assert.ok(Date.now() - started < 10_000);
});

test("a request still unanswered at sampling.timeout is given up with a timeout error", async (t) => {
  fake.setScript([{ text: "never", fault: { kind: "stall", afterChunks: 0 } }]);
  const sample = await samplingServer(t, { timeout: 1 });
  const report = await sample({ messages: userSays("hi"), maxTokens: 10 });
  assert.equal(report.outcomes[0]?.code, -32001);
  assert.match(report.outcomes[0]?.message ?? "", /no answer within 1s \(mcp_servers\.samp\.sampling\.timeout\)/);
});

test("model hints pick only among allowed_models; a hint outside the list is ignored", async (t) => {
  const sample = await samplingServer(t, { allowed_models: ["vendor/small-model", "vendor/large-model"] });
  const ask = (hints: string[]) =>
    sample({
      messages: userSays("hi"),
      maxTokens: 10,
      modelPreferences: { hints: hints.map((name) => ({ name })), intelligencePriority: 1 },
    });
  const outside = await ask(["attacker/expensive-model"]);
  assert.equal(fake.requests[0]!.body.model, "aux-model");
  assert.equal(outside.outcomes[0]?.result.model, "aux-model");
  await ask(["attacker/expensive-model", "large"]);
  assert.equal(fake.requests[1]!.body.model, "vendor/large-model", "the first hint naming an allowed model wins");
  await ask(["vendor/small-model"]);
  assert.equal(fake.requests[2]!.body.model, "vendor/small-model");
  assert.equal(fake.requests.length, 3, "every request went to auxiliary.mcp's endpoint");
});

test("sampling.model answers every request, whatever the hints", async (t) => {
  const sample = await samplingServer(t, { model: "vendor/fixed", allowed_models: ["vendor/other"] });
  await sample({ messages: userSays("hi"), maxTokens: 10, modelPreferences: { hints: [{ name: "other" }] } });
  assert.equal(fake.requests[0]!.body.model, "vendor/fixed");
});

const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const withImage = [
  {
    role: "user",
    content: [
      { type: "text", text: "What is in the picture?" },
      { type: "image", data: PIXEL, mimeType: "image/png" },
    ],
  },
];

test("images reach a model that reads them as image parts; a text-only model refuses them", async (t) => {
  const textOnly = await samplingServer(t, {});
  const refused = await textOnly({ messages: withImage, maxTokens: 10 });
  assert.equal(refused.outcomes[0]?.code, -32600);
  assert.match(refused.outcomes[0]?.message ?? "", /images .*\(aux-model\) is not known to read images/);
  assert.equal(fake.requests.length, 0);

  const vision = await samplingServer(t, {}, { auxiliary: { model: "gpt-4o-mini" } });
  const answered = await vision({ messages: withImage, maxTokens: 10 });
  assert.equal(answered.outcomes[0]?.ok, true);
  assert.deepEqual(fake.requests[0]!.body.messages[0].content, [
    { type: "text", text: "What is in the picture?" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${PIXEL}` } },
  ]);
});

test("requests asking for tool use, audio or a bad temperature are refused before the model is called", async (t) => {
  const sample = await samplingServer(t, {});
  const tool = { name: "run", inputSchema: { type: "object" } };
  const report = await sample({ messages: userSays("use the tool"), maxTokens: 10, tools: [tool] });
  assert.equal(report.outcomes[0]?.code, -32600);
  assert.match(report.outcomes[0]?.message ?? "", /tool use in sampling is not supported/);
  const audio = await sample({
    messages: [{ role: "user", content: { type: "audio", data: "AAAA", mimeType: "audio/wav" } }],
    maxTokens: 10,
  });
  assert.match(audio.outcomes[0]?.message ?? "", /message 1: audio content is not supported/);
  const hot = await sample({ messages: userSays("hi"), maxTokens: 10, temperature: 7 });
  assert.match(hot.outcomes[0]?.message ?? "", /temperature must be between 0 and 2/);
  const huge = await sample({ messages: userSays("x".repeat(200_001)), maxTokens: 10 });
  assert.match(huge.outcomes[0]?.message ?? "", /the prompt has 200001 characters; at most 200000/);
  assert.equal(fake.requests.length, 0);
});

test("a failing model's error reaches the server as one line, with credentials masked", async (t) => {
  const leaky = "upstream said: invalid key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
  fake.setScript([{ fault: { kind: "status", status: 400, message: leaky } }] as ScriptStep[]);
  const sample = await samplingServer(t, {});
  const report = await sample({ messages: userSays("hi"), maxTokens: 10 });
  assert.equal(report.outcomes[0]?.code, -32603);
  assert.match(report.outcomes[0]?.message ?? "", /failed: the model failed: .*invalid key sk-pro/);
  assert.doesNotMatch(report.outcomes[0]?.message ?? "", /abcdefghijklmnopqrstuvwxyz0123456789/);
});

test("requests past max_concurrent are refused while the others are answered", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const gate = new SamplingGate("busy", { max_concurrent: 1 }, async () => {
    await held;
    return { text: "done", model: "m", stopReason: "endTurn" };
  });
  const params = { messages: userSays("hi"), maxTokens: 10 };
  const first = gate.answer(params);
  await assert.rejects(
    gate.answer(params),
    (error) =>
      error instanceof SamplingError &&
      error.code === -32600 &&
      /1 requests are already being answered; at most 1 at once \(mcp_servers\.busy\.sampling\.max_concurrent\)/.test(
        error.message,
      ),
  );
  release();
  assert.equal((await first).content.text, "done");
  assert.equal((await gate.answer(params)).content.text, "done", "a slot frees once the answer is sent");
});

test("through the runtime, auxiliary.mcp (auto: the main model) answers and the user's conversation stays out of it", async () => {
  const server = `    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(SAMPLING_SERVER)}]\n`;
  const ask = { messages: userSays("Summarise the weather."), maxTokens: 1000, includeContext: "allServers" };
  const opened = await openTestRuntime({
    singleTurn: true,
    config: `mcp_servers:\n  samp:\n${server}    sampling:\n      max_tokens_cap: 50\n`,
    script: [
      { toolCalls: [{ name: "mcp_samp_sample", arguments: { params: ask } }] },
      { text: "sunny, from the borrowed model" },
      (req) => ({ text: `final: ${lastToolResults(req).join("")}` }),
    ],
  });
  try {
    const result = await opened.runtime
      .createAgent()
      .runConversation("My secret plan is PINEAPPLE-42. Ask the server.");
    const sampling = opened.fake.requests.find((r) => r.body?.messages?.[0]?.content === "Summarise the weather.");
    assert.ok(sampling, "the sampling request reached the model");
    assert.equal(sampling.body.model, "fake-model");
    assert.equal(sampling.body.max_tokens, 50);
    assert.equal(sampling.body.tools, undefined);
    assert.equal(sampling.body.messages.length, 1);
    assert.doesNotMatch(sampling.rawBody, /PINEAPPLE-42/);
    assert.match(result.finalResponse ?? "", /"model":"fake-model".*"text":"sunny, from the borrowed model"/);
  } finally {
    await opened.close();
  }
});

test("config: auxiliary.mcp and mcp_servers.<name>.sampling have the original's defaults; bad values name their path", () => {
  const server = { command: "srv" };
  const { config, warnings, notActedOn } = validateConfig({
    mcp_servers: {
      a: server,
      b: { ...server, sampling: { max_rpm: 3, max_tool_rounds: 2, expose_client_tools: true } },
    },
  });
  assert.deepEqual(config.auxiliary.mcp, {
    provider: "auto",
    model: "",
    base_url: "",
    api_key: "",
    max_tokens: 0,
    timeout: 30,
    extra_body: {},
  });
  assert.deepEqual(config.mcp_servers.a?.sampling, {
    enabled: true,
    model: "",
    max_tokens_cap: 4096,
    timeout: 30,
    max_rpm: 10,
    allowed_models: [],
    log_level: "info",
    max_concurrent: 2,
  });
  assert.equal(config.mcp_servers.b?.sampling.max_rpm, 3);
  assert.deepEqual(warnings, []);
  assert.deepEqual(notActedOn.sort(), [
    "mcp_servers.b.sampling.expose_client_tools",
    "mcp_servers.b.sampling.max_tool_rounds",
  ]);
  assert.throws(
    () => validateConfig({ mcp_servers: { a: { ...server, sampling: { max_rpm: 0 } } } }),
    /mcp_servers\.a\.sampling\.max_rpm must be a whole number of at least 1 \(got 0\)/,
  );
  assert.throws(
    () => validateConfig({ mcp_servers: { a: { ...server, sampling: { log_level: "loud" } } } }),
    /mcp_servers\.a\.sampling\.log_level must be one of "debug", "info", "warning"/,
  );
});

test("auxiliary.mcp.max_tokens never lifts a request over the server's cap; Anthropic gets stop_sequences", async () => {
  fake.setScript([{ text: "capped" }]);
  const client = createAuxiliaryClient({
    config: { auxiliary: { mcp: { provider: "custom", model: "claude-haiku-4-5", max_tokens: 9000 } } },
    env: {},
    createTransport: (candidate) =>
      createTransport({
        provider: "custom",
        model: candidate.model,
        baseUrl: `${fake.url}/v1`,
        apiKey: "aux-key",
        apiMode: "anthropic_messages",
      }),
  });
  const gate = new SamplingGate(
    "anth",
    { max_tokens_cap: 300 },
    mcpSamplingModel(async () => client),
  );
  const answer = await gate.answer({
    messages: userSays("hi"),
    maxTokens: 5000,
    systemPrompt: "Be brief.",
    stopSequences: ["STOP"],
  });
  assert.equal(answer.content.text, "capped");
  const request = fake.requests[0]!;
  assert.equal(request.protocol, "anthropic_messages");
  assert.equal(request.body.max_tokens, 300);
  assert.deepEqual(request.body.stop_sequences, ["STOP"]);
  assert.equal(request.body.tools, undefined);
});
