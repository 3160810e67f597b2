import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { INTENT_NUDGE } from "../../src/agent/turn-checks.js";
import { type RecapSettings, resumeRecap } from "../../src/cli/resume-recap.js";
import { ChatController } from "../../src/cli/tui/controller.js";
import type { Message } from "../../src/llm/types.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { RecordingView } from "./recording-view.js";

const DEFAULTS: RecapSettings = {
  mode: "full",
  exchanges: 10,
  maxUserChars: 300,
  maxAssistantChars: 200,
  maxAssistantLines: 3,
  skipToolOnly: true,
};

const call = { id: "c", type: "function" as const, function: { name: "terminal", arguments: "{}" } };
const history: Message[] = [
  { role: "user", content: "first question" },
  { role: "assistant", content: "first answer" },
  { role: "user", content: "run the build" },
  { role: "assistant", content: null, tool_calls: [call] },
  { role: "tool", tool_call_id: "c", content: "ok" },
  { role: "user", content: "and now?" },
  { role: "assistant", content: "line 1\nline 2\nline 3\nline 4" },
  { role: "user", content: INTENT_NUDGE },
  { role: "assistant", content: "x".repeat(250) },
];

test("a resumed session shows its last exchanges, replies cut to their lines and characters", () => {
  const lines = resumeRecap(history, DEFAULTS);
  assert.equal(lines[0], "Resumed a session with 9 messages (the last 2 exchanges; /history shows all):");
  assert.deepEqual(lines.slice(1, 3), ["you: first question", "hermes: first answer"]);
  assert.equal(lines[3], "you: and now?");
  assert.equal(lines[4], `hermes: ${"x".repeat(200)}…`, "the reply that closed the exchange, cut at 200 characters");
  assert.ok(!lines.some((line) => line.includes("run the build")), "a tool-only exchange is left out");
  assert.ok(!lines.some((line) => line.includes("[System:")), "the agent's own notes are not exchanges");
});

test("resume settings: exchanges, tool-only exchanges, line limits and the minimal mode", () => {
  const shorter: Message[] = history.slice(0, 7);
  const lines = resumeRecap(shorter, { ...DEFAULTS, exchanges: 1, maxAssistantLines: 2 });
  assert.deepEqual(lines.slice(1), ["you: and now?", "hermes: line 1\nline 2…"]);
  const all = resumeRecap(shorter, { ...DEFAULTS, skipToolOnly: false });
  assert.ok(all.includes("you: run the build"));
  assert.deepEqual(resumeRecap(history, { ...DEFAULTS, mode: "minimal" }), [
    "Resumed a session with 9 messages; /history shows them.",
  ]);
  assert.equal(resumeRecap([{ role: "user", content: "y".repeat(400) }], DEFAULTS)[1], `you: ${"y".repeat(300)}…`);
});

let fake: FakeProvider;
let home: string;
const savedHome = process.env.HERMES_HOME;
before(async () => {
  fake = await startFakeProvider({});
  home = mkdtempSync(join(tmpdir(), "hermes-recap-"));
  writeFileSync(join(home, "config.yaml"), "display:\n  bell_on_complete: true\n  resume_exchanges: 1\n");
  process.env.HERMES_HOME = home;
});
after(async () => {
  await fake.close();
  rmSync(home, { recursive: true, force: true });
  if (savedHome === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = savedHome;
});

class BellView extends RecordingView {
  bells = 0;
  bell() {
    this.bells++;
  }
}

test("display.bell_on_complete rings once a turn ends; /resume shows the session's last exchanges", async () => {
  fake.setScript([{ text: "the answer is 4" }, { text: "second" }]);
  const flags = { provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "k", model: "scripted" };
  const view = new BellView();
  const chat = await ChatController.create(flags, view, { localServers: false });
  let sessionId: string;
  try {
    await chat.submit("what is 2+2?");
    assert.equal(view.bells, 1);
    sessionId = chat.runtime.agent.sessionId;
  } finally {
    await chat.close();
  }
  const otherView = new BellView();
  const next = await ChatController.create(flags, otherView, { localServers: false });
  try {
    await next.submit(`/resume ${sessionId}`);
    assert.equal(
      otherView.lastPrint,
      `Resumed session ${sessionId} (2 messages).\nyou: what is 2+2?\nhermes: the answer is 4`,
    );
  } finally {
    await next.close();
  }
});
