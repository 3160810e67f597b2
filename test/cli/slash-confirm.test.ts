/**
 * The go-ahead question before /new, /clear, /undo and /reload-mcp in the terminal, through the
 * real controller and runtime (the view answers as told); piped input through a real process.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ChatController } from "../../src/cli/tui/controller.js";
import type { ConfirmAnswer, ConfirmKind } from "../../src/runtime/slash-confirm.js";
import { loadConfigAsync } from "../../src/state/config-load.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, RecordedRequest } from "../fake-provider/types.js";
import { runNode } from "../helpers/run-node.js";
import { useTitleEndpoint } from "../helpers/title-endpoint.js";
import { RecordingView } from "./recording-view.js";

/** A terminal that answers each go-ahead question with the next of `answers`. */
class ConfirmingView extends RecordingView {
  answers: ConfirmAnswer[] = [];
  questions: Array<{ question: string; kind: ConfirmKind }> = [];
  async askConfirm(question: string, kind: ConfirmKind): Promise<ConfirmAnswer> {
    this.questions.push({ question, kind });
    const answer = this.answers.shift();
    if (!answer) throw new Error(`asked without an answer ready: ${question}`);
    return answer;
  }
}

let fake: FakeProvider;
let titles: FakeProvider;
const homes: string[] = [];
const savedHome = process.env.HERMES_HOME;

before(async () => {
  fake = await startFakeProvider({ fallback: (req) => ({ text: `reply ${req.body.messages.length}` }) });
  titles = await startFakeProvider({ fallback: { text: "A title" } });
});
after(async () => {
  await fake.close();
  await titles.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
  if (savedHome === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = savedHome;
});

function freshHome(extraConfig = ""): string {
  const home = mkdtempSync(join(tmpdir(), "hermes-confirm-"));
  homes.push(home);
  useTitleEndpoint(home, titles.url);
  if (extraConfig) appendFileSync(join(home, "config.yaml"), extraConfig);
  return home;
}

async function session(extraConfig = ""): Promise<{ chat: ChatController; view: ConfirmingView; home: string }> {
  const home = freshHome(extraConfig);
  process.env.HERMES_HOME = home;
  const view = new ConfirmingView();
  const flags = { provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "k", model: "scripted" };
  const chat = await ChatController.create(flags, view, { localServers: false });
  return { chat, view, home };
}

const userTexts = (req: RecordedRequest | undefined): string[] =>
  (req?.body.messages ?? [])
    .filter((m: { role: string }) => m.role === "user")
    .map((m: { content: string }) => m.content);

test("/new in a conversation asks first: cancel keeps the session as it was, once starts a new one", async () => {
  const { chat, view } = await session();
  try {
    await chat.submit("hello");
    const first = chat.runtime.agent.sessionId;
    view.answers.push("cancel");
    await chat.submit("/new");
    assert.deepEqual(view.questions, [
      {
        question: "Start a new session? This one (2 messages) stays saved; /resume brings it back.",
        kind: "destructive",
      },
    ]);
    assert.equal(view.lastPrint, "Cancelled: nothing changed.");
    assert.equal(chat.runtime.agent.sessionId, first);
    assert.equal((await chat.messages()).length, 2);
    view.answers.push("once");
    await chat.submit("/reset");
    assert.equal(view.questions.length, 2, "/reset is /new and asks the same");
    assert.notEqual(chat.runtime.agent.sessionId, first);
    assert.match(view.lastPrint, /^New session /);
  } finally {
    await chat.close();
  }
});

test("always goes ahead, saves approvals.destructive_slash_confirm: false to config.yaml, and stops asking", async () => {
  const { chat, view, home } = await session();
  try {
    await chat.submit("hello");
    const first = chat.runtime.agent.sessionId;
    view.answers.push("always");
    await chat.submit("/clear");
    assert.equal(view.questions[0]?.question.startsWith("Clear the screen and start a new session?"), true);
    assert.notEqual(chat.runtime.agent.sessionId, first);
    assert.equal(view.cleared, 1);
    assert.deepEqual(
      view.printed.slice(-2),
      [
        `New session ${chat.runtime.agent.sessionId}.`,
        "Saved approvals.destructive_slash_confirm: false to config.yaml; this is not asked again.",
      ],
      "the note comes after the screen is cleared, so it stays visible",
    );
    const saved = readFileSync(join(home, "config.yaml"), "utf8");
    assert.match(saved, /destructive_slash_confirm: false/);
    assert.match(saved, /auxiliary:/, "the rest of config.yaml is kept");
    assert.equal((await loadConfigAsync({ home })).config.approvals.destructive_slash_confirm, false);
    assert.equal((await loadConfigAsync({ home })).config.approvals.mcp_reload_confirm, true);

    await chat.submit("again");
    await chat.submit("/undo");
    assert.equal(view.lastPrint, "Removed the last exchange: again");
    await chat.submit("more");
    await chat.submit("/new");
    assert.equal(view.questions.length, 1, "neither /undo nor /new asked after always");
  } finally {
    await chat.close();
  }
});

test("-y, --yes and now answer in advance for that one run only", async () => {
  const { chat, view } = await session();
  try {
    await chat.submit("one");
    await chat.submit("two");
    await chat.submit("/undo --yes");
    assert.equal(view.lastPrint, "Removed the last exchange: two");
    const first = chat.runtime.agent.sessionId;
    await chat.submit("/new -y");
    assert.notEqual(chat.runtime.agent.sessionId, first);
    await chat.submit("three");
    await chat.submit("/clear now");
    assert.equal(view.cleared, 1);
    assert.equal(view.questions.length, 0);
    await chat.submit("four");
    view.answers.push("cancel");
    await chat.submit("/new");
    assert.equal(view.questions.length, 1, "the next /new without a skip word asks again");
  } finally {
    await chat.close();
  }
});

test("nothing to lose, nothing asked: /new and /clear in an empty session, /undo with nothing to undo", async () => {
  const { chat, view } = await session();
  try {
    const first = chat.runtime.agent.sessionId;
    await chat.submit("/undo");
    assert.equal(view.lastPrint, "Nothing to undo.");
    await chat.submit("/new");
    assert.notEqual(chat.runtime.agent.sessionId, first);
    await chat.submit("/clear");
    await chat.submit("/reload-mcp");
    assert.match(view.lastPrint, /No MCP servers are configured/);
    assert.deepEqual(view.questions, []);
  } finally {
    await chat.close();
  }
});

test("with approvals.destructive_slash_confirm: false, /new and /undo run as they always did", async () => {
  const { chat, view } = await session("approvals:\n  destructive_slash_confirm: false\n");
  try {
    await chat.submit("one");
    await chat.submit("two");
    await chat.submit("/undo");
    assert.equal(view.lastPrint, "Removed the last exchange: two");
    const first = chat.runtime.agent.sessionId;
    await chat.submit("/new");
    assert.notEqual(chat.runtime.agent.sessionId, first);
    assert.deepEqual(view.questions, []);
  } finally {
    await chat.close();
  }
});

test("/undo asks with the message it would remove; cancel leaves it for the model and in the saved transcript", async () => {
  const { chat, view } = await session();
  try {
    await chat.submit("one");
    await chat.submit("two");
    view.answers.push("cancel");
    await chat.submit("/undo");
    assert.equal(
      view.questions[0]?.question,
      'Remove your last message ("two") and the reply to it? The saved session loses it too.',
    );
    const saved = await chat.runtime.store.getMessages(chat.runtime.agent.sessionId);
    assert.equal(saved.length, 4);
    await chat.submit("three");
    assert.deepEqual(userTexts(fake.requests.at(-1)), ["one", "two", "three"]);
  } finally {
    await chat.close();
  }
});

test("/reload-mcp asks under mcp_reload_confirm: cancel reloads nothing, always saves mcp_reload_confirm: false", async () => {
  const { chat, view, home } = await session();
  try {
    await chat.submit("hello");
    view.answers.push("cancel");
    await chat.submit("/reload-mcp");
    assert.equal(view.questions[0]?.kind, "mcp_reload");
    assert.match(view.questions[0]?.question ?? "", /prompt .* is lost and the next turn costs more/);
    assert.equal(view.lastPrint, "Cancelled: nothing changed.");
    assert.ok(!view.printed.some((line) => /No MCP servers/.test(line)), "nothing was reloaded");
    view.answers.push("always");
    await chat.submit("/reload-mcp");
    assert.match(view.printed.at(-2) ?? "", /No MCP servers are configured/, "always went ahead");
    assert.match(view.lastPrint, /^Saved approvals\.mcp_reload_confirm: false to config\.yaml/);
    const config = (await loadConfigAsync({ home })).config.approvals;
    assert.deepEqual([config.mcp_reload_confirm, config.destructive_slash_confirm], [false, true]);
    await chat.submit("/reload-mcp");
    assert.equal(view.questions.length, 2, "not asked again");
    view.answers.push("cancel");
    await chat.submit("/new");
    assert.equal(view.questions.length, 3, "/new still asks: its own key is untouched");
  } finally {
    await chat.close();
  }
});

test("with piped input nobody can answer: /new and /undo run unasked and the next line stays a command", async () => {
  const home = freshHome();
  const args = ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--api-key", "k", "--model", "scripted"];
  const run = await runNode(["--import", "tsx", "src/cli/main.ts", ...args], {
    env: { ...process.env, HERMES_HOME: home, HERMES_YOLO_MODE: "" },
    stdin: "one\ntwo\n/undo\n/history\n/new\n/history\n",
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Removed the last exchange: two\n/);
  assert.match(run.stdout, /you: one\nhermes: reply \d+\n/);
  assert.match(run.stdout, /New session \S+\nNo messages yet\.\n/);
  assert.doesNotMatch(run.stdout + run.stderr, /Cancelled|go ahead/);
});
