import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { registerConfigCommands } from "../../../src/cli/commands/config.js";
import { run, tempHome } from "./state-command-harness.js";

const config = (home: string, ...args: string[]) => run(registerConfigCommands, home, ["config", ...args]);

test("config show prints the effective configuration as YAML (or JSON)", async () => {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), "compression:\n  threshold: 0.65\n");
  writeFileSync(join(home, ".env"), "OPENROUTER_API_KEY=sk-or-v1-secretvalue\n");
  const shown = await config(home, "show");
  const parsed = parse(shown.out);
  assert.equal(parsed.compression.threshold, 0.65);
  assert.equal(parsed.agent.max_turns, 90);
  assert.match(shown.out, /# set in .*\.env: OPENROUTER_API_KEY/);
  assert.ok(!shown.out.includes("secretvalue"));
  const json = JSON.parse((await config(home, "show", "--json")).out);
  assert.equal(json.compression.threshold, 0.65);
});

test("config show masks keys written into config.yaml, in YAML and JSON alike", async () => {
  const home = tempHome();
  writeFileSync(
    join(home, "config.yaml"),
    [
      "delegation:\n  base_url: http://127.0.0.1:8080/v1\n  api_key: sk-local-delegation-0123456789",
      "providers:\n  lab:\n    base_url: https://lab.example/v1\n    api_key: lab-key-abcdefghijklmnop",
      "",
    ].join("\n"),
  );
  for (const flags of [[], ["--json"]]) {
    const { out } = await config(home, "show", ...flags);
    assert.ok(!out.includes("0123456789") && !out.includes("abcdefghijklmnop"), out);
    assert.match(out, /sk-l…6789/);
    assert.match(out, /http:\/\/127\.0\.0\.1:8080\/v1/, "other values are shown as they are");
  }
});

test("config set / get / unset round trip through config.yaml", async () => {
  const home = tempHome();
  const set = await config(home, "set", "delegation.max_iterations", "25");
  assert.match(set.out, /Set delegation\.max_iterations = 25 in .*config\.yaml/);
  assert.equal((await config(home, "get", "delegation.max_iterations")).out, "25\n");
  assert.match((await config(home, "get", "prompt_caching")).out, /cache_ttl: 5m/);
  const unset = await config(home, "unset", "delegation.max_iterations");
  assert.match(unset.out, /Removed delegation\.max_iterations/);
  assert.equal((await config(home, "get", "delegation.max_iterations")).out, "50\n");
  await assert.rejects(config(home, "get", "no.such.key"), /config\.yaml has no key "no\.such\.key"/);
});

test("config set refuses an invalid value with the key path and accepted values", async () => {
  const home = tempHome();
  await assert.rejects(
    config(home, "set", "approvals.mode", "sometimes"),
    /approvals\.mode must be one of "manual", "smart", "off" \(got "sometimes"\)/,
  );
});

test("config set routes secrets to .env and get masks them", async () => {
  const home = tempHome();
  const set = await config(home, "set", "ANTHROPIC_API_KEY", "sk-ant-1234567890abcdef");
  assert.match(set.out, /Saved ANTHROPIC_API_KEY to .*\.env/);
  assert.ok(!set.out.includes("1234567890"));
  assert.match(readFileSync(join(home, ".env"), "utf8"), /ANTHROPIC_API_KEY=sk-ant-1234567890abcdef/);
  assert.equal((await config(home, "get", "ANTHROPIC_API_KEY")).out, "sk-a…cdef\n");
  await assert.rejects(config(home, "get", "MISSING_TOKEN"), /MISSING_TOKEN is not set/);
});

test("config path prints the config.yaml location", async () => {
  const home = tempHome();
  assert.equal((await config(home, "path")).out, `${join(home, "config.yaml")}\n`);
});

test("config check passes a valid file, prints warnings, and exits 1 on errors", async () => {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), "memory:\n  memory_char_limit: 3000\n  colour: blue\n");
  const ok = await config(home, "check");
  assert.equal(ok.exitCode, undefined);
  assert.match(ok.out, /config\.yaml: OK \(1 warning\)/);
  assert.match(ok.err, /unknown key "memory\.colour"/);

  writeFileSync(join(home, "config.yaml"), "terminal:\n  timeout: forever\n");
  const bad = await config(home, "check");
  assert.equal(bad.exitCode, 1);
  assert.match(bad.err, /terminal\.timeout must be a whole number of at least 1 \(got "forever"\)/);
});

test("config edit opens $EDITOR on config.yaml, then validates the result", async () => {
  const home = tempHome();
  const editor = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(import.meta.dirname, "fixtures", "fake-editor.mjs"))}`;
  const saved = { EDITOR: process.env.EDITOR, VISUAL: process.env.VISUAL, APPEND: process.env.FAKE_EDITOR_APPEND };
  process.env.EDITOR = editor;
  delete process.env.VISUAL;
  try {
    process.env.FAKE_EDITOR_APPEND = "agent:\n  max_turns: 7\n";
    const good = await config(home, "edit");
    assert.equal(good.exitCode, undefined);
    assert.match(readFileSync(join(home, "config.yaml"), "utf8"), /^# Hermes configuration[\s\S]*max_turns: 7/);
    assert.match(good.out, /OK/);

    process.env.FAKE_EDITOR_APPEND = "compression:\n  threshold: high\n";
    const bad = await config(home, "edit");
    assert.equal(bad.exitCode, 1);
    assert.match(bad.err, /compression\.threshold must be a number between 0 and 1/);
  } finally {
    for (const [key, value] of Object.entries({
      EDITOR: saved.EDITOR,
      VISUAL: saved.VISUAL,
      FAKE_EDITOR_APPEND: saved.APPEND,
    })) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
});
