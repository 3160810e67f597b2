import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { checkContextWindow } from "../../src/runtime/context-check.js";
import { UsageError } from "../../src/runtime/errors.js";
import { readContextLengths, rememberContextLength } from "../../src/state/context-length-cache.js";

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

test("a window probed once is kept in the home, and is read there before the table and the probe", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-context-check-"));
  let probes = 0;
  const probe = async () => {
    probes++;
    return 32_768;
  };
  try {
    const input = { ...base, minimum: 0, model: "local-model", baseUrl: "http://127.0.0.1:8080/v1", home };
    assert.deepEqual(await checkContextWindow(input, probe), { contextLength: 32_768, probed: true });
    assert.deepEqual(await checkContextWindow(input, probe), { contextLength: 32_768 });
    assert.equal(probes, 1);
    // The table says 131,072 for qwen3; what this server reported wins.
    await rememberContextLength(home, "qwen3", "http://127.0.0.1:8080/v1", 40_960);
    const known = await checkContextWindow({ ...input, model: "qwen3" }, probe);
    assert.equal(known.contextLength, 40_960);
    // Another server with the same model is another entry; nothing is kept without a home.
    const other = await checkContextWindow({ ...input, model: "qwen3", baseUrl: "http://10.0.0.2/v1" }, probe);
    assert.equal(other.contextLength, 131_072);
    await checkContextWindow({ ...input, model: "fresh", home: undefined }, probe);
    assert.equal((await readContextLengths(home)).has("fresh@http://127.0.0.1:8080/v1"), false);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("a window the probe did not find is not kept, and the next run asks again", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-context-check-"));
  let probes = 0;
  try {
    const input = { ...base, model: "m", baseUrl: "http://127.0.0.1:9/v1", home };
    const unknown = async () => {
      probes++;
      return undefined;
    };
    await checkContextWindow(input, unknown);
    await checkContextWindow(input, unknown);
    assert.equal(probes, 2);
    assert.equal(existsSync(join(home, "context_length_cache.yaml")), false);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
