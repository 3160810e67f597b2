import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { apiKeyFromEnv, registerNamedProviders, resolveApiMode, resolveProvider } from "../../src/llm/providers.js";

afterEach(() => registerNamedProviders([]));

test("a named endpoint resolves by its name, its custom: form and with spaces written as dashes", () => {
  registerNamedProviders([{ name: "Lab Box", baseUrl: "http://127.0.0.1:9/v1", keyEnv: "LAB_KEY", models: ["m1"] }]);
  for (const name of ["lab-box", "custom:lab-box", "Custom:Lab Box", "LAB-BOX"]) {
    assert.equal(resolveProvider(name)?.id, "lab-box", name);
  }
  const spec = resolveProvider("lab-box")!;
  assert.equal(spec.defaultBaseUrl, "http://127.0.0.1:9/v1");
  assert.deepEqual(spec.keyEnvVars, ["LAB_KEY"]);
  assert.equal(spec.defaultModel, "m1");
  assert.equal(apiKeyFromEnv(spec, { LAB_KEY: "from-env" }), "from-env");
  assert.equal(resolveApiMode({ provider: "lab-box", baseUrl: spec.defaultBaseUrl }), "chat_completions");
});

test("registering replaces the earlier set, so a removed endpoint stops resolving", () => {
  registerNamedProviders([{ name: "gone", baseUrl: "http://127.0.0.1:9/v1", models: [] }]);
  assert.ok(resolveProvider("gone"));
  registerNamedProviders([]);
  assert.equal(resolveProvider("gone"), undefined);
});

test("an endpoint named like a built-in provider keeps its protocol, with the configured URL and key", () => {
  registerNamedProviders([
    { name: "minimax", baseUrl: "http://127.0.0.1:9/anthropic", apiKey: "literal-key", models: [] },
  ]);
  const spec = resolveProvider("minimax")!;
  assert.equal(spec.id, "minimax");
  assert.equal(spec.apiMode, "anthropic_messages");
  assert.equal(spec.defaultBaseUrl, "http://127.0.0.1:9/anthropic");
  assert.equal(apiKeyFromEnv(spec, { MINIMAX_API_KEY: "env-key" }), "literal-key");
  assert.equal(spec.keyOptional, undefined);
});

test("a named endpoint's api_mode chooses the protocol; one without any key needs none", () => {
  registerNamedProviders([
    { name: "proxy", baseUrl: "https://proxy.example/v1", apiMode: "anthropic_messages", models: [] },
  ]);
  const spec = resolveProvider("proxy")!;
  assert.equal(resolveApiMode({ provider: "proxy", baseUrl: spec.defaultBaseUrl }), "anthropic_messages");
  assert.equal(spec.keyOptional, true);
});
