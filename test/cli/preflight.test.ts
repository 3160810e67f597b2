/**
 * Settings that would make every request fail are refused before the first request, naming
 * where the bad value came from: the fake provider must see no request at all.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PROVIDERS } from "../../src/llm/providers.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { runNode } from "../helpers/run-node.js";

let fake: FakeProvider;
before(async () => {
  fake = await startFakeProvider({ fallback: { text: "answered" } });
});
after(() => fake.close());

/** The environment without any provider key or base URL, plus `extra`. */
function cleanEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: home };
  for (const spec of PROVIDERS) {
    for (const name of spec.keyEnvVars) delete env[name];
    if (spec.baseUrlEnvVar) delete env[spec.baseUrlEnvVar];
  }
  return { ...env, ...extra };
}

async function chat(args: string[], options: { config?: string; env?: Record<string, string> } = {}) {
  const home = mkdtempSync(join(tmpdir(), "hermes-preflight-"));
  if (options.config) writeFileSync(join(home, "config.yaml"), options.config);
  const before = fake.requests.length;
  const run = await runNode(["dist/cli/main.js", "chat", "-q", "hi", ...args], { env: cleanEnv(home, options.env) });
  return { ...run, requests: fake.requests.length - before };
}

test("a base URL without a scheme is a usage error naming --base-url, before any request", async () => {
  const run = await chat(["--provider", "custom", "--base-url", "127.0.0.1:8080/v1", "--model", "m"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--base-url "127\.0\.0\.1:8080\/v1" is not a usable base URL: it has no scheme/);
  assert.match(run.stderr, /did you mean http:\/\/127\.0\.0\.1:8080\/v1/);
  assert.equal(run.requests, 0);
});

test("a bad model.base_url in config.yaml is refused naming the key; so is a bad OPENAI_BASE_URL", async () => {
  const fromConfig = await chat([], { config: "model:\n  provider: custom\n  base_url: ftp://x/v1\n  default: m\n" });
  assert.notEqual(fromConfig.code, 0);
  assert.match(fromConfig.stderr, /model\.base_url must be an http\(s\) URL/);
  const fromEnv = await chat(["--model", "m"], { env: { OPENAI_BASE_URL: "localhost:1234" } });
  assert.equal(fromEnv.code, 2);
  assert.match(fromEnv.stderr, /OPENAI_BASE_URL "localhost:1234" is not a usable base URL/);
});

test("a provider with no key is refused before any request, naming the variable and hermes auth add", async () => {
  const run = await chat(["--provider", "openrouter", "--model", "x"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /no API key for OpenRouter \(openrouter\): set OPENROUTER_API_KEY/);
  assert.match(run.stderr, /hermes auth add openrouter/);
  assert.equal(run.requests, 0);
});

test("OPENAI_BASE_URL with --model and no --provider runs against it as custom", async () => {
  const run = await chat(["--model", "local-model"], { env: { OPENAI_BASE_URL: `${fake.url}/v1` } });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "answered\n");
  const chats = fake.requests.filter((r) => r.method === "POST");
  assert.equal(chats.at(-1)?.body.model, "local-model");
});

test("a provider picked from its key with no model given asks for --model instead of sending a foreign default", async () => {
  const run = await chat([], { env: { ANTHROPIC_API_KEY: "sk-ant-test" } });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /Anthropic was chosen \(the API key in the environment\) but no model was given/);
  assert.match(run.stderr, /pass --model NAME/);
  assert.equal(run.requests, 0);
});

async function hermesIn(home: string, args: string[], env: Record<string, string> = {}) {
  return runNode(["dist/cli/main.js", ...args], { env: cleanEnv(home, env) });
}

test("config set refuses a provider base-URL variable that is not a URL, and writes nothing", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-preflight-"));
  const bad = await hermesIn(home, ["config", "set", "OPENAI_BASE_URL", "localhost:1234/v1"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /OPENAI_BASE_URL "localhost:1234\/v1" is not a usable base URL: it has no scheme/);
  assert.match(bad.stderr, /Nothing was written/);
  assert.equal(existsSync(join(home, ".env")), false);
  const good = await hermesIn(home, ["config", "set", "OPENROUTER_BASE_URL", "http://127.0.0.1:1234/v1"]);
  assert.equal(good.code, 0, good.stderr);
  assert.match(readFileSync(join(home, ".env"), "utf8"), /OPENROUTER_BASE_URL=http:\/\/127\.0\.0\.1:1234\/v1/);
});

test("config check reports a bad base-URL variable from the environment or .env", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-preflight-"));
  const clean = await hermesIn(home, ["config", "check"]);
  assert.equal(clean.code, 0, clean.stderr);
  const fromEnv = await hermesIn(home, ["config", "check"], { OPENAI_BASE_URL: "ftp://example.test/v1" });
  assert.equal(fromEnv.code, 1);
  assert.match(
    fromEnv.stderr,
    /OPENAI_BASE_URL "ftp:\/\/example\.test\/v1" is not a usable base URL: its scheme is ftp:/,
  );
  writeFileSync(join(home, ".env"), "DEEPSEEK_BASE_URL=api.deepseek.com/v1\n");
  const fromDotEnv = await hermesIn(home, ["config", "check"]);
  assert.equal(fromDotEnv.code, 1);
  assert.match(fromDotEnv.stderr, /DEEPSEEK_BASE_URL "api\.deepseek\.com\/v1" is not a usable base URL/);
  assert.doesNotMatch(fromDotEnv.stdout, /OK/);
});
