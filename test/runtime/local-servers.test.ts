import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildRuntime, NO_PROVIDER_HELP } from "../../src/cli/runtime.js";
import { PROVIDERS } from "../../src/llm/providers.js";
import { detectLocalServer, modelIdsFrom } from "../../src/runtime/local-servers.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";

let fake: FakeProvider;
const servers: Server[] = [];

before(async () => {
  fake = await startFakeProvider({ models: [{ id: "qwen3:8b" }, { id: "llama3.2" }] });
});
after(async () => {
  await fake.close();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

/** A loopback HTTP server answering every request with `handler`; returns its port. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

const unusedPort = async () => {
  const port = await serve(() => {});
  const server = servers.pop()!;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

test("reads model ids from OpenAI-style and Ollama-style lists", () => {
  assert.deepEqual(modelIdsFrom({ data: [{ id: "a" }, { id: "b" }] }), ["a", "b"]);
  assert.deepEqual(modelIdsFrom({ models: [{ name: "llama3:latest" }] }), ["llama3:latest"]);
  assert.deepEqual(modelIdsFrom({ nothing: true }), []);
  assert.deepEqual(modelIdsFrom(null), []);
});

test("finds a server on its port and picks its first model; closed ports are skipped", async () => {
  const closed = await unusedPort();
  const found = await detectLocalServer({
    candidates: [
      { name: "Ollama", port: closed },
      { name: "llama.cpp", port: fake.port },
    ],
  });
  assert.deepEqual(found, {
    name: "llama.cpp",
    baseUrl: `http://127.0.0.1:${fake.port}/v1`,
    model: "qwen3:8b",
    models: ["qwen3:8b", "llama3.2"],
  });
});

test("prefers the earlier candidate when several answer, and skips errors, empty lists and silence", async () => {
  const failing = await serve((_req, res) => res.writeHead(500).end("boom"));
  const empty = await serve((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}'),
  );
  const silent = await serve(() => {});
  const other = await serve((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end('{"data":[{"id":"second-choice"}]}'),
  );
  const started = Date.now();
  const found = await detectLocalServer({
    timeoutMs: 1000,
    candidates: [
      { name: "broken", port: failing },
      { name: "empty", port: empty },
      { name: "silent", port: silent },
      { name: "fake", port: fake.port },
      { name: "other", port: other },
    ],
  });
  assert.equal(found?.name, "fake");
  assert.ok(Date.now() - started < 5000, "a silent port costs at most the timeout");
  assert.equal(await detectLocalServer({ timeoutMs: 300, candidates: [{ name: "silent", port: silent }] }), undefined);
});

async function withCleanEnv<T>(fn: () => Promise<T>): Promise<T> {
  const names = [...new Set([...PROVIDERS.flatMap((p) => p.keyEnvVars), "HERMES_HOME"])];
  const saved = names.map((name) => [name, process.env[name]] as const);
  for (const name of names) delete process.env[name];
  const home = mkdtempSync(join(tmpdir(), "hermes-local-"));
  process.env.HERMES_HOME = home;
  try {
    return await fn();
  } finally {
    rmSync(home, { recursive: true, force: true });
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

test("with nothing configured, the runtime uses a detected local server and says so on stderr", async () => {
  await withCleanEnv(async () => {
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    let runtime: Awaited<ReturnType<typeof buildRuntime>>;
    try {
      runtime = await buildRuntime(
        {},
        { interactive: false, quiet: true, localServers: { candidates: [{ name: "Ollama", port: fake.port }] } },
      );
    } finally {
      process.stderr.write = original;
    }
    try {
      assert.equal(runtime.provider, "custom");
      assert.equal(runtime.model, "qwen3:8b");
      assert.equal(runtime.baseUrl, `http://127.0.0.1:${fake.port}/v1`);
      assert.match(
        written.join(""),
        new RegExp(`using Ollama at http://127\\.0\\.0\\.1:${fake.port}/v1 \\(model qwen3:8b\\)`),
      );
      fake.setScript([{ text: "local hello" }]);
      const result = await runtime.agent.runConversation("hi");
      assert.equal(result.finalResponse, "local hello");
    } finally {
      await runtime.close();
    }
  });
});

test("with nothing configured and no local server, the runtime explains the ways out", async () => {
  await withCleanEnv(async () => {
    const closed = await unusedPort();
    await assert.rejects(
      buildRuntime(
        {},
        { interactive: false, quiet: true, localServers: { candidates: [{ name: "x", port: closed }] } },
      ),
      (error: Error) => error.message === NO_PROVIDER_HELP,
    );
  });
});
