import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ChatController } from "../../src/cli/tui/controller.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, RecordedRequest, ScriptStep } from "../fake-provider/types.js";
import { lastToolResults } from "../helpers/agent-harness.js";
import { useTitleEndpoint } from "../helpers/title-endpoint.js";
import { RecordingView } from "./recording-view.js";

let fake: FakeProvider;
let titles: FakeProvider;
let home: string;
const savedHome = process.env.HERMES_HOME;

before(async () => {
  fake = await startFakeProvider({});
  titles = await startFakeProvider({ fallback: { text: "Greeting the agent" } });
  home = mkdtempSync(join(tmpdir(), "hermes-slash-"));
  useTitleEndpoint(home, titles.url);
  process.env.HERMES_HOME = home;
});
after(async () => {
  await fake.close();
  await titles.close();
  rmSync(home, { recursive: true, force: true });
  if (savedHome === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = savedHome;
});

async function session(script: ScriptStep[]): Promise<{ chat: ChatController; view: RecordingView }> {
  fake.setScript(script);
  const view = new RecordingView();
  const flags = { provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "k", model: "scripted" };
  const chat = await ChatController.create(flags, view, { localServers: false });
  return { chat, view };
}

const userTexts = (req: RecordedRequest | undefined): string[] =>
  (req?.body.messages ?? [])
    .filter((m: { role: string }) => m.role === "user")
    .map((m: { content: string }) => m.content);

test("a message runs a turn: tool events reach the view and usage adds up", async () => {
  const { chat, view } = await session([
    { toolCalls: [{ name: "terminal", arguments: { command: "echo tui-tool" } }], usage: { input: 40, output: 4 } },
    { text: "all done", usage: { input: 60, output: 2 } },
  ]);
  try {
    await chat.submit("run something");
    assert.equal(view.outcomes.length, 1);
    assert.equal(view.outcomes[0]?.result?.finalResponse, "all done");
    assert.ok(view.events.some((e) => e.type === "tool_end" && e.name === "terminal" && !e.failed));
    const usage = chat.usage();
    assert.deepEqual([usage.turns, usage.apiCalls, usage.toolCalls], [1, 2, 1]);
    assert.ok(usage.inputTokens >= 100);
    await chat.submit("/usage");
    assert.match(view.lastPrint, /Turns: 1, model calls: 2, tool calls: 1/);
    await chat.submit("/context");
    assert.match(view.lastPrint, /Context: \[.*\] \d+% — about .* of 128k tokens/);
  } finally {
    await chat.close();
  }
});

test("/undo drops the last exchange from what the model sees next; /retry sends the last message again", async () => {
  const { chat, view } = await session([{ text: "answer one" }, { text: "answer two" }]);
  try {
    await chat.submit("one");
    await chat.submit("two");
    await chat.submit("/undo");
    assert.equal(view.lastPrint, "Removed the last exchange: two");
    await chat.submit("/history");
    assert.match(view.lastPrint, /you: one\nhermes: answer one/);
    assert.doesNotMatch(view.lastPrint, /two/);
    await chat.submit("three");
    assert.deepEqual(userTexts(fake.requests.at(-1)), ["one", "three"]);
    await chat.submit("/retry");
    assert.deepEqual(userTexts(fake.requests.at(-1)), ["one", "three"]);
    assert.equal(view.outcomes.at(-1)?.text, "three");
  } finally {
    await chat.close();
  }
});

test("/undo also leaves the saved transcript, so a resumed session does not bring the exchange back", async () => {
  const { chat } = await session([{ text: "answer one" }, { text: "answer two" }]);
  let sessionId = "";
  try {
    await chat.submit("one");
    await chat.submit("two");
    await chat.submit("/undo");
    sessionId = chat.runtime.agent.sessionId;
    const saved = await chat.runtime.store.getMessages(sessionId);
    assert.deepEqual(
      saved.map((m) => [m.role, m.content]),
      [
        ["user", "one"],
        ["assistant", "answer one"],
      ],
    );
    assert.equal((await chat.runtime.store.getSession(sessionId))?.messageCount, 2);
  } finally {
    await chat.close();
  }
  fake.setScript([{ text: "answer three" }]);
  const view = new RecordingView();
  const flags = { provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "k", model: "scripted", resume: sessionId };
  const resumed = await ChatController.create(flags, view, { localServers: false });
  try {
    await resumed.submit("three");
    assert.deepEqual(userTexts(fake.requests.at(-1)), ["one", "three"]);
  } finally {
    await resumed.close();
  }
});

test("after the first exchange the title model names the session; later turns leave the title alone", async () => {
  const { chat } = await session([{ text: "hi there" }, { text: "second answer" }]);
  const asked = titles.requests.length;
  try {
    await chat.submit("hello");
    await chat.settled();
    const { store, agent } = chat.runtime;
    assert.equal((await store.getSession(agent.sessionId))?.title, "Greeting the agent");
    assert.equal(titles.requests.length, asked + 1);
    const excerpt = String(titles.requests.at(-1)?.body.messages[1].content);
    assert.match(excerpt, /User: hello\n\nAssistant: hi there/);
    await chat.submit("and more");
    await chat.settled();
    assert.equal(titles.requests.length, asked + 1, "a titled session is not titled again");
  } finally {
    await chat.close();
  }
});

test("/title, /new, /sessions and /resume move between saved sessions", async () => {
  const { chat, view } = await session([{ text: "alpha reply" }, { text: "beta reply" }]);
  try {
    await chat.submit("alpha question");
    const first = chat.runtime.agent.sessionId;
    await chat.submit("/title Alpha talk");
    assert.equal((await chat.runtime.store.getSession(first))?.title, "Alpha talk");
    await chat.submit("/reset");
    assert.notEqual(chat.runtime.agent.sessionId, first);
    assert.equal(chat.usage().turns, 0);
    assert.equal(chat.exitNote(), undefined, "an empty new session is not worth resuming");
    await chat.submit("/history");
    assert.equal(view.lastPrint, "No messages yet.");
    await chat.submit("beta question");
    await chat.submit("/sessions");
    assert.match(view.lastPrint, new RegExp(`${first} .*Alpha talk`));
    await chat.submit("/resume Alpha talk");
    assert.equal(chat.runtime.agent.sessionId, first);
    assert.match(view.lastPrint, /Resumed session .* \(2 messages\)/);
    assert.equal(
      chat.exitNote(),
      `Session ${first} saved. Continue it with: hermes --resume ${first}`,
      "leaving right after /resume says how to continue, as every exit does",
    );
    await chat.submit("/history");
    assert.match(view.lastPrint, /you: alpha question/);
    await chat.submit("/clear");
    assert.equal(view.cleared, 1);
    assert.notEqual(chat.runtime.agent.sessionId, first);
  } finally {
    await chat.close();
  }
});

test("/model shows the model, and switching keeps the conversation for the next turn", async () => {
  const { chat, view } = await session([{ text: "first" }, { text: "second" }]);
  try {
    await chat.submit("/model");
    assert.match(view.lastPrint, /Model: scripted \(provider custom at http:\/\/127\.0\.0\.1:\d+\/v1\)/);
    await chat.submit("hello");
    await chat.submit("/model custom/other-model");
    assert.match(view.lastPrint, /Now using other-model \(provider custom at http:\/\/127\.0\.0\.1:\d+\/v1\)/);
    await chat.submit("again");
    const last = fake.requests.at(-1);
    assert.equal(last?.body.model, "other-model");
    assert.deepEqual(userTexts(last), ["hello", "again"]);
  } finally {
    await chat.close();
  }
});

test("during a turn /steer reaches the tool result, /queue runs next, and history commands wait", async () => {
  const { chat, view } = await session([
    { toolCalls: [{ name: "terminal", arguments: { command: "true" } }] },
    (req) => ({ text: `saw: ${lastToolResults(req)[0]}` }),
    { text: "queued reply" },
  ]);
  try {
    view.onEvent = (event) => {
      if (event.type !== "tool_start") return;
      void chat.submit("/steer look at the tests");
      void chat.submit("/queue follow-up");
      void chat.submit("/undo");
    };
    await chat.submit("go");
    await chat.idle();
    assert.match(view.outcomes[0]?.result?.finalResponse ?? "", /look at the tests/);
    assert.equal(view.outcomes[1]?.text, "follow-up");
    assert.equal(view.outcomes[1]?.result?.finalResponse, "queued reply");
    assert.ok(view.printed.some((line) => /\/undo has to wait/.test(line)));
  } finally {
    await chat.close();
  }
});

test("/stop interrupts a stalled turn; a message typed during a turn interrupts it and runs next", async () => {
  const stall: ScriptStep = { text: "this will hang here", fault: { kind: "stall", afterChunks: 2 } };
  const { chat, view } = await session([stall, stall, { text: "fresh answer" }]);
  try {
    let sent = false;
    view.onEvent = (event) => {
      if (event.type === "text_delta" && !sent) {
        sent = true;
        void chat.submit("/stop");
      }
    };
    await chat.submit("first");
    assert.equal(view.outcomes[0]?.result?.interrupted, true);
    sent = false;
    view.onEvent = (event) => {
      if (event.type === "text_delta" && !sent) {
        sent = true;
        void chat.submit("never mind, do this");
      }
    };
    await chat.submit("second");
    await chat.idle();
    assert.equal(view.outcomes[1]?.result?.interrupted, true);
    assert.equal(view.outcomes[2]?.text, "never mind, do this");
    assert.equal(view.outcomes[2]?.result?.finalResponse, "fresh answer");
  } finally {
    await chat.close();
  }
});

test("approval and clarify requests are answered by the view", async () => {
  const { chat, view } = await session([
    { toolCalls: [{ name: "terminal", arguments: { command: "rm -rf ./hermes-never-created-dir" } }] },
    (req) => ({
      toolCalls: [{ name: "clarify", arguments: { question: "Which colour?", choices: ["red", "blue"] } }],
      text: lastToolResults(req)[0],
    }),
    (req) => ({ text: `clarified: ${lastToolResults(req)[0]}` }),
  ]);
  try {
    view.approvalAnswer = "deny";
    view.clarifyAnswer = "blue";
    await chat.submit("go");
    assert.equal(view.approvals[0]?.command, "rm -rf ./hermes-never-created-dir");
    const denied = fake.requests.find((r) => r.body && lastToolResults(r)[0]?.includes("denied"));
    assert.ok(denied, "the model was told the user denied the command");
    assert.ok(view.printed.includes("asked: Which colour?"));
    assert.match(view.outcomes[0]?.result?.finalResponse ?? "", /"user_response":"blue"/);
  } finally {
    await chat.close();
  }
});

test("settings commands: /yolo, /verbose, /reasoning, and listings for /tools, /toolsets, /memory", async () => {
  const { chat, view } = await session([]);
  try {
    await chat.submit("/yolo");
    assert.equal(chat.runtime.approvals.yolo, true);
    await chat.submit("/yolo");
    assert.equal(chat.runtime.approvals.yolo, false);
    await chat.submit("/verbose");
    assert.equal(view.lastPrint, "Tool progress: verbose");
    await chat.submit("/verbose off");
    assert.equal(chat.display.toolProgress, "off");
    await chat.submit("/verbose loud");
    assert.match(view.lastPrint, /Usage: \/verbose/);
    const before = chat.display.showReasoning;
    await chat.submit("/reasoning");
    assert.equal(chat.display.showReasoning, !before);
    await chat.submit("/reasoning high");
    assert.equal(chat.runtime.agent.options.reasoningEffort, "high");
    await chat.submit("/tools");
    assert.match(view.lastPrint, /tools enabled:[\s\S]*terminal/);
    await chat.submit("/toolsets");
    assert.match(view.lastPrint, /✓ hermes-cli/);
    await chat.submit("/memory");
    assert.match(view.lastPrint, /Agent notes \(MEMORY\.md\): 0% — 0\/2,200 chars\n {2}\(empty\)/);
  } finally {
    await chat.close();
  }
});

test("unavailable features say so; unknown and ambiguous commands explain; /quit exits", async () => {
  const { chat, view } = await session([]);
  try {
    const agent = chat.runtime.agent as unknown as Record<string, unknown>;
    let focus: unknown;
    Object.defineProperty(agent, "compress", {
      value: async (f?: string) => {
        focus = f;
        return { compressed: true, tokensBefore: 5000, tokensAfter: 1200 };
      },
      configurable: true,
    });
    await chat.submit("/compress the database schema");
    assert.equal(focus, "the database schema");
    assert.match(view.lastPrint, /^Compressed: about 5000 → 1200 tokens/);
    Object.defineProperty(agent, "compress", { value: async () => undefined, configurable: true });
    await chat.submit("/compress");
    assert.equal(view.lastPrint, "Nothing to compress yet: the conversation is empty.");
    await chat.submit("/reload-mcp");
    assert.match(view.lastPrint, /No MCP servers are configured/);
    await chat.submit("/frobnicate");
    assert.match(view.lastPrint, /unknown command \/frobnicate/);
    await chat.submit("/re");
    assert.match(view.lastPrint, /\/re is ambiguous: .*\/reasoning.*\/resume.*\/retry/);
    await chat.submit("/steer");
    assert.equal(view.lastPrint, "Usage: /steer TEXT");
    await chat.submit("/q");
    assert.equal(view.exited, true);
  } finally {
    await chat.close();
  }
});

test("/skills lists the installed skills, and /skill-name sends the skill with the request", async () => {
  const { chat, view } = await session([{ text: "following the skill" }]);
  try {
    await chat.submit("/skills");
    assert.match(view.lastPrint, /\/planning-a-change — /);
    await chat.submit("/planning-a-change add a dark mode toggle");
    const sent = userTexts(fake.requests.at(-1)).at(-1) ?? "";
    assert.match(sent, /add a dark mode toggle/);
    assert.match(sent, /planning-a-change/);
  } finally {
    await chat.close();
  }
});

test("/compress after /undo compresses the shortened history; a short one says there is nothing yet", async () => {
  const { chat, view } = await session([{ text: "answer one" }, { text: "answer two" }, { text: "answer three" }]);
  try {
    await chat.submit("one");
    await chat.submit("two");
    await chat.submit("/undo");
    await chat.submit("/compress");
    assert.equal(
      view.lastPrint,
      "Nothing to compress yet: 2 messages, all of which are kept as they are (the first and last turns always stay).",
    );
    await chat.submit("three");
    assert.deepEqual(userTexts(fake.requests.at(-1)), ["one", "three"], "the undone exchange stays gone");
  } finally {
    await chat.close();
  }
});

test("a single message larger than the whole context window is refused with both sizes, and not sent", async () => {
  const { chat, view } = await session([{ text: "never" }]);
  try {
    const before = fake.requests.length;
    await chat.submit("x".repeat(600_000));
    assert.match(
      view.lastPrint,
      /^Not sent: this message is about [\d,]+ tokens, more than the model's whole context window \(128,000 tokens\)/,
    );
    assert.equal(
      fake.requests.filter((r) => r.method === "POST").length,
      fake.requests.slice(0, before).filter((r) => r.method === "POST").length,
    );
  } finally {
    await chat.close();
  }
});

test("/context uses the window compression uses: the one the server reports for the model", async () => {
  const server = await startFakeProvider({ models: [{ id: "mid-model", contextLength: 100_000 }] });
  try {
    const view = new RecordingView();
    const flags = { provider: "custom", baseUrl: `${server.url}/v1`, apiKey: "k", model: "mid-model" };
    const chat = await ChatController.create(flags, view, { localServers: false });
    try {
      await chat.submit("/context");
      assert.match(view.lastPrint, /of 100k tokens/);
      assert.equal(await chat.runtime.agent.contextWindow(), 100_000);
    } finally {
      await chat.close();
    }
  } finally {
    await server.close();
  }
});

test("/model PROVIDER/MODEL moves endpoint, key and protocol together, or refuses and stays put", async () => {
  const other = await startFakeProvider({ fallback: { text: "from lm studio" } });
  const saved = { url: process.env.LMSTUDIO_BASE_URL, key: process.env.LM_API_KEY, or: process.env.OPENROUTER_API_KEY };
  process.env.LMSTUDIO_BASE_URL = `${other.url}/v1`;
  process.env.LM_API_KEY = "lm-studio-key";
  delete process.env.OPENROUTER_API_KEY;
  const { chat, view } = await session([{ text: "from the first server" }, { text: "still the first server" }]);
  try {
    await chat.submit("/model openrouter/some-model");
    assert.match(view.lastPrint, /^Not switched \(still scripted on custom\): no API key for OpenRouter/);
    await chat.submit("hello");
    assert.equal(fake.requests.at(-1)?.body.model, "scripted", "the old endpoint is still in use");
    await chat.submit("/model lmstudio/qwen3");
    assert.match(view.lastPrint, /Now using qwen3 \(provider lmstudio at http:\/\/127\.0\.0\.1:\d+\/v1\)/);
    const before = fake.requests.length;
    await chat.submit("again");
    assert.equal(fake.requests.length, before, "nothing more went to the old endpoint");
    const sent = other.requests.filter((r) => r.method === "POST").at(-1);
    assert.equal(sent?.body.model, "qwen3");
    assert.equal(sent?.headers.authorization, "Bearer lm-studio-key", "the new provider's own key, not the old one");
  } finally {
    await chat.close();
    await other.close();
    for (const [name, value] of [
      ["LMSTUDIO_BASE_URL", saved.url],
      ["LM_API_KEY", saved.key],
      ["OPENROUTER_API_KEY", saved.or],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});

test("/cron in the terminal lists every job, whichever chat made it, and pauses one by id", async () => {
  const { openCronStore } = await import("../../src/state/cron-store.js");
  const store = await openCronStore(join(home, "state.db"));
  const job = await store.createJob({
    name: "morning digest",
    prompt: "summarise",
    schedule: { kind: "interval", minutes: 60 },
    scheduleDisplay: "every 1h",
    nextRunAt: Date.parse("2030-01-01T08:00:00Z"),
    deliver: "origin",
    origin: { platform: "telegram", chatId: "42", threadId: null, userId: "7" },
  });
  store.close();
  const { chat, view } = await session([]);
  try {
    await chat.submit("/cron");
    assert.match(
      view.lastPrint,
      new RegExp(`${job.id} {2}morning digest {2}\\[every 1h\\] {2}scheduled, next 2030-01-01 08:00 UTC`),
    );
    await chat.submit(`/cron pause ${job.id}`);
    assert.equal(view.lastPrint, `Paused ${job.id}.`);
    await chat.submit("/cron pause nope");
    assert.match(view.lastPrint, /no job nope/);
    await chat.submit("/cron");
    assert.match(view.lastPrint, /morning digest .* paused/);
  } finally {
    await chat.close();
  }
});
