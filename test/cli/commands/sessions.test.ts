import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerSessionsCommands } from "../../../src/cli/commands/sessions.js";
import { SqliteSessionStore } from "../../../src/state/sqlite-session-store.js";
import { run, tempHome } from "./state-command-harness.js";

const sessions = (home: string, ...args: string[]) => run(registerSessionsCommands, home, ["sessions", ...args]);

async function seed(home: string): Promise<string> {
  const store = await SqliteSessionStore.open(join(home, "state.db"));
  const s = await store.createSession({ id: "20250101_120000_abcdef", source: "cli", model: "m" });
  await store.appendMessages(s.id, [
    { role: "user", content: "Summarise the quarterly report" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "read_file", arguments: '{"path":"q3.md"}' } }],
    },
    { role: "tool", content: "Revenue grew 12%", tool_call_id: "c", name: "read_file" },
    { role: "assistant", content: "Revenue grew 12% in the quarter." },
  ]);
  await store.createSession({ id: "20250102_120000_fedcba", source: "telegram", title: "Holiday plans" });
  store.close();
  return s.id;
}

test("sessions list shows recent sessions with a preview, filterable by source", async () => {
  const home = tempHome();
  assert.match((await sessions(home, "list")).out, /No sessions yet/);
  await seed(home);
  const list = await sessions(home, "list");
  const lines = list.out.trim().split("\n");
  assert.equal(lines.length, 2);
  assert.match(list.out, /20250101_120000_abcdef .* cli .* 4 msgs {2}Summarise the quarterly report/);
  assert.match(list.out, /Holiday plans/);
  const tg = JSON.parse((await sessions(home, "list", "--source", "telegram", "--json")).out);
  assert.deepEqual(
    tg.map((s: { id: string }) => s.id),
    ["20250102_120000_fedcba"],
  );
  await assert.rejects(sessions(home, "list", "--limit", "lots"), /--limit needs a whole number/);
});

test("sessions show prints the transcript; search finds messages with highlighted snippets", async () => {
  const home = tempHome();
  const id = await seed(home);
  const shown = await sessions(home, "show", id);
  assert.match(shown.out, /\[user\] Summarise the quarterly report/);
  assert.match(shown.out, /→ read_file\(\{"path":"q3\.md"\}\)/);
  assert.match(shown.out, /\[tool read_file\] Revenue grew 12%/);
  const found = await sessions(home, "search", "revenue", "grew");
  assert.equal(found.out.trim().split("\n").length, 2);
  assert.match(found.out, /\*\*Revenue\*\* \*\*grew\*\*/);
  const onlyTool = JSON.parse((await sessions(home, "search", "revenue", "--role", "tool", "--json")).out);
  assert.equal(onlyTool.length, 1);
  assert.match((await sessions(home, "search", '"foo AND (')).out, /No matches/);
  await assert.rejects(sessions(home, "show", "missing"), /no session with id "missing"/);
});

test("sessions show marks where a compaction archived the messages above", async () => {
  const home = tempHome();
  const id = await seed(home);
  const store = await SqliteSessionStore.open(join(home, "state.db"));
  await store.compactInPlace(id, "rebuilt", [{ role: "user", content: "[summary] the report was read" }]);
  store.close();
  const lines = (await sessions(home, "show", id)).out.split("\n");
  const mark = lines.findIndex((line) => line.includes("compacted here"));
  assert.ok(mark > 0, "the compaction is marked");
  assert.match(lines.slice(0, mark).join("\n"), /Revenue grew 12% in the quarter/);
  assert.match(lines.slice(mark).join("\n"), /\[user\] \[summary\] the report was read/);
});

test("sessions export, delete, import and rename round trip", async () => {
  const home = tempHome();
  const id = await seed(home);
  const file = join(home, "export.json");
  assert.match((await sessions(home, "export", id, "--out", file)).out, /Exported 4 messages/);
  const exported = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(exported.session.id, id);
  assert.deepEqual(JSON.parse((await sessions(home, "export", id)).out), exported);

  // Tests run without a terminal on stdin: deleting needs --yes, and nothing goes without it.
  await assert.rejects(
    sessions(home, "delete", id),
    /not deleting session .* 4 messages without confirmation: pass --yes/,
  );
  assert.match((await sessions(home, "show", id)).out, /./, "still there");
  assert.match((await sessions(home, "delete", id, "--yes")).out, /Deleted session/);
  await assert.rejects(sessions(home, "delete", id, "--yes"), /no session with id/);
  assert.match((await sessions(home, "import", file)).out, /Imported session 20250101_120000_abcdef \(4 messages\)/);
  await assert.rejects(sessions(home, "import", file), /already exists/);
  await sessions(home, "import", file, "--replace");
  assert.deepEqual(JSON.parse((await sessions(home, "export", id)).out), exported);

  await sessions(home, "rename", id, "Quarterly", "report");
  assert.match((await sessions(home, "list")).out, /Quarterly report/);
  await assert.rejects(sessions(home, "import", join(home, "nope.json")), /cannot read/);
});

test("a cost is shown as money only when known", async () => {
  const { describeCost } = await import("../../../src/cli/commands/sessions.js");
  assert.equal(describeCost(null, 2, 2), "unknown (no price known for the models used)");
  assert.equal(describeCost(0.5, 0, 3), "$0.50");
  assert.equal(describeCost(0.004, 1, 3), "$0.0040 for 2 of 3 sessions (the rest unknown)");
});

test("sessions stats and prune", async () => {
  const home = tempHome();
  await seed(home);
  const stats = JSON.parse((await sessions(home, "stats", "--json")).out);
  assert.equal(stats.sessions, 2);
  assert.equal(stats.messages, 4);
  assert.deepEqual(stats.bySource, { cli: 1, telegram: 1 });
  assert.match((await sessions(home, "stats")).out, /sessions {2}2\nmessages {2}4/);
  assert.match((await sessions(home, "stats")).out, /cost {6}unknown \(no price known/, "never $0.0000 for unknown");
  assert.match((await sessions(home, "prune", "--older-than", "30")).out, /Pruned 0 sessions older than 30 days/);
  assert.match((await sessions(home, "prune", "--older-than", "0", "--yes")).out, /Pruned 2 sessions/);
  await assert.rejects(sessions(home, "prune", "--older-than", "x"), /--older-than needs a number/);
  await assert.rejects(sessions(home, "prune"), /required option/);
});

test("an export masks keys pasted into the conversation; the store keeps them as they were", async () => {
  const home = tempHome();
  const store = await SqliteSessionStore.open(join(home, "state.db"));
  const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
  const s = await store.createSession({ id: "20250103_120000_aaaaaa", source: "cli" });
  await store.appendMessages(s.id, [{ role: "user", content: `use this key: ${secret}` }]);
  store.close();
  const exported = (await sessions(home, "export", s.id)).out;
  assert.doesNotMatch(exported, /abcdefghijklmnopqrstuvwxyz0123456789/);
  assert.match(JSON.parse(exported).messages[0].content, /^use this key: sk-pro/);
  const reopened = await SqliteSessionStore.open(join(home, "state.db"));
  assert.match(String((await reopened.getMessages(s.id))[0]?.content), /abcdefghijklmnopqrstuvwxyz0123456789/);
  reopened.close();
});
