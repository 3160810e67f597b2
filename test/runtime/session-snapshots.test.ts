import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sessionExportJson, sessionSnapshotPath } from "../../src/state/session-snapshots.js";
import { openTestRuntime } from "../helpers/test-runtime.js";

const SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";

test("sessions.write_json_snapshots: after each turn the session is in sessions/session_<id>.json, as export JSON", async () => {
  const rt = await openTestRuntime({
    config: "sessions:\n  write_json_snapshots: true\n",
    script: [{ text: "first answer" }, { text: "second answer" }],
  });
  try {
    const agent = rt.runtime.createAgent();
    const first = await agent.runConversation(`remember ${SECRET}`);
    const file = join(rt.home, "sessions", `session_${first.sessionId}.json`);
    assert.equal(sessionSnapshotPath(rt.home, first.sessionId), file);
    assert.ok(existsSync(file), "the snapshot exists after the first turn");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const afterFirst = JSON.parse(readFileSync(file, "utf8"));
    assert.equal(afterFirst.format, "hermes-session");
    assert.equal(afterFirst.session.id, first.sessionId);
    assert.deepEqual(
      afterFirst.messages.map((m: { role: string }) => m.role),
      ["user", "assistant"],
    );
    assert.match(afterFirst.messages[0].content, /^remember sk-pro\.\.\.6789$/, "the secret is masked");
    assert.doesNotMatch(readFileSync(file, "utf8"), new RegExp(SECRET));

    await agent.runConversation("and again");
    const afterSecond = readFileSync(file, "utf8");
    const parsed = JSON.parse(afterSecond);
    assert.deepEqual(
      parsed.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
      [
        ["user", "remember sk-pro...6789"],
        ["assistant", "first answer"],
        ["user", "and again"],
        ["assistant", "second answer"],
      ],
    );
    // Byte for byte what `hermes sessions export` writes for the session.
    assert.equal(afterSecond, sessionExportJson(await rt.runtime.store.exportSession(first.sessionId)));
  } finally {
    await rt.close();
  }
});

test("without sessions.write_json_snapshots no snapshot is written", async () => {
  const rt = await openTestRuntime({ script: [{ text: "an answer" }] });
  try {
    const result = await rt.runtime.createAgent().runConversation("hello");
    assert.equal(result.finalResponse, "an answer");
    assert.ok(await rt.runtime.store.getSession(result.sessionId), "the store has the session");
    assert.equal(existsSync(join(rt.home, "sessions")), false);
  } finally {
    await rt.close();
  }
});

test("a session id that is not a safe file name cannot place its snapshot outside sessions/", () => {
  const path = sessionSnapshotPath("/home/h", "../../etc/passwd");
  assert.equal(path, "/home/h/sessions/session_.._.._etc_passwd.json");
});
