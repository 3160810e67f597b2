import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ChatController } from "../../src/cli/tui/controller.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, ScriptedTurn } from "../fake-provider/types.js";
import { backgroundScript, HeldChildren, lastUserText } from "../helpers/background-subagents.js";
import { useTitleEndpoint } from "../helpers/title-endpoint.js";
import { RecordingView } from "./recording-view.js";

let titles: FakeProvider;
const savedHome = process.env.HERMES_HOME;

before(async () => {
  titles = await startFakeProvider({ fallback: { text: "A title" } });
});
after(async () => {
  await titles.close();
  if (savedHome === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = savedHome;
});

/** Also records the line each turn starts with in the transcript. */
class LabelView extends RecordingView {
  started: string[] = [];
  override turnStarted(text?: string) {
    this.started.push(text ?? "");
  }
}

const dispatchOn = (goal: string): ScriptedTurn => ({
  toolCalls: [{ name: "delegate_task", arguments: { goal, background: true } }],
});

/**
 * A terminal session whose parent dispatches `goal` in the background on "dispatch", holds its
 * reply to "wait here" until the test releases "@parent", and answers anything else with "ok".
 */
async function session(held: HeldChildren, goal: string) {
  const fake = await startFakeProvider({
    fallback: backgroundScript(held, {
      onUser: (req) => {
        const text = lastUserText(req);
        if (text === "dispatch") return dispatchOn(goal);
        if (text === "wait here") return held.answer("@parent");
        return { text: `answered: ${text}` };
      },
      onToolResult: () => ({ text: "It runs in the background; I will report back." }),
    }),
  });
  const home = mkdtempSync(join(tmpdir(), "hermes-bg-tui-"));
  useTitleEndpoint(home, titles.url);
  writeFileSync(join(home, "config.yaml"), "learning:\n  mode: off\n", { flag: "a" });
  process.env.HERMES_HOME = home;
  const view = new LabelView();
  const flags = { provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "k", model: "scripted" };
  const chat = await ChatController.create(flags, view, { localServers: false });
  return {
    chat,
    view,
    fake,
    /** Waits for the background children to finish and the turns they cause to run. */
    settle: async () => {
      await chat.runtime.background.idle();
      await chat.idle();
    },
    close: async () => {
      await chat.close();
      await fake.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

test("a finished background subagent comes back as a new turn of the same session, marked as not the user's", async () => {
  const held = new HeldChildren();
  const s = await session(held, "summarise the changelog");
  try {
    await s.chat.submit("dispatch");
    assert.equal(s.view.outcomes[0]?.result?.finalResponse, "It runs in the background; I will report back.");
    assert.equal(s.chat.busy, false, "the turn ended while the subagent works");
    held.release("summarise the changelog", { text: "Three releases; the last one fixed the parser." });
    await s.settle();

    assert.ok(
      s.view.printed.some((line) => /^⇠ background subagent bg_\w+ finished: summarise the changelog$/.test(line)),
    );
    assert.match(
      s.view.started[1] ?? "",
      /^⇠ result of background subagent bg_\w+$/,
      "the transcript shows a short line",
    );
    const reply = s.view.outcomes[1]?.result?.finalResponse ?? "";
    assert.match(reply, /^parent read: \[Background subagent result bg_\w+ — this is not a message from the user\]/);

    const { agent, store } = s.chat.runtime;
    const stored = await store.getMessages(agent.sessionId);
    const turn = stored.find((m) => m.role === "user" && String(m.content).startsWith("[Background subagent result"));
    assert.ok(turn, "the result turn is in the session's transcript");
    assert.match(
      String(turn.content),
      /<untrusted_content>\nThree releases; the last one fixed the parser\.\n<\/untrusted_content>/,
    );
    assert.equal(stored.at(-1)?.role, "assistant");
    assert.equal(stored.at(-1)?.content, reply);
  } finally {
    held.release("@parent", { text: "unused" });
    await s.close();
  }
});

test("a background subagent that fails is reported as a failure", async () => {
  const held = new HeldChildren();
  const s = await session(held, "fetch the report");
  try {
    await s.chat.submit("dispatch");
    held.release("fetch the report", { fault: { kind: "status", status: 400, message: "bad request body" } });
    await s.settle();
    assert.ok(
      s.view.printed.some((line) =>
        /^⇠ background subagent bg_\w+ failed \(.*bad request body.*\): fetch the report$/.test(line),
      ),
      s.view.printed.join("\n"),
    );
    assert.match(s.view.outcomes[1]?.result?.finalResponse ?? "", /it FAILED: .*bad request body/);
  } finally {
    held.release("@parent", { text: "unused" });
    await s.close();
  }
});

test("/stop interrupts only the foreground turn; the background subagent goes on and reports afterwards", async () => {
  const held = new HeldChildren();
  const s = await session(held, "long analysis");
  try {
    await s.chat.submit("dispatch");
    const waiting = s.chat.submit("wait here");
    await held.arrived("@parent");
    s.chat.stop();
    await waiting;
    assert.equal(s.view.outcomes[1]?.result?.interrupted, true);
    assert.equal(s.chat.runtime.background.activeCount, 1, "the background subagent still runs");

    held.release("long analysis", { text: "analysis complete" });
    await s.settle();
    assert.equal(s.view.outcomes.length, 3);
    assert.match(s.view.outcomes[2]?.result?.finalResponse ?? "", /analysis complete/);
  } finally {
    held.release("@parent", { text: "unused" });
    await s.close();
  }
});

test("a result that arrives during a turn waits for it, and after /stop waits for the user's next message", async () => {
  const held = new HeldChildren();
  const s = await session(held, "quick check");
  try {
    await s.chat.submit("dispatch");
    const waiting = s.chat.submit("wait here");
    await held.arrived("@parent");
    held.release("quick check", { text: "all good" });
    await s.chat.runtime.background.idle();
    assert.equal(s.view.outcomes.length, 1, "no turn starts while one is running");
    s.chat.stop();
    await waiting;
    await s.chat.idle();
    assert.equal(s.view.outcomes.length, 2, "after /stop the result does not start a turn by itself");
    assert.match(s.view.lastPrint, /1 background subagent result waits: it goes to the agent after your next message/);

    await s.chat.submit("next question");
    await s.chat.idle();
    // The interrupted turn left its message unanswered: the next one joins it.
    assert.equal(s.view.outcomes.length, 4);
    assert.match(s.view.outcomes[2]?.result?.finalResponse ?? "", /^answered: wait here\n\nnext question$/);
    assert.match(s.view.outcomes[3]?.result?.finalResponse ?? "", /^parent read: \[Background subagent result .*/);
  } finally {
    held.release("@parent", { text: "unused" });
    await s.close();
  }
});

test("/agents lists the session's background subagent while a turn runs, and /agents stop ID stops it unreported", async () => {
  const held = new HeldChildren();
  const s = await session(held, "index the archive");
  try {
    await s.chat.submit("dispatch");
    await held.arrived("index the archive");
    const waiting = s.chat.submit("wait here");
    await held.arrived("@parent");
    await s.chat.submit("/agents");
    const id = /^ {2}(bg_\w+) {2}\d+s {2}index the archive$/m.exec(s.view.lastPrint)?.[1];
    assert.ok(id, s.view.lastPrint);
    await s.chat.submit(`/agents stop ${id}`);
    assert.equal(s.view.lastPrint, `Stopped ${id} (index the archive); its result will not be reported.`);
    held.release("@parent", { text: "done waiting" });
    await waiting;
    await s.settle();
    assert.equal(s.view.outcomes.length, 2, "no turn came from the stopped child");
    await s.chat.submit("/agents");
    assert.equal(s.view.lastPrint, "No background subagents are running in this session.");
  } finally {
    held.release("@parent", { text: "unused" });
    held.release("index the archive", { text: "unused" });
    await s.close();
  }
});
