import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { registerSetupCommand } from "../../src/cli/commands/setup.js";
import { type NodeRun, runNode } from "../helpers/run-node.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const setup = (home: string, ...args: string[]) => run(registerSetupCommand, home, ["setup", ...args]);

/** The real `hermes` entry, so options the root command shares (--model, --provider, ...) are covered. */
function hermes(home: string, args: string[]): Promise<NodeRun> {
  return runNode(["--import", "tsx", "src/cli/main.ts", ...args], { env: { ...process.env, HERMES_HOME: home } });
}

test("setup --non-interactive writes provider and model to config.yaml and the key to .env", async () => {
  const home = tempHome();
  const args = ["--non-interactive", "--provider", "or", "--model", "anthropic/claude-opus-4.6"];
  const result = await hermes(home, ["setup", ...args, "--api-key", "sk-or-v1-abcdef123456", "-t", "web,file"]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Setup saved/);
  const config = parse(readFileSync(join(home, "config.yaml"), "utf8"));
  assert.deepEqual(config.model, { provider: "openrouter", default: "anthropic/claude-opus-4.6" });
  assert.deepEqual(config.toolsets, ["web", "file"]);
  const env = join(home, ".env");
  assert.equal(readFileSync(env, "utf8"), "OPENROUTER_API_KEY=sk-or-v1-abcdef123456\n");
  assert.equal(statSync(env).mode & 0o777, 0o600);
  assert.doesNotMatch(result.stdout, /abcdef123456/, "the key is never echoed");
});

test("setup --non-interactive for a custom endpoint stores the base URL and needs no key", async () => {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), "# my settings\ncompression:\n  threshold: 0.6\n");
  const out = await setup(
    home,
    "--non-interactive",
    "--provider",
    "custom",
    "--base-url",
    "http://127.0.0.1:8080/v1",
    "--model",
    "qwen3",
  );
  assert.match(
    out.out,
    /model\.provider = custom, model\.base_url = http:\/\/127\.0\.0\.1:8080\/v1, model\.default = qwen3/,
  );
  const text = readFileSync(join(home, "config.yaml"), "utf8");
  assert.match(text, /# my settings/, "comments and other keys survive");
  assert.equal(parse(text).compression.threshold, 0.6);
  assert.equal(parse(text).model.base_url, "http://127.0.0.1:8080/v1");
});

test("setup --non-interactive refuses missing or bad answers with a usage error", async () => {
  const home = tempHome();
  await assert.rejects(setup(home, "--non-interactive", "--provider", "openrouter"), /needs --provider and --model/);
  await assert.rejects(
    setup(home, "--non-interactive", "--provider", "nope", "--model", "m"),
    /unknown provider "nope"/,
  );
  await assert.rejects(
    setup(home, "--non-interactive", "--provider", "custom", "--model", "m"),
    /custom provider needs --base-url/,
  );
  await assert.rejects(
    setup(home, "--non-interactive", "--provider", "custom", "--model", "m", "--base-url", "localhost:11434/v1"),
    /--base-url "localhost:11434\/v1" is not a usable base URL: it has no scheme/,
  );
  await assert.rejects(
    setup(home, "--non-interactive", "--provider", "openai", "--model", "gpt-5", "-t", "web,teleport"),
    /unknown toolset\(s\): teleport/,
  );
  assert.throws(() => statSync(join(home, "config.yaml")), /ENOENT/, "nothing was written");
});

test("setup without a terminal and without --non-interactive says how to script it", async () => {
  const home = tempHome();
  const result = await hermes(home, ["setup"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /hermes setup --non-interactive --provider P --model M/);
});
