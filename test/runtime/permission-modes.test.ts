import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Message } from "../../src/llm/types.js";
import type { FakeProvider, RecordedRequest, ScriptStep } from "../fake-provider/types.js";
import { conversationOf, lastToolResults } from "../helpers/agent-harness.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { tempDir } from "../state/temp-dir.js";

/** A runtime whose commands and relative paths work in a fresh project directory. */
async function open(
  script: ScriptStep[],
  config = "",
  overrides: { permissionMode?: "plan" | "ask" | "auto-edit" | "yolo" } = {},
) {
  const work = tempDir("hermes-modes-cwd-");
  const opened = await openTestRuntime({ script, config: `terminal:\n  cwd: ${work}\n${config}`, overrides });
  return { ...opened, work };
}

const posts = (fake: FakeProvider): RecordedRequest[] => fake.requests.filter((r) => r.method === "POST");
const results = (fake: FakeProvider) =>
  posts(fake)
    .slice(1)
    .map((request) => lastToolResults(request)[0] ?? "");
const userText = (message: Message | undefined) => (typeof message?.content === "string" ? message.content : "");

test("plan mode refuses every writing path through the real tools, runs read-only ones, and tells the model it is planning", async () => {
  const opened = await open(
    [
      { toolCalls: [{ name: "write_file", arguments: { path: "new.txt", content: "x" } }] },
      { toolCalls: [{ name: "patch", arguments: { path: "keep.txt", old_string: "keep", new_string: "lost" } }] },
      { toolCalls: [{ name: "terminal", arguments: { command: "touch made-by-terminal" } }] },
      { toolCalls: [{ name: "execute_code", arguments: { code: "print(1)" } }] },
      { toolCalls: [{ name: "process", arguments: { action: "write", session_id: "p1", data: "y" } }] },
      { toolCalls: [{ name: "terminal", arguments: { command: "ls && cat keep.txt" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "keep.txt" } }] },
      { text: "Plan: 1. ..." },
    ],
    "approvals:\n  default_mode: plan\n",
  );
  try {
    writeFileSync(join(opened.work, "keep.txt"), "keep\n");
    const agent = opened.runtime.createAgent({ interactive: true });
    assert.equal(agent.options.permissions?.mode, "plan", "approvals.default_mode sets the starting mode");
    const result = await agent.runConversation("add a feature");
    assert.equal(result.finalResponse, "Plan: 1. ...");
    const [write, patch, touch, code, proc, ls, read] = results(opened.fake);
    for (const [name, refused] of Object.entries({ write, patch, touch, code, proc })) {
      assert.match(refused!, /^Plan mode is on \(read-only\), so this \w+ call was not run/, name);
    }
    assert.match(ls!, /keep\.txt/, "a read-only command runs");
    assert.match(read!, /keep/);
    assert.equal(existsSync(join(opened.work, "new.txt")), false);
    assert.equal(existsSync(join(opened.work, "made-by-terminal")), false);
    assert.equal(readFileSync(join(opened.work, "keep.txt"), "utf8"), "keep\n");
    const first = conversationOf(posts(opened.fake)[0]!);
    assert.match(
      userText(first.at(-1)),
      /Plan mode is on: this session is read-only/,
      "the note rides with the user message",
    );
    const system = (posts(opened.fake)[0]!.body.messages as Message[])[0]!;
    assert.doesNotMatch(userText(system), /Plan mode is on/, "the system prompt is not touched");

    // Switching to ask lets the same agent edit.
    agent.options.permissions!.mode = "ask";
    const fake2 = opened.fake;
    fake2.setScript([
      { toolCalls: [{ name: "write_file", arguments: { path: "new.txt", content: "x" } }] },
      { text: "done" },
    ]);
    await agent.runConversation("go ahead");
    assert.equal(readFileSync(join(opened.work, "new.txt"), "utf8"), "x");
  } finally {
    await opened.close();
  }
});

test("permissions.deny blocks by pattern in every mode; permissions.allow lets a command run that would need approval", async () => {
  const opened = await open(
    [
      { toolCalls: [{ name: "write_file", arguments: { path: "secrets/key.txt", content: "x" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "src/ok.txt", content: "x" } }] },
      { toolCalls: [{ name: "terminal", arguments: { command: "rm -r ./build" } }] },
      { toolCalls: [{ name: "terminal", arguments: { command: "rm -r ./victim" } }] },
      { text: "done" },
    ],
    "permissions:\n  deny: ['write_file(secrets/**)']\n  allow: ['terminal(rm -r ./build)']\n",
    { permissionMode: "yolo" },
  );
  try {
    mkdirSync(join(opened.work, "build"));
    mkdirSync(join(opened.work, "victim"));
    const yolo = opened.runtime.createAgent({ interactive: false });
    await yolo.runConversation("tidy up");
    const [secret, ok] = results(opened.fake);
    assert.match(secret!, /Blocked by the permissions\.deny rule "write_file\(secrets\/\*\*\)"/);
    assert.match(ok!, /"success":true|Wrote|bytes/i);
    assert.equal(existsSync(join(opened.work, "secrets")), false, "denied even in yolo mode");
    assert.equal(existsSync(join(opened.work, "build")), false, "the allowed command ran");
    assert.equal(existsSync(join(opened.work, "victim")), false, "yolo mode runs a dangerous command without asking");

    // In ask mode with nobody to ask, the same dangerous command is refused unless a rule allows it.
    mkdirSync(join(opened.work, "build"));
    mkdirSync(join(opened.work, "victim"));
    opened.fake.setScript([
      { toolCalls: [{ name: "terminal", arguments: { command: "rm -r ./build" } }] },
      { toolCalls: [{ name: "terminal", arguments: { command: "rm -r ./victim" } }] },
      { text: "done" },
    ]);
    const sent = posts(opened.fake).length;
    const ask = opened.runtime.createAgent({ interactive: false, permissionMode: "ask" });
    await ask.runConversation("tidy up again");
    const later = posts(opened.fake)
      .slice(sent + 1)
      .map((request) => lastToolResults(request)[0] ?? "");
    assert.equal(existsSync(join(opened.work, "build")), false, "permissions.allow preapproved it");
    assert.ok(existsSync(join(opened.work, "victim")), "no rule: refused with nobody to ask");
    assert.match(later[1]!, /Nobody is available to approve/);
  } finally {
    await opened.close();
  }
});

test("a malformed permission rule is reported at start-up and the others still apply", async () => {
  const opened = await open([], "permissions:\n  deny: ['write_file(src/**', 'terminal(rm *)']\n");
  try {
    assert.ok(
      opened.notices.some((n) => /permissions\.deny: .*write_file\(src\/\*\*/.test(n)),
      opened.notices.join("\n"),
    );
  } finally {
    await opened.close();
  }
});
