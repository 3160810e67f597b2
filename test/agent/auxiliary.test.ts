import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  AUXILIARY_COOLDOWN_MS,
  AuxiliaryError,
  createAuxiliaryClient,
  summarizeWithAuxiliary,
} from "../../src/agent/auxiliary.js";
import type { ModelRoute } from "../../src/agent/model-call.js";
import { createTransport } from "../../src/llm/providers.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, ScriptStep } from "../fake-provider/types.js";

/** Three fake providers: the main model, OpenRouter and Nous (reached through their base-URL variables). */
let main: FakeProvider;
let openrouter: FakeProvider;
let nous: FakeProvider;
let mainRoute: ModelRoute;

before(async () => {
  [main, openrouter, nous] = await Promise.all([startFakeProvider(), startFakeProvider(), startFakeProvider()]);
  mainRoute = {
    provider: "custom",
    model: "main-model",
    transport: await createTransport({ provider: "custom", baseUrl: `${main.url}/v1`, apiKey: "main-key" }),
  };
});
after(async () => {
  await Promise.all([main.close(), openrouter.close(), nous.close()]);
});

function reset(scripts: { main?: ScriptStep[]; openrouter?: ScriptStep[]; nous?: ScriptStep[] }) {
  for (const [fake, script] of [
    [main, scripts.main],
    [openrouter, scripts.openrouter],
    [nous, scripts.nous],
  ] as const) {
    fake.requests.length = 0;
    fake.setScript(script ?? []);
  }
}

const env = () => ({
  OPENROUTER_API_KEY: "or-key",
  OPENROUTER_BASE_URL: `${openrouter.url}/v1`,
  NOUS_API_KEY: "nous-key",
  NOUS_BASE_URL: `${nous.url}/v1`,
});

const ask = (text: string) => [{ role: "user" as const, content: text }];

test("a 402 from the configured auxiliary provider hands the task to the next provider", async () => {
  reset({
    openrouter: [{ fault: { kind: "status", status: 402, message: "Insufficient credits" } }],
    nous: [{ text: "summary from nous" }, { text: "nous again" }],
  });
  const notices: string[] = [];
  const client = createAuxiliaryClient({
    config: { auxiliary: { compression: { provider: "openrouter", model: "cheap/model" } } },
    mainRoute,
    env: env(),
    onNotice: (message) => notices.push(message),
  });
  const text = await client.complete("compression", ask("summarize this"));
  assert.equal(text, "summary from nous");
  assert.equal(openrouter.requests[0]!.body.model, "cheap/model");
  assert.equal(nous.requests[0]!.body.model, "google/gemini-3-flash-preview");
  assert.equal(nous.requests[0]!.headers.authorization, "Bearer nous-key");
  assert.equal(main.requests.length, 0, "the main model is not spent while other providers remain");
  assert.ok(notices.some((n) => /billing/.test(n)));
  assert.equal(await client.complete("compression", ask("more")), "nous again");
  assert.equal(openrouter.requests.length, 1, "the refusing provider cools down and is skipped");
});

test("a failing auxiliary provider falls back to the main model and cools down for ten minutes", async () => {
  let clock = 1_000_000;
  reset({
    openrouter: [
      { fault: { kind: "status", status: 500, message: "upstream exploded" } },
      { text: "openrouter again" },
    ],
    main: [{ text: "title from main" }, { text: "second title from main" }],
  });
  const client = createAuxiliaryClient({
    config: { auxiliary: { title: { provider: "openrouter" } } },
    mainRoute,
    env: env(),
    now: () => clock,
  });
  assert.equal(await client.complete("title", ask("name this chat")), "title from main");
  assert.equal(main.requests[0]!.body.model, "main-model");
  assert.deepEqual(
    client.cooldowns().map((c) => [c.provider, c.remainingMs]),
    [["openrouter", AUXILIARY_COOLDOWN_MS]],
  );
  assert.equal(nous.requests.length, 0, "only billing failures walk the chain");

  clock += 60_000;
  assert.equal(await client.complete("title", ask("and this one")), "second title from main");
  assert.equal(openrouter.requests.length, 1, "a provider on cooldown is skipped");

  clock += AUXILIARY_COOLDOWN_MS;
  assert.deepEqual(client.cooldowns(), []);
  assert.equal(await client.complete("title", ask("later")), "openrouter again");
  assert.equal(openrouter.requests.length, 2);
});

test("when the main model fails too, the task fails with an AuxiliaryError", async () => {
  reset({
    openrouter: [{ fault: { kind: "status", status: 500, message: "down" } }],
    main: [{ fault: { kind: "status", status: 400, message: "Invalid value for 'model'" } }],
  });
  const client = createAuxiliaryClient({
    config: { auxiliary: { web_extract: { provider: "openrouter" } } },
    mainRoute,
    env: env(),
  });
  await assert.rejects(client.complete("web_extract", ask("x")), AuxiliaryError);
});

test("auto resolution: the main provider first, then providers with keys in the documented order", () => {
  const client = createAuxiliaryClient({
    config: { model: { base_url: "http://127.0.0.1:9/v1" } },
    mainRoute: { ...mainRoute, provider: "deepseek", model: "deepseek-reasoner" },
    env: { GEMINI_API_KEY: "g", ANTHROPIC_API_KEY: "a", OPENROUTER_API_KEY: "o", CODEX_ACCESS_TOKEN: "c" },
  });
  assert.deepEqual(
    client.candidates("compression").map((c) => `${c.provider}/${c.model}`),
    [
      "deepseek/deepseek-reasoner",
      "openrouter/google/gemini-3-flash-preview",
      "custom/deepseek-reasoner",
      "openai-codex/gpt-5.1-codex-mini",
      "anthropic/claude-haiku-4-5-20251001",
      "gemini/gemini-3-flash-preview",
    ],
  );
  assert.deepEqual(
    client.candidates("vision").map((c) => c.provider),
    ["deepseek", "openrouter", "openai-codex", "anthropic", "custom"],
  );
});

test("a configured model under auto replaces the main model for the first candidate only", () => {
  const client = createAuxiliaryClient({
    config: { auxiliary: { session_search: { provider: "auto", model: "small-model" } } },
    mainRoute,
    env: { OPENROUTER_API_KEY: "o" },
  });
  assert.deepEqual(
    client.candidates("session_search").map((c) => `${c.provider}/${c.model}/${c.isMain}`),
    ["custom/small-model/false", "openrouter/google/gemini-3-flash-preview/false"],
  );
});

test("an explicit base_url sends the task to that OpenAI-compatible endpoint", async () => {
  reset({ nous: [{ text: "from the local endpoint" }] });
  const client = createAuxiliaryClient({
    config: { auxiliary: { approval: { provider: "auto", base_url: `${nous.url}/v1`, model: "local-judge" } } },
    mainRoute,
    env: {},
  });
  assert.equal(await client.complete("approval", ask("is rm -rf /tmp/x risky?")), "from the local endpoint");
  assert.equal(nous.requests[0]!.body.model, "local-judge");
});

test("an unknown auxiliary provider is reported and the main model does the task", async () => {
  reset({ main: [{ text: "main did it" }] });
  const notices: string[] = [];
  const client = createAuxiliaryClient({
    config: { auxiliary: { title: { provider: "no-such-vendor" } } },
    mainRoute,
    env: {},
    onNotice: (message) => notices.push(message),
  });
  assert.equal(await client.complete("title", ask("x")), "main did it");
  assert.match(notices.join("\n"), /auxiliary\.title\.provider: unknown provider "no-such-vendor"/);
});

test("summarizeWithAuxiliary sends the prompt as one user message with the configured max_tokens", async () => {
  reset({ main: [{ text: "the summary" }] });
  const client = createAuxiliaryClient({
    config: { auxiliary: { compression: { max_tokens: 777 } } },
    mainRoute,
    env: {},
  });
  const summarize = summarizeWithAuxiliary(client);
  assert.equal(await summarize("condense these turns", { maxTokens: 2000 }), "the summary");
  const body = main.requests[0]!.body;
  assert.equal(body.max_tokens, 777);
  assert.deepEqual(
    body.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
    [["user", "condense these turns"]],
  );
});

test("a task's api_key is sent to its configured provider instead of the provider's variable", async () => {
  reset({ openrouter: [{ text: "keyed" }], nous: [{ text: "keyed local" }] });
  const client = createAuxiliaryClient({
    config: {
      auxiliary: {
        compression: { provider: "openrouter", model: "cheap/model", api_key: "task-key" },
        approval: { base_url: `${nous.url}/v1`, model: "judge", api_key: "local-key" },
      },
    },
    mainRoute,
    env: env(),
  });
  assert.equal(await client.complete("compression", ask("x")), "keyed");
  assert.equal(openrouter.requests[0]!.headers.authorization, "Bearer task-key");
  assert.equal(await client.complete("approval", ask("y")), "keyed local");
  assert.equal(nous.requests[0]!.headers.authorization, "Bearer local-key");
});

test("the main provider named with a key of its own is reached with that key, not the main route's", async () => {
  reset({ main: [{ text: "with the task's key" }] });
  const client = createAuxiliaryClient({
    config: {
      auxiliary: { title: { provider: "custom", api_key: "title-key" } },
      model: { base_url: `${main.url}/v1` },
    },
    mainRoute,
    env: {},
  });
  assert.equal(await client.complete("title", ask("x")), "with the task's key");
  assert.equal(main.requests[0]!.headers.authorization, "Bearer title-key");
});

test("extra_body goes into the configured model's requests only, not the main model's when it steps in", async () => {
  reset({
    openrouter: [{ fault: { kind: "status", status: 500, message: "down" } }],
    main: [{ text: "main answered" }, { text: "auto answered" }],
  });
  const client = createAuxiliaryClient({
    config: {
      auxiliary: {
        compression: { provider: "openrouter", model: "m", extra_body: { reasoning: { enabled: false } } },
        title: { extra_body: { think: false } },
      },
    },
    mainRoute,
    env: env(),
  });
  assert.equal(await client.complete("compression", ask("x")), "main answered");
  assert.deepEqual(openrouter.requests[0]!.body.reasoning, { enabled: false });
  assert.equal(main.requests[0]!.body.reasoning, undefined);
  // Under auto the main model is the configured one, so it gets the fields.
  assert.equal(await client.complete("title", ask("y")), "auto answered");
  assert.equal(main.requests[1]!.body.think, false);
});

test("a provider that does not answer within the task's timeout is left for the main model", async () => {
  reset({
    openrouter: [{ text: "far too late", fault: { kind: "stall", afterChunks: 1 } }],
    main: [{ text: "main in time" }],
  });
  const notices: string[] = [];
  const client = createAuxiliaryClient({
    config: { auxiliary: { approval: { provider: "openrouter", model: "slow", timeout: 0.2 } } },
    mainRoute,
    env: env(),
    onNotice: (message) => notices.push(message),
  });
  assert.equal(await client.complete("approval", ask("is this risky?")), "main in time");
  assert.equal(openrouter.requests.length, 1);
  assert.equal(client.cooldowns()[0]?.provider, "openrouter");
  assert.match(notices.join("\n"), /approval: openrouter\/slow failed/);
});

test("the caller's own abort still ends the task rather than handing it on", async () => {
  let arrived!: () => void;
  const arrival = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const stalled: ScriptStep = () => {
    arrived();
    return { text: "never", fault: { kind: "stall", afterChunks: 1 } };
  };
  reset({ openrouter: [stalled], main: [{ text: "unused" }] });
  const client = createAuxiliaryClient({
    config: { auxiliary: { approval: { provider: "openrouter", model: "slow", timeout: 30 } } },
    mainRoute,
    env: env(),
  });
  const controller = new AbortController();
  const pending = client.complete("approval", ask("x"), { signal: controller.signal });
  await arrival;
  controller.abort();
  await assert.rejects(pending, (error: Error) => !(error instanceof AuxiliaryError));
  assert.equal(main.requests.length, 0);
});
