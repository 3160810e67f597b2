import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { runNode } from "../helpers/run-node.js";
import { tempDir } from "../state/temp-dir.js";

const KEY = "cli-test-key-5f1e9a7c3b2d";
let fake: FakeProvider;

before(async () => {
  fake = await startFakeProvider({ fallback: { text: "from the gateway" } });
});
after(() => fake.close());

function home(): string {
  const dir = tempDir("hermes-gateway-");
  writeFileSync(join(dir, "config.yaml"), `model:\n  default: m\n  provider: custom\n  base_url: ${fake.url}/v1\n`);
  return dir;
}

const env = (dir: string, extra: Record<string, string>) => ({
  ...process.env,
  HERMES_HOME: dir,
  OPENROUTER_API_KEY: "",
  API_SERVER_KEY: "",
  API_SERVER_ENABLED: "",
  ...extra,
});

test("gateway run refuses to start the API server without a usable key, exit code 2", async () => {
  const dir = home();
  const missing = await runNode(["dist/cli/main.js", "gateway", "run"], {
    env: env(dir, { API_SERVER_ENABLED: "true" }),
  });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /needs API_SERVER_KEY/);
  const short = await runNode(["dist/cli/main.js", "gateway", "run"], {
    env: env(dir, { API_SERVER_ENABLED: "true", API_SERVER_KEY: "tooshort" }),
  });
  assert.equal(short.code, 2);
  assert.match(short.stderr, /shorter than 16 characters/);
  assert.doesNotMatch(short.stderr, /tooshort/, "the key itself is never echoed");
  const off = await runNode(["dist/cli/main.js", "gateway", "run"], { env: env(dir, {}) });
  assert.equal(off.code, 2);
  assert.match(off.stderr, /API_SERVER_ENABLED=true/);
});

test("gateway run serves the API until SIGTERM, then exits 0", async () => {
  const dir = home();
  const child = spawn(process.execPath, ["dist/cli/main.js", "gateway", "run"], {
    env: env(dir, { API_SERVER_ENABLED: "true", API_SERVER_KEY: KEY, API_SERVER_PORT: "0" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (d) => {
      stderr += d;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
  });
  try {
    const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(reply.choices[0]?.message.content, "from the gateway");
  } finally {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    assert.equal(await exited, 0, stderr);
  }
  assert.equal(stdout, "", "the gateway writes nothing to stdout");
});

test("gateway run serves an enabled webhook platform, logs to gateway.log, and leaves no state after SIGTERM", async () => {
  const dir = home();
  const { appendFileSync, existsSync, readFileSync } = await import("node:fs");
  const { createHmac } = await import("node:crypto");
  appendFileSync(
    join(dir, "config.yaml"),
    "platforms:\n  webhook:\n    enabled: true\n    extra:\n      port: 0\n      routes:\n        ping:\n          secret: s3cret-value\n          prompt: 'ping {n}'\n",
  );
  const child = spawn(process.execPath, ["dist/cli/main.js", "gateway", "run"], {
    env: env(dir, {}),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (d) => {
      stderr += d;
      const match = /webhook: listening on (http:\/\/\S+)\/webhooks/.exec(stderr);
      if (match && /ready; platforms: webhook/.test(stderr)) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
  });
  try {
    const state = JSON.parse(readFileSync(join(dir, "gateway", "state.json"), "utf8"));
    assert.equal(state.pid, child.pid);
    assert.equal(state.platforms.webhook.state, "connected");
    const body = JSON.stringify({ n: 1 });
    const res = await fetch(`${url}/webhooks/ping`, {
      method: "POST",
      headers: { "x-webhook-signature": createHmac("sha256", "s3cret-value").update(body).digest("hex") },
      body,
    });
    assert.equal(res.status, 202);
    while (!/webhook ping: from the gateway/.test(stderr)) await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    assert.equal(await exited, 0, stderr);
  }
  assert.equal(existsSync(join(dir, "gateway", "state.json")), false);
  const logged = readFileSync(join(dir, "logs", "gateway.log"), "utf8");
  assert.match(logged, /webhook ping: from the gateway/);
  assert.doesNotMatch(logged, /s3cret-value/);
});

test("a gateway that keeps dying at start is refused after gateway.restart_loop_guard.max_restarts, unless forced", async () => {
  const dir = home();
  const { appendFileSync, mkdirSync } = await import("node:fs");
  appendFileSync(join(dir, "config.yaml"), "gateway:\n  restart_loop_guard:\n    max_restarts: 2\n");
  mkdirSync(join(dir, "gateway"), { recursive: true });
  const now = Date.now();
  writeFileSync(join(dir, "gateway", "starts.json"), JSON.stringify([now - 2000, now - 1000]));
  const refused = await runNode(["dist/cli/main.js", "gateway", "run"], {
    env: env(dir, { WEBHOOK_ENABLED: "true", WEBHOOK_PORT: "0" }),
  });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /started 3 times in the last 60 s/);
  assert.match(refused.stderr, /--force/);
});

test("an enabled platform this build has no adapter for is named, not silently skipped", async () => {
  const dir = home();
  const { appendFileSync } = await import("node:fs");
  appendFileSync(join(dir, "config.yaml"), "platforms:\n  signal:\n    enabled: true\n");
  const run = await runNode(["dist/cli/main.js", "gateway", "run"], { env: env(dir, {}) });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /platforms\.signal is enabled, but this build has no signal adapter yet/);
  assert.match(run.stderr, /nothing to run/);
});
