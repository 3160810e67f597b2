import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_CONTEXT_LENGTH, resolveContextLength } from "../../src/agent/context-window.js";
import { startFakeProvider } from "../fake-provider/server.js";

const noProbe = async () => {
  throw new Error("must not probe");
};

test("an explicit context length wins over everything else", async () => {
  assert.deepEqual(
    await resolveContextLength({ model: "claude-sonnet-4", configured: 50_000, baseUrl: "http://x" }, noProbe),
    {
      tokens: 50_000,
      source: "configured",
    },
  );
});

test("a well-known model's window comes from the table without a probe", async () => {
  assert.deepEqual(await resolveContextLength({ model: "anthropic/claude-sonnet-4", baseUrl: "http://x" }, noProbe), {
    tokens: 200_000,
    source: "catalog",
  });
});

test("a custom server is probed for an unknown model, and the default covers the rest", async () => {
  const fake = await startFakeProvider({ models: [{ id: "my-local-model", contextLength: 32_768 }] });
  try {
    const input = { model: "my-local-model", baseUrl: `${fake.url}/v1` };
    assert.deepEqual(await resolveContextLength(input), { tokens: 32_768, source: "probe" });
    assert.deepEqual(await resolveContextLength({ ...input, model: "other-model" }), {
      tokens: DEFAULT_CONTEXT_LENGTH,
      source: "default",
    });
  } finally {
    await fake.close();
  }
  assert.deepEqual(await resolveContextLength({ model: "mystery" }, noProbe), {
    tokens: 128_000,
    source: "default",
  });
  assert.deepEqual(
    await resolveContextLength({ model: "mystery", baseUrl: "http://127.0.0.1:9" }, async () => {
      throw new Error("connection refused");
    }),
    { tokens: 128_000, source: "default" },
  );
});
