import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, RecordedRequest } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";
import { AcpClient, hermesHome, WAIT_MS } from "./harness.js";

const EVERYTHING_BIN = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

let fake: FakeProvider;
const running: AcpClient[] = [];

before(async () => {
  fake = await startFakeProvider({});
});
after(async () => {
  await Promise.all(running.map((c) => c.kill()));
  await fake.close();
});

function toolResults(requests: RecordedRequest[]): string[] {
  const last = requests.filter((r) => r.method === "POST").at(-1);
  return (last?.body.messages ?? [])
    .filter((m: { role: string }) => m.role === "tool")
    .map((m: { content: unknown }) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

test("with the client's fs and terminal capabilities, reads see unsaved buffers, writes and commands go through the editor", async () => {
  const work = tempDir("hermes-acp-work-");
  const buffered = join(work, "buffer.txt");
  writeFileSync(buffered, "saved on disk\n");
  const buffers = new Map([[buffered, "unsaved edit in the editor\n"]]);
  const acp = AcpClient.start({ home: hermesHome(fake.url), buffers });
  running.push(acp);
  await acp.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
  const { sessionId } = await acp.agent.request("session/new", { cwd: work, mcpServers: [] });
  await acp.agent.request("session/set_mode", { sessionId, modeId: "auto-edit" });
  fake.setScript([
    { toolCalls: [{ id: "call-r", name: "read_file", arguments: { path: "buffer.txt" } }] },
    { toolCalls: [{ id: "call-w", name: "write_file", arguments: { path: "out.txt", content: "from the agent\n" } }] },
    { toolCalls: [{ id: "call-t", name: "terminal", arguments: { command: "echo from-the-terminal" } }] },
    { text: "all done" },
  ]);
  const before = fake.requests.length;
  const result = await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  assert.equal(result.stopReason, "end_turn");
  const results = toolResults(fake.requests.slice(before));
  assert.match(results[0] ?? "", /unsaved edit in the editor/);
  assert.equal(buffers.get(join(work, "out.txt")), "from the agent\n");
  assert.ok(!existsSync(join(work, "out.txt")), "the write went to the editor, not the disk");
  assert.match(results[2] ?? "", /from-the-terminal/);
  assert.ok(acp.clientCalls.includes(`read ${buffered}`));
  assert.ok(acp.clientCalls.some((call) => call.startsWith("terminal bash -c echo from-the-terminal")));
  assert.ok(acp.clientCalls.some((call) => call.startsWith("release ")));
  const shown = acp
    .updatesOf(sessionId, "tool_call_update")
    .flatMap((u) => (u.sessionUpdate === "tool_call_update" ? (u.content ?? []) : []));
  assert.ok(shown.some((c) => c.type === "terminal"));
  assert.equal(acp.permissionRequests.length, 0, "auto-edit mode writes without asking");
  await acp.stop();
});

test("without those capabilities the same tools run locally", async () => {
  const work = tempDir("hermes-acp-work-");
  const acp = AcpClient.start({ home: hermesHome(fake.url) });
  running.push(acp);
  await acp.initialize();
  const { sessionId } = await acp.agent.request("session/new", { cwd: work, mcpServers: [] });
  await acp.agent.request("session/set_mode", { sessionId, modeId: "yolo" });
  fake.setScript([
    { toolCalls: [{ id: "call-w", name: "write_file", arguments: { path: "local.txt", content: "on disk\n" } }] },
    { text: "ok" },
  ]);
  await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  assert.equal(readFileSync(join(work, "local.txt"), "utf8"), "on disk\n");
  assert.deepEqual(acp.clientCalls, []);
  await acp.stop();
});

function childrenRunning(parentPid: number, marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (ppid === parentPid && cmdline.includes(marker)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${WAIT_MS} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test("an MCP server the client passes runs for that session only and stops when the session closes", async () => {
  const work = tempDir("hermes-acp-work-");
  const acp = AcpClient.start({ home: hermesHome(fake.url) });
  running.push(acp);
  await acp.initialize();
  const { sessionId } = await acp.agent.request("session/new", {
    cwd: work,
    mcpServers: [{ name: "everything", command: process.execPath, args: [EVERYTHING_BIN, "stdio"], env: [] }],
  });
  assert.equal(childrenRunning(acp.child.pid!, EVERYTHING_BIN).length, 1);
  fake.setScript([
    (req) => {
      const tools: Array<{ function: { name: string } }> = req.body.tools ?? [];
      const echo = tools.find((t) => t.function.name.endsWith("everything_echo"));
      assert.ok(echo, `echo tool offered; got ${tools.map((t) => t.function.name).join(", ")}`);
      return { toolCalls: [{ id: "call-echo", name: echo.function.name, arguments: { message: "ping-from-acp" } }] };
    },
    { text: "echoed" },
  ]);
  const before = fake.requests.length;
  await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo" }] });
  assert.match(toolResults(fake.requests.slice(before))[0] ?? "", /ping-from-acp/);

  const other = await acp.agent.request("session/new", { cwd: work, mcpServers: [] });
  fake.setScript([{ text: "plain" }]);
  const otherBefore = fake.requests.length;
  await acp.agent.request("session/prompt", { sessionId: other.sessionId, prompt: [{ type: "text", text: "hi" }] });
  const otherTools: Array<{ function: { name: string } }> =
    fake.requests.slice(otherBefore).find((r) => r.method === "POST")?.body.tools ?? [];
  assert.ok(!otherTools.some((t) => t.function.name.includes("everything")), "other sessions do not see it");

  await acp.agent.request("session/close", { sessionId });
  await until(() => childrenRunning(acp.child.pid!, EVERYTHING_BIN).length === 0, "the MCP server stopping");
  await acp.stop();
});

test("hostile session input is refused: a relative cwd, an oversized image, an MCP server with a file URL", async () => {
  const acp = AcpClient.start({ home: hermesHome(fake.url) });
  running.push(acp);
  await acp.initialize();
  await assert.rejects(acp.agent.request("session/new", { cwd: "relative/dir", mcpServers: [] }), /absolute/);
  await assert.rejects(
    acp.agent.request("session/new", {
      cwd: tempDir("hermes-acp-work-"),
      mcpServers: [{ type: "http", name: "x", url: "file:///etc/passwd", headers: [] }],
    }),
    /unsupported URL/,
  );
  const { sessionId } = await acp.agent.request("session/new", { cwd: tempDir("hermes-acp-work-"), mcpServers: [] });
  await assert.rejects(
    acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "image", mimeType: "image/png", data: "A".repeat(10_000_004) }],
    }),
    /larger than/,
  );
  await assert.rejects(
    acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "image", mimeType: "text/html", data: "AAAA" }],
    }),
    /unsupported image type/,
  );
  await acp.stop();
});
