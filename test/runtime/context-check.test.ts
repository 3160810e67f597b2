import assert from "node:assert/strict";
import { test } from "node:test";
import { checkContextWindow } from "../../src/runtime/context-check.js";
import { UsageError } from "../../src/runtime/errors.js";

const base = { provider: "custom", apiKey: "k", configured: 0, minimum: 64_000 };

test("refuses a local model whose window is under the minimum, saying how to override", async () => {
  await assert.rejects(
    checkContextWindow({ ...base, model: "tiny", baseUrl: "http://127.0.0.1:8080/v1" }, async () => 8192),
    (error: unknown) =>
      error instanceof UsageError && /8,192/.test(error.message) && /min_context_length 0/.test(error.message),
  );
});

test("a minimum of 0 allows a small window", async () => {
  const result = await checkContextWindow(
    { ...base, minimum: 0, model: "tiny", baseUrl: "http://127.0.0.1:8080/v1" },
    async () => 8192,
  );
  assert.equal(result.contextLength, 8192);
});

test("tells an Ollama server to load the whole window with num_ctx", async () => {
  const result = await checkContextWindow(
    { ...base, model: "qwen3:32b", baseUrl: "http://127.0.0.1:11434/v1" },
    async () => 131_072,
  );
  assert.deepEqual(result.extraBody, { options: { num_ctx: 131_072 } });
});

test("a configured window wins and needs no probe; hosted providers are never probed", async () => {
  let probes = 0;
  const probe = async () => {
    probes++;
    return 1;
  };
  const configured = await checkContextWindow(
    { ...base, configured: 200_000, model: "x", baseUrl: "http://127.0.0.1:1/v1" },
    probe,
  );
  assert.equal(configured.contextLength, 200_000);
  const hosted = await checkContextWindow(
    { ...base, provider: "openrouter", model: "some/unknown-model", baseUrl: "https://example.invalid/v1" },
    probe,
  );
  assert.deepEqual(hosted, {});
  assert.equal(probes, 0);
});

test("an unreachable server leaves the window unknown instead of failing", async () => {
  const result = await checkContextWindow({ ...base, model: "m", baseUrl: "http://127.0.0.1:9/v1" }, async () => {
    throw new Error("ECONNREFUSED");
  });
  assert.deepEqual(result, { probed: true });
});
