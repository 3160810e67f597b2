import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { JSONRPCMessageSchema, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { runNode } from "../helpers/run-node.js";
import { connect, makeHome, SERVE_COMMAND, serveEnv, textOf } from "./harness.js";

let fake: FakeProvider;

before(async () => {
  fake = await startFakeProvider({ fallback: { text: "plain answer" } });
});
after(() => fake.close());

/** Sends JSON-RPC lines and resolves each request when the line answering its id arrives. */
function rawSession(home: string) {
  const child = spawn(process.execPath, SERVE_COMMAND, { env: serveEnv(home), stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let buffered = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      lines.push(line);
      try {
        const message = JSON.parse(line) as Record<string, unknown>;
        if (typeof message.id === "number") waiting.get(message.id)?.(message);
      } catch {
        // Reported by the assertion on every line.
      }
      newline = buffered.indexOf("\n");
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let nextId = 1;
  return {
    child,
    lines,
    exited,
    stderr: () => stderr,
    rest: () => buffered,
    notify(method: string, params: Record<string, unknown> = {}) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method, params })}\n`);
    },
    request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
      const id = nextId++;
      const answered = new Promise<Record<string, unknown>>((resolve, reject) => {
        waiting.set(id, resolve);
        child.once("exit", (code) => reject(new Error(`server exited ${code} before answering ${method}: ${stderr}`)));
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return answered;
    },
    write(text: string) {
      child.stdin.write(text);
    },
  };
}

test("stdout carries only JSON-RPC messages, and the server exits 0 when the client closes stdin", async () => {
  const { home, work } = makeHome(fake);
  writeFileSync(join(work, "a.txt"), "hello\n");
  const session = rawSession(home);
  try {
    const init = await session.request("initialize", {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "raw", version: "0" },
    });
    assert.equal((init.result as { serverInfo: { name: string } }).serverInfo.name, "hermes-agent");
    session.notify("notifications/initialized");
    await session.request("tools/list");
    // Hostile input: a line that is not JSON, then a call with arguments of the wrong shape.
    session.write("this is not json\n");
    const bad = await session.request("tools/call", { name: "terminal", arguments: { command: ["ls"] } });
    assert.equal((bad.result as { isError: boolean }).isError, true);
    await session.request("tools/call", { name: "read_file", arguments: { path: join(work, "a.txt") } });
    await session.request("tools/call", {
      name: "terminal",
      arguments: { command: "echo to-stdout; echo to-stderr >&2" },
    });
    const chat = await session.request("tools/call", { name: "chat", arguments: { message: "hi" } });
    assert.match(textOf(chat.result), /plain answer/);
    session.child.stdin.end();
    assert.equal(await session.exited, 0, session.stderr());
  } finally {
    session.child.kill();
  }
  assert.equal(session.rest(), "", "stdout ends with a complete line");
  assert.ok(session.lines.length >= 6);
  for (const line of session.lines) {
    assert.ok(JSONRPCMessageSchema.safeParse(JSON.parse(line)).success, `not a JSON-RPC message: ${line}`);
  }
  assert.match(session.stderr(), /serving \d+ tools from file, terminal/);
});

test("mcp_serve.toolsets in config.yaml chooses the served toolsets, without an unknown-key warning", async () => {
  const { home } = makeHome(fake);
  appendFileSync(join(home, "config.yaml"), "mcp_serve:\n  toolsets:\n    - file\n");
  const served = await connect(home);
  try {
    const names = (await served.client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes("read_file"));
    assert.ok(!names.includes("terminal"));
    assert.doesNotMatch(served.stderr(), /unknown key/);
  } finally {
    await served.close();
  }
});

test("an unknown toolset stops the server before it serves, with a usage error on stderr", async () => {
  const { home } = makeHome(fake);
  const run = await runNode([...SERVE_COMMAND, "--toolsets", "file,flies"], { env: serveEnv(home) });
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /unknown toolset "flies"/);
});

test("SIGTERM stops a serving server cleanly", async () => {
  const { home } = makeHome(fake);
  const child = spawn(process.execPath, SERVE_COMMAND, { env: serveEnv(home), stdio: ["pipe", "pipe", "pipe"] });
  try {
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
        if (stderr.includes("serving")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`exited ${code} before serving: ${stderr}`)));
    });
    child.kill("SIGTERM");
    assert.equal(await exited, 0, stderr);
  } finally {
    child.kill("SIGKILL");
  }
});
