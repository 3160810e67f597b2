import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { ApprovalPolicy } from "../../src/tools/approval/policy.js";
import { registerProcessTools } from "../../src/tools/builtin/process.js";
import { registerTerminalTools } from "../../src/tools/builtin/terminal.js";
import { ProcessManager } from "../../src/tools/process-manager.js";
import { type ToolContext, ToolRegistry } from "../../src/tools/registry.js";
import { isAlive, makeCtx, waitUntil } from "./process-helpers.js";

const processManager = new ProcessManager({ killGraceMs: 500 });
after(() => processManager.dispose());

const registry = new ToolRegistry();
registerTerminalTools(registry, { processManager, approvals: new ApprovalPolicy() });
registerProcessTools(registry, { processManager });

async function call(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>> {
  const spec = registry.get(name);
  assert.ok(spec, name);
  return JSON.parse(await spec.handler(spec.parameters.parse(args), ctx)) as Record<string, unknown>;
}

async function startBackground(command: string, ctx: ToolContext): Promise<string> {
  const started = await call("terminal", { command, background: true }, ctx);
  assert.equal(typeof started.session_id, "string", JSON.stringify(started));
  return started.session_id as string;
}

describe("process tool", () => {
  test("lifecycle: list, poll, log, wait", async () => {
    const ctx = makeCtx({ sessionId: "life" });
    const id = await startBackground("seq 1 5; echo done", ctx);
    const listed = (await call("process", { action: "list" }, ctx)).processes as { session_id: string }[];
    assert.deepEqual(
      listed.map((p) => p.session_id),
      [id],
    );
    const waited = await call("process", { action: "wait", session_id: id, timeout: 10 }, ctx);
    assert.equal(waited.status, "exited");
    assert.equal(waited.exit_code, 0);
    assert.equal(waited.timed_out, false);
    const polled = await call("process", { action: "poll", session_id: id }, ctx);
    assert.equal(polled.new_output, "1\n2\n3\n4\n5\ndone\n");
    assert.equal((await call("process", { action: "poll", session_id: id }, ctx)).new_output, "");
    const log = await call("process", { action: "log", session_id: id, offset: 1, limit: 2 }, ctx);
    assert.equal(log.output, "2\n3");
  });

  test("write and submit feed stdin, close ends it", async () => {
    const ctx = makeCtx({ sessionId: "stdin" });
    const id = await startBackground("cat", ctx);
    await call("process", { action: "write", session_id: id, data: "par" }, ctx);
    await call("process", { action: "submit", session_id: id, data: "tial" }, ctx);
    await waitUntil(() => processManager.log(id).output === "partial", 5000, "cat to echo");
    await call("process", { action: "close", session_id: id }, ctx);
    const waited = await call("process", { action: "wait", session_id: id, timeout: 10 }, ctx);
    assert.equal(waited.exit_code, 0);
    assert.equal(waited.output, "partial\n");
  });

  test("kill stops a running process", async () => {
    const ctx = makeCtx({ sessionId: "kill" });
    const id = await startBackground("sleep 30", ctx);
    const killed = await call("process", { action: "kill", session_id: id }, ctx);
    assert.equal(killed.status, "killed");
    assert.equal(isAlive(killed.pid as number), false);
  });

  test("wait returns when its timeout passes", async () => {
    const ctx = makeCtx({ sessionId: "slow" });
    const id = await startBackground("sleep 30", ctx);
    const waited = await call("process", { action: "wait", session_id: id, timeout: 1 }, ctx);
    assert.equal(waited.timed_out, true);
    assert.equal(waited.status, "running");
  });

  test("explains missing arguments and unknown ids", async () => {
    const ctx = makeCtx({ sessionId: "errors" });
    assert.match(String((await call("process", { action: "poll" }, ctx)).error), /session_id is required/);
    assert.match(String((await call("process", { action: "poll", session_id: "proc_x" }, ctx)).error), /list/);
    const id = await startBackground("cat", ctx);
    assert.match(String((await call("process", { action: "write", session_id: id }, ctx)).error), /data is required/);
    const other = makeCtx({ sessionId: "someone-else" });
    assert.match(String((await call("process", { action: "kill", session_id: id }, other)).error), /no background/);
  });
});

test("text written to a background shell goes through the approval policy like a command", async () => {
  const guarded = new ToolRegistry();
  registerTerminalTools(guarded, { processManager, approvals: new ApprovalPolicy() });
  registerProcessTools(guarded, { processManager, approvals: new ApprovalPolicy() });
  const run = async (name: string, args: Record<string, unknown>, ctx: ToolContext) => {
    const spec = guarded.get(name)!;
    return JSON.parse(await spec.handler(spec.parameters.parse(args), ctx)) as Record<string, unknown>;
  };
  const ctx = makeCtx({ sessionId: "shell-stdin", platform: "cron", interactive: false });
  const started = await run("terminal", { command: "bash", background: true }, ctx);
  const id = started.session_id as string;
  const refused = await run("process", { action: "submit", session_id: id, data: "rm -rf ./decoy" }, ctx);
  assert.match(String(refused.error), /Nobody is available to approve/);
  const allowed = await run("process", { action: "submit", session_id: id, data: "echo fine" }, ctx);
  assert.equal(allowed.error, undefined);
  await run("process", { action: "kill", session_id: id }, ctx);
});
