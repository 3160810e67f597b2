import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { parseModelSpec, registerModelCommand } from "../../src/cli/commands/model.js";
import { PROVIDERS } from "../../src/llm/providers.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const model = (home: string, ...args: string[]) => run(registerModelCommand, home, ["model", ...args]);
const configOf = (home: string) => parse(readFileSync(join(home, "config.yaml"), "utf8"));

/** Run with no provider keys in the environment, so "auto" has nothing to pick. */
async function withoutProviderKeys<T>(fn: () => Promise<T>): Promise<T> {
  const names = [...new Set(PROVIDERS.flatMap((p) => p.keyEnvVars))];
  const saved = names.map((name) => [name, process.env[name]] as const);
  for (const name of names) delete process.env[name];
  try {
    return await fn();
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}

test("PROVIDER/MODEL: the first part is a provider only when it names one", async () => {
  assert.deepEqual(await parseModelSpec("openrouter/anthropic/claude-opus-4.6"), {
    provider: "openrouter",
    model: "anthropic/claude-opus-4.6",
  });
  assert.deepEqual(await parseModelSpec("claude/claude-sonnet-4"), { provider: "anthropic", model: "claude-sonnet-4" });
  assert.deepEqual(await parseModelSpec("meta-llama/llama-3.3-70b"), { model: "meta-llama/llama-3.3-70b" });
  assert.deepEqual(await parseModelSpec("gpt-5"), { model: "gpt-5" });
});

test("model with no arguments shows the current choice, and says how to pick one when none is set", async () => {
  const home = tempHome();
  await withoutProviderKeys(async () => {
    const none = await model(home);
    assert.match(none.out, /provider: - \(none configured\)/);
    assert.match(none.out, /hermes setup/);
    writeFileSync(join(home, ".env"), "OPENROUTER_API_KEY=sk-or-v1-fromdotenv\n");
    const fromEnv = await model(home);
    assert.match(fromEnv.out, /provider: openrouter \(picked from the API key in the environment\)/);
    assert.match(fromEnv.out, /model: {4}anthropic\/claude-opus-4\.6/);
  });
});

test("model PROVIDER/MODEL switches both in config.yaml", async () => {
  const home = tempHome();
  const out = await model(home, "openrouter/anthropic/claude-opus-4.6");
  assert.match(out.out, /model\.provider = openrouter, model\.default = anthropic\/claude-opus-4\.6/);
  assert.deepEqual(configOf(home).model, { provider: "openrouter", default: "anthropic/claude-opus-4.6" });
  const shown = await model(home);
  assert.match(shown.out, /provider: openrouter \(model.provider in config\.yaml\)/);
});

test("--provider/--model/--base-url switch to a custom server; a later provider switch drops its base URL", async () => {
  const home = tempHome();
  await model(home, "--provider", "custom", "--base-url", "http://127.0.0.1:11434/v1", "--model", "llama3.2");
  assert.deepEqual(configOf(home).model, {
    provider: "custom",
    base_url: "http://127.0.0.1:11434/v1",
    default: "llama3.2",
  });
  await model(home, "qwen3:8b");
  assert.equal(configOf(home).model.base_url, "http://127.0.0.1:11434/v1", "a model-only change keeps the server");
  assert.equal(configOf(home).model.default, "qwen3:8b");
  const out = await model(home, "anthropic/claude-sonnet-4");
  assert.match(out.out, /model\.base_url removed/);
  assert.deepEqual(configOf(home).model, { provider: "anthropic", default: "claude-sonnet-4" });
});

test("model refuses an unknown provider and a custom provider without a base URL", async () => {
  const home = tempHome();
  await assert.rejects(model(home, "--provider", "acme", "--model", "x"), /unknown provider "acme"/);
  await assert.rejects(model(home, "--provider", "custom", "--model", "x"), /custom provider needs --base-url/);
});

test("model shows an OPENAI_BASE_URL server as the custom provider it will use", async () => {
  const home = tempHome();
  await withoutProviderKeys(async () => {
    process.env.OPENAI_BASE_URL = "http://127.0.0.1:8080/v1";
    try {
      const noModel = await model(home);
      assert.match(noModel.out, /chosen \(OPENAI_BASE_URL\) but no model was given/);
      writeFileSync(join(home, "config.yaml"), "model:\n  default: qwen3:32b\n");
      const shown = await model(home);
      assert.match(shown.out, /provider: custom \(from OPENAI_BASE_URL\)/);
      assert.match(shown.out, /base_url: http:\/\/127\.0\.0\.1:8080\/v1 \(from OPENAI_BASE_URL\)/);
    } finally {
      delete process.env.OPENAI_BASE_URL;
    }
  });
});

test("model says where a run would stop when the configured base URL is not a URL", async () => {
  const home = tempHome();
  writeFileSync(
    join(home, "config.yaml"),
    "model:\n  provider: custom\n  base_url: localhost:11434/v1\n  default: m\n",
  );
  const shown = await model(home);
  assert.match(shown.out, /A run would stop here: \/\S+\/config\.yaml: model\.base_url must be an http\(s\) URL/);
});

test("model NAME warns when the provider's model list lacks it, suggests the nearest, and saves it anyway", async () => {
  const { startFakeProvider } = await import("../fake-provider/server.js");
  const fake = await startFakeProvider({ models: [{ id: "qwen3:32b" }, { id: "llama3.2" }, { id: "mistral" }] });
  try {
    const home = tempHome();
    await model(home, "--provider", "custom", "--base-url", `${fake.url}/v1`, "--model", "qwen3:32b");
    const listed = await model(home, "llama3.2");
    assert.equal(listed.err, "");
    const typo = await model(home, "qwen3:23b");
    assert.match(typo.err, /custom's model list \(3 models\) has no "qwen3:23b"; did you mean "qwen3:32b"\?/);
    assert.match(typo.err, /Saved as given/);
    assert.equal(configOf(home).model.default, "qwen3:23b");
  } finally {
    await fake.close();
  }
});
