import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  apiKeyFromEnv,
  baseUrlFor,
  createTransport,
  PROVIDERS,
  resolveApiMode,
  resolveProvider,
} from "../../src/llm/providers.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { drain, signal } from "./transport-helpers.js";

describe("provider catalog", () => {
  test("lists every required provider with a unique id and aliases", () => {
    const required = [
      "openrouter",
      "nous",
      "anthropic",
      "openai",
      "openai-codex",
      "xai",
      "gemini",
      "bedrock",
      "azure-foundry",
      "deepseek",
      "zai",
      "kimi-coding",
      "minimax",
      "alibaba",
      "huggingface",
      "nvidia",
      "ollama-cloud",
      "lmstudio",
      "custom",
    ];
    for (const id of required) assert.ok(resolveProvider(id), id);
    const names = PROVIDERS.flatMap((p) => [p.id, ...p.aliases]);
    assert.equal(new Set(names).size, names.length, "ids and aliases must not collide");
  });

  test("resolves aliases case-insensitively", () => {
    assert.equal(resolveProvider("Claude")?.id, "anthropic");
    assert.equal(resolveProvider("glm")?.id, "zai");
    assert.equal(resolveProvider("codex")?.id, "openai-codex");
    assert.equal(resolveProvider("nope"), undefined);
  });

  test("OpenRouter carries attribution headers and MiniMax speaks Anthropic messages", () => {
    const or = resolveProvider("openrouter")!;
    assert.ok(or.defaultHeaders?.["HTTP-Referer"]);
    assert.ok(or.defaultHeaders?.["X-Title"]);
    assert.equal(resolveProvider("minimax")?.apiMode, "anthropic_messages");
  });

  test("reads keys and base URLs from the provider's variables", () => {
    const zai = resolveProvider("zai")!;
    assert.equal(apiKeyFromEnv(zai, { ZAI_API_KEY: " k2 " }), "k2");
    assert.equal(apiKeyFromEnv(zai, { GLM_API_KEY: "k1", ZAI_API_KEY: "k2" }), "k1");
    assert.equal(baseUrlFor(zai, undefined, { GLM_BASE_URL: "https://proxy.example/v4" }), "https://proxy.example/v4");
    assert.equal(baseUrlFor(zai, "https://explicit", { GLM_BASE_URL: "https://x" }), "https://explicit");
    assert.equal(baseUrlFor(zai, undefined, {}), zai.defaultBaseUrl);
  });
});

describe("resolveApiMode", () => {
  const cases: Array<[Parameters<typeof resolveApiMode>[0], string]> = [
    [{ explicit: "anthropic_messages", provider: "openrouter" }, "anthropic_messages"],
    [{ explicit: "chat_completions", provider: "anthropic" }, "chat_completions"],
    [{ provider: "anthropic" }, "anthropic_messages"],
    [{ provider: "bedrock" }, "bedrock_converse"],
    [{ provider: "openai-codex" }, "codex_responses"],
    [{ provider: "minimax", baseUrl: "https://api.minimax.io/v1" }, "anthropic_messages"],
    [{ provider: "custom", baseUrl: "https://api.anthropic.com" }, "anthropic_messages"],
    [{ baseUrl: "https://api.kimi.example/anthropic" }, "anthropic_messages"],
    [{ baseUrl: "https://api.kimi.example/anthropic/" }, "anthropic_messages"],
    [{ baseUrl: "https://bedrock-runtime.us-west-2.amazonaws.com" }, "bedrock_converse"],
    [{ baseUrl: "https://chatgpt.com/backend-api/codex" }, "codex_responses"],
    [{ provider: "openai", model: "gpt-5.1" }, "codex_responses"],
    [{ baseUrl: "https://api.openai.com/v1", model: "gpt-5-mini" }, "codex_responses"],
    [{ baseUrl: "https://api.openai.com/v1", model: "gpt-4o" }, "chat_completions"],
    [{ baseUrl: "https://openrouter.ai/api/v1", model: "openai/gpt-5" }, "chat_completions"],
    [{ provider: "openrouter", model: "anthropic/claude-sonnet-4.5" }, "chat_completions"],
    [{ baseUrl: "http://localhost:11434/v1", model: "qwen3:32b" }, "chat_completions"],
    [{}, "chat_completions"],
    [{ explicit: "bogus", provider: "anthropic" }, "anthropic_messages"],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${expected}`, () => assert.equal(resolveApiMode(input), expected));
  }
});

describe("createTransport", () => {
  let fake: FakeProvider;
  before(async () => {
    fake = await startFakeProvider();
  });
  after(() => fake.close());

  test("applies the catalog's headers, key variable and protocol", async () => {
    fake.requests.length = 0;
    const transport = await createTransport({
      provider: "openrouter",
      baseUrl: `${fake.url}/v1`,
      env: { OPENROUTER_API_KEY: "or-key" },
    });
    assert.equal(transport.apiMode, "chat_completions");
    await drain(transport.stream({ model: "m", messages: [{ role: "user", content: "hi" }] }, signal()));
    const headers = fake.requests[0]?.headers ?? {};
    assert.equal(headers.authorization, "Bearer or-key");
    assert.equal(headers["x-title"], "Hermes Agent");
    assert.ok(headers["http-referer"]);
  });

  test("builds an Anthropic transport for an /anthropic base URL", async () => {
    fake.requests.length = 0;
    const transport = await createTransport({ provider: "custom", baseUrl: `${fake.url}/anthropic`, apiKey: "k" });
    assert.equal(transport.apiMode, "anthropic_messages");
    await drain(transport.stream({ model: "m", messages: [{ role: "user", content: "hi" }] }, signal()));
    assert.equal(fake.requests[0]?.path, "/anthropic/v1/messages");
  });

  test("loads only the chat-completions module for a chat provider", () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-lazy-"));
    const trace = join(dir, "trace.txt");
    try {
      const root = resolve(import.meta.dirname, "..", "..");
      const script = `
        const { createTransport } = await import(${JSON.stringify(join(root, "src/llm/providers.ts"))});
        const t = await createTransport({ provider: "openai", apiKey: "x", model: "gpt-4o" });
        if (t.apiMode !== "chat_completions") throw new Error(t.apiMode);`;
      execFileSync(
        process.execPath,
        [
          "--import",
          "tsx",
          "--import",
          join(root, "test/helpers/import-trace.mjs"),
          "--input-type=module",
          "-e",
          script,
        ],
        { cwd: root, env: { ...process.env, IMPORT_TRACE_FILE: trace }, stdio: "pipe" },
      );
      const loaded = readFileSync(trace, "utf8");
      assert.match(loaded, /transports\/chat-completions\.ts/);
      for (const other of ["anthropic-messages", "codex-responses", "bedrock-converse", "@aws-sdk"]) {
        assert.doesNotMatch(loaded, new RegExp(other), `${other} should not load`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
