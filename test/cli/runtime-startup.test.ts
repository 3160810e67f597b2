import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { type NodeRun, runNode } from "../helpers/run-node.js";

let fake: FakeProvider;

before(async () => {
  fake = await startFakeProvider({ fallback: { text: "Done." } });
});
after(async () => {
  await fake.close();
});

interface Front {
  url: string;
  /** Method and path of every request, in arrival order. */
  seen: string[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => resolve(body));
  });
}

/**
 * A server in front of the fake provider whose `/v1/models` answers (with `window` tokens for
 * model "m") only once `ready()` holds, or after 5 s; the rest goes to the fake.
 */
async function startFront(window: number, ready: () => boolean): Promise<Front> {
  const seen: string[] = [];
  const answerModels = (res: ServerResponse) =>
    res.end(JSON.stringify({ object: "list", data: [{ id: "m", object: "model", context_length: window }] }));
  const server: Server = createServer(async (req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.method === "GET" && req.url === "/v1/models") {
      const started = Date.now();
      const timer = setInterval(() => {
        if (!ready() && Date.now() - started < 5000) return;
        clearInterval(timer);
        answerModels(res);
      }, 2);
      return;
    }
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.writeHead(404).end();
      return;
    }
    const upstream = await fetch(`${fake.url}${req.url}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: await readBody(req),
    });
    res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "text/plain" });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function hermes(home: string, baseUrl: string): Promise<NodeRun> {
  const args = ["dist/cli/main.js", "chat", "-q", "hi", "--provider", "custom", "--base-url", `${baseUrl}/v1`];
  return runNode([...args, "--model", "m"], { env: { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" } });
}

test("the context-window probe runs while the session store opens, not before it", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-startup-"));
  // The probe is answered only once the store has created state.db: a start-up that waited for
  // the probe before opening the store would stall until the probe timed out.
  const front = await startFront(200_000, () => existsSync(join(home, "state.db")));
  try {
    const run = await hermes(home, front.url);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Done.\n");
    assert.deepEqual(front.seen.slice(0, 2), ["GET /v1/models", "POST /v1/chat/completions"]);
  } finally {
    await front.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("a window under the minimum still stops the run with the usage error", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-startup-"));
  const front = await startFront(8192, () => true);
  try {
    const run = await hermes(home, front.url);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /8,192/);
    assert.match(run.stderr, /min_context_length 0/);
    assert.ok(!front.seen.includes("POST /v1/chat/completions"));
  } finally {
    await front.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("a window the server reported is kept in context_length_cache.yaml, and the next run does not ask again", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-startup-"));
  const front = await startFront(200_000, () => true);
  try {
    assert.equal((await hermes(home, front.url)).code, 0);
    assert.equal((await hermes(home, front.url)).code, 0);
    assert.deepEqual(
      front.seen.filter((request) => request === "GET /v1/models"),
      ["GET /v1/models"],
    );
    const cache = readFileSync(join(home, "context_length_cache.yaml"), "utf8");
    assert.equal(cache, `context_lengths:\n  m@${front.url}/v1: 200000\n`);
  } finally {
    await front.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("the original agent's context_length_cache.yaml is honoured without asking the server", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-startup-"));
  const front = await startFront(200_000, () => true);
  try {
    // As the original writes it: a window too small for the agent, learned earlier.
    writeFileSync(join(home, "context_length_cache.yaml"), `context_lengths:\n  m@${front.url}/v1: 8192\n`);
    const run = await hermes(home, front.url);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /8,192/);
    assert.deepEqual(front.seen, []);
  } finally {
    await front.close();
    rmSync(home, { recursive: true, force: true });
  }
});
