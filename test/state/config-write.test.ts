import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  ConfigError,
  isSecretKey,
  loadConfig,
  parseConfigValue,
  setConfigValue,
  unsetConfigValue,
} from "../../src/state/config.js";
import { loadDotEnv, readDotEnv, setEnvValue } from "../../src/state/dotenv.js";
import { atomicWriteFile } from "../../src/util/atomic-write.js";
import { tempDir } from "./temp-dir.js";

const COMMENTED = `# My Hermes settings
model:
  default: openai/gpt-4o # the usual
  provider: openrouter

# Compression tuning
compression:
  # trigger early on small models
  threshold: 0.6
`;

test("set changes one value and keeps every comment in config.yaml", () => {
  const home = tempDir();
  writeFileSync(join(home, "config.yaml"), COMMENTED);
  const result = setConfigValue(home, "compression.threshold", "0.4");
  assert.equal(result.target, "config");
  assert.equal(result.value, 0.4);
  const text = readFileSync(join(home, "config.yaml"), "utf8");
  for (const comment of [
    "# My Hermes settings",
    "# the usual",
    "# Compression tuning",
    "# trigger early on small models",
  ]) {
    assert.ok(text.includes(comment), `lost ${comment}`);
  }
  assert.match(text, /threshold: 0\.4/);
  assert.equal(loadConfig({ home }).config.compression.threshold, 0.4);
});

test("set creates the file and nested sections as needed, and fills an empty section", () => {
  const home = tempDir();
  setConfigValue(home, "delegation.max_concurrent_children", "5");
  writeFileSync(join(home, "config.yaml"), `${readFileSync(join(home, "config.yaml"), "utf8")}memory:\n`);
  setConfigValue(home, "memory.memory_enabled", "false");
  const { config } = loadConfig({ home });
  assert.equal(config.delegation.max_concurrent_children, 5);
  assert.equal(config.memory.memory_enabled, false);
});

test("set parses booleans, numbers and JSON, but keeps strings where the schema wants a string", () => {
  assert.equal(parseConfigValue("true"), true);
  assert.equal(parseConfigValue("12"), 12);
  assert.deepEqual(parseConfigValue('[{"provider":"a","model":"b"}]'), [{ provider: "a", model: "b" }]);
  assert.equal(parseConfigValue("{not json"), "{not json");
  const home = tempDir();
  setConfigValue(home, "model.default", "1234");
  setConfigValue(home, "toolsets", "web, terminal");
  setConfigValue(home, "fallback_providers", '[{"provider":"openrouter","model":"x/y"}]');
  const { config } = loadConfig({ home });
  assert.equal(config.model.default, "1234");
  assert.deepEqual(config.toolsets, ["web", "terminal"]);
  assert.deepEqual(config.fallback_providers, [{ provider: "openrouter", model: "x/y" }]);
});

test("an invalid value is refused and the file is left byte-identical", () => {
  const home = tempDir();
  const path = join(home, "config.yaml");
  writeFileSync(path, COMMENTED);
  assert.throws(
    () => setConfigValue(home, "compression.threshold", "high"),
    (error: unknown) =>
      error instanceof ConfigError && /compression\.threshold must be a number between 0 and 1/.test(error.message),
  );
  assert.equal(readFileSync(path, "utf8"), COMMENTED);
});

test("setting an unknown key writes it but returns a warning", () => {
  const home = tempDir();
  const result = setConfigValue(home, "compression.treshold", "0.3");
  assert.match(result.warnings[0] ?? "", /unknown key "compression\.treshold"/);
});

test("writes are atomic: the file is replaced by rename and no temp files are left", () => {
  const home = tempDir();
  const path = join(home, "config.yaml");
  writeFileSync(path, COMMENTED);
  const before = statSync(path).ino;
  setConfigValue(home, "agent.max_turns", "30");
  assert.notEqual(statSync(path).ino, before, "content must arrive by rename, not by rewriting in place");
  assert.deepEqual(readdirSync(home), ["config.yaml"]);
  atomicWriteFile(join(home, "x.txt"), "a");
  assert.deepEqual(readdirSync(home).sort(), ["config.yaml", "x.txt"]);
});

test("secret and env-shaped keys go to .env with mode 0600, never to config.yaml", () => {
  assert.equal(isSecretKey("OPENROUTER_API_KEY"), true);
  assert.equal(isSecretKey("github_token"), true);
  assert.equal(isSecretKey("DB_PASSWORD"), true);
  assert.equal(isSecretKey("HERMES_GATEWAY_PORT"), true);
  assert.equal(isSecretKey("toolsets"), false);
  assert.equal(isSecretKey("model.default"), false);
  const home = tempDir();
  const result = setConfigValue(home, "OPENROUTER_API_KEY", "sk-or-v1-abc def");
  assert.equal(result.target, "env");
  setConfigValue(home, "github_token", "ghp_123");
  assert.equal(existsSync(join(home, "config.yaml")), false);
  const envPath = join(home, ".env");
  assert.equal(statSync(envPath).mode & 0o777, 0o600);
  assert.deepEqual(readDotEnv(home), { OPENROUTER_API_KEY: "sk-or-v1-abc def", GITHUB_TOKEN: "ghp_123" });
});

test(".env edits replace one entry and keep comments and other lines", () => {
  const home = tempDir();
  writeFileSync(join(home, ".env"), "# keys\nA_API_KEY=one\nexport B_TOKEN=two\n");
  setConfigValue(home, "A_API_KEY", "three");
  setEnvValue(home, "C_SECRET", `it's "quoted"`);
  assert.equal(readFileSync(join(home, ".env"), "utf8").split("\n")[0], "# keys");
  assert.deepEqual(readDotEnv(home), { A_API_KEY: "three", B_TOKEN: "two", C_SECRET: `it's "quoted"` });
  const removed = unsetConfigValue(home, "B_TOKEN");
  assert.equal(removed.removed, true);
  assert.deepEqual(Object.keys(readDotEnv(home)), ["A_API_KEY", "C_SECRET"]);
  assert.equal(unsetConfigValue(home, "B_TOKEN").removed, false);
});

test("loadDotEnv fills process.env without overriding variables already set", () => {
  const home = tempDir();
  writeFileSync(join(home, ".env"), "HERMES_TEST_PRESET=from-file\nHERMES_TEST_FRESH=from-file\n");
  process.env.HERMES_TEST_PRESET = "from-shell";
  delete process.env.HERMES_TEST_FRESH;
  try {
    const { loaded } = loadDotEnv(home);
    assert.deepEqual(loaded, ["HERMES_TEST_FRESH"]);
    assert.equal(process.env.HERMES_TEST_PRESET, "from-shell");
    assert.equal(process.env.HERMES_TEST_FRESH, "from-file");
  } finally {
    delete process.env.HERMES_TEST_PRESET;
    delete process.env.HERMES_TEST_FRESH;
  }
});

test("unset removes a key (so its default applies) and the mappings it leaves empty", () => {
  const home = tempDir();
  writeFileSync(join(home, "config.yaml"), COMMENTED);
  assert.equal(unsetConfigValue(home, "compression.threshold").removed, true);
  const text = readFileSync(join(home, "config.yaml"), "utf8");
  assert.doesNotMatch(text, /compression:/);
  assert.match(text, /# the usual/);
  assert.equal(loadConfig({ home }).config.compression.threshold, 0.5);
  assert.equal(unsetConfigValue(home, "compression.threshold").removed, false);
  assert.equal(unsetConfigValue(home, "model.default.deeper").removed, false);
});

test("set refuses to descend into a key that holds a plain value", () => {
  const home = tempDir();
  writeFileSync(join(home, "config.yaml"), "terminal: local\n");
  assert.throws(() => setConfigValue(home, "terminal.timeout", "10"), /terminal holds a value, not a mapping/);
});
