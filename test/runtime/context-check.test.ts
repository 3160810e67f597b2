import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { probeContextWindow } from "../../src/llm/context-windows.js";
import { checkContextWindow } from "../../src/runtime/context-check.js";
import { UsageError } from "../../src/runtime/errors.js";
import { readContextLengths, rememberContextLength } from "../../src/state/context-length-cache.js";
import { PROBE_MISS_TTL_MS, recentProbeMiss } from "../../src/state/context-probe-misses.js";

const base = { provider: "custom", apiKey: "k", configured: 0, minimum: 64_000 };

test("refuses a local model whose window is under the minimum, saying how to override", async () => {
  await assert.rejects(
    checkContextWindow({ ...base, model: "tiny", baseUrl: "http://127.0.0.1:8080/v1" }, async () => ({
      tokens: 8192,
      answered: true,
    })),
    (error: unknown) =>
      error instanceof UsageError && /8,192/.test(error.message) && /min_context_length 0/.test(error.message),
  );
});

test("a minimum of 0 allows a small window", async () => {
  const result = await checkContextWindow(
    { ...base, minimum: 0, model: "tiny", baseUrl: "http://127.0.0.1:8080/v1" },
    async () => ({ tokens: 8192, answered: true }),
  );
  assert.equal(result.contextLength, 8192);
});

test("tells an Ollama server to load the whole window with num_ctx", async () => {
  const result = await checkContextWindow(
    { ...base, model: "qwen3:32b", baseUrl: "http://127.0.0.1:11434/v1" },
    async () => ({ tokens: 131_072, answered: true }),
  );
  assert.deepEqual(result.extraBody, { options: { num_ctx: 131_072 } });
});

test("a configured window wins and needs no probe; hosted providers are never probed", async () => {
  let probes = 0;
  const probe = async () => {
    probes++;
    return { tokens: 1, answered: true };
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
    return { tokens: 32_768, answered: true };
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

test("an unreachable server is not remembered: the next run asks again", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-context-check-"));
  let probes = 0;
  try {
    const input = { ...base, model: "m", baseUrl: "http://127.0.0.1:9/v1", home };
    const unreachable = async () => {
      probes++;
      return { answered: false };
    };
    assert.deepEqual(await checkContextWindow(input, unreachable), { probed: true });
    await checkContextWindow(input, unreachable);
    assert.equal(probes, 2);
    assert.equal(existsSync(join(home, "context_length_cache.yaml")), false);
    assert.equal(existsSync(join(home, "cache", "context_probe_misses.json")), false);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("a server that answered without the window is not asked again for a day, per model and server", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-context-check-"));
  let probes = 0;
  try {
    const input = { ...base, model: "m", baseUrl: "http://127.0.0.1:8080/v1", home };
    const silent = async () => {
      probes++;
      return { answered: true };
    };
    assert.deepEqual(await checkContextWindow(input, silent), { probed: true });
    assert.deepEqual(await checkContextWindow(input, silent), { probed: true }, "the agent is not sent to ask either");
    assert.equal(probes, 1);
    assert.equal(
      existsSync(join(home, "context_length_cache.yaml")),
      false,
      "nothing is written where the original reads",
    );
    await checkContextWindow({ ...input, model: "other" }, silent);
    await checkContextWindow({ ...input, baseUrl: "http://127.0.0.1:8081/v1" }, silent);
    assert.equal(probes, 3, "another model or server is asked");
    // A day later the server is asked again.
    const key = "m@http://127.0.0.1:8080/v1";
    const path = join(home, "cache", "context_probe_misses.json");
    const misses = JSON.parse(readFileSync(path, "utf8")) as Record<string, number>;
    writeFileSync(path, JSON.stringify({ ...misses, [key]: Date.now() - PROBE_MISS_TTL_MS - 1 }));
    assert.equal(recentProbeMiss(home, "m", "http://127.0.0.1:8080/v1"), false);
    await checkContextWindow(input, silent);
    assert.equal(probes, 4);
    // A broken file counts as empty.
    writeFileSync(path, "{not json");
    await checkContextWindow(input, silent);
    assert.equal(probes, 5);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("the probe tells a server that answers without the window from one that does not answer", async () => {
  const server = createServer((req, res) => {
    if (req.url === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: [{ id: "some-other-model", context_length: 8192 }] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const silent = await probeContextWindow({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", timeoutMs: 3000 });
    assert.deepEqual(silent, { answered: true });
    const listed = await probeContextWindow({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: "some-other-model",
      timeoutMs: 3000,
    });
    assert.deepEqual(listed, { tokens: 8192, answered: true });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  const closed = await probeContextWindow({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", timeoutMs: 3000 });
  assert.deepEqual(closed, { answered: false });
});
