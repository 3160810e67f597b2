/**
 * The turn checks end to end: a real Agent with the real file and terminal tools in a temp git
 * repository, driven by the scripted fake provider over HTTP.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { AgentOptions } from "../../src/agent/agent.js";
import { HookRunner } from "../../src/agent/hooks.js";
import type { FinishedTurn } from "../../src/agent/options.js";
import { INTENT_NUDGE, TURN_NOTE_PREFIX, type TurnCheckSettings } from "../../src/agent/turn-checks.js";
import type { Message } from "../../src/llm/types.js";
import { registerFileTools } from "../../src/tools/builtin/files.js";
import { registerTerminalTools } from "../../src/tools/builtin/terminal.js";
import type { FakeProviderOptions, RecordedRequest, ScriptStep } from "../fake-provider/types.js";
import { assertWellFormedRequests, createHarness, type Harness } from "../helpers/agent-harness.js";

const CHECKS: TurnCheckSettings = {
  intentAckContinuation: false,
  verifyOnStop: true,
  maxVerifyNudges: 3,
  verifyGuidance: false,
};

/** A package whose `npm test` checks that add(2, 2) is 4. */
const TEST_SCRIPT = `import { add } from "./src/app.js";
const got = add(2, 2);
if (got !== 4) {
  console.error("boom: add(2, 2) returned " + got);
  process.exit(1);
}
console.log("1 passing");
`;

interface RepoHarness extends Harness {
  home: string;
}

/** A harness whose working directory is a git repository with a package.json "test" script. */
async function repoHarness(
  script: ScriptStep[],
  options: Partial<AgentOptions> = {},
  fake: Omit<FakeProviderOptions, "script"> = {},
): Promise<RepoHarness> {
  const home = mkdtempSync(join(tmpdir(), "hermes-home-"));
  const h = await createHarness(
    { script, ...fake },
    { tools: ["write_file", "patch", "read_file", "terminal", "echo"], home, turnChecks: CHECKS, ...options },
  );
  registerFileTools(h.registry);
  registerTerminalTools(h.registry);
  execFileSync("git", ["init", "-q"], { cwd: h.dir });
  writeFileSync(
    join(h.dir, "package.json"),
    JSON.stringify({ name: "demo", type: "module", scripts: { test: "node test.mjs" } }),
  );
  writeFileSync(join(h.dir, "test.mjs"), TEST_SCRIPT);
  mkdirSync(join(h.dir, "src"));
  const close = h.close;
  return {
    ...h,
    home,
    close: async () => {
      await close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

const writeApp = (body: string) => ({
  toolCalls: [{ name: "write_file", arguments: { path: "src/app.js", content: body } }],
});
const GOOD_APP = "export const add = (a, b) => a + b;\n";
const BAD_APP = "export const add = (a, b) => a - b;\n";
const npmTest = { toolCalls: [{ name: "terminal", arguments: { command: "npm test" } }] };

function lastMessage(req: RecordedRequest): Message {
  return (req.body.messages as Message[]).at(-1)!;
}

function notesIn(messages: readonly Message[]): string[] {
  return messages
    .filter((m) => m.role === "user" && typeof m.content === "string" && m.content.startsWith(TURN_NOTE_PREFIX))
    .map((m) => String(m.content));
}

function statusMessages(h: Harness): string[] {
  return h.events.flatMap((e) => (e.type === "status" ? [e.message] : []));
}

test("code edited then a final answer: one nudge, the model runs npm test, and the turn ends with its next answer", async () => {
  const h = await repoHarness([
    writeApp(GOOD_APP),
    { text: "I added add() in src/app.js." },
    npmTest,
    { text: "npm test passes." },
  ]);
  try {
    const result = await h.agent.runConversation("add an add function");
    assert.equal(result.completed, true);
    assert.equal(result.finalResponse, "npm test passes.");
    assert.equal(h.fake.requests.length, 4);
    const nudge = lastMessage(h.fake.requests[2]!);
    assert.equal(nudge.role, "user");
    const text = String(nudge.content);
    assert.ok(text.startsWith("[System: "), text);
    assert.match(text, /Changed: src\/app\.js\./);
    assert.match(text, /No check has run/);
    assert.match(text, /`npm run test`/);
    // The nudge is stored as a real message, in the order the model saw it.
    assert.deepEqual(
      result.messages.map((m) => m.role),
      ["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"],
    );
    assert.equal(result.messages[3]!.content, "I added add() in src/app.js.");
    assert.equal(result.messages[4]!.content, text);
    assert.match(String(result.messages[6]!.content), /"exit_code":0/);
    assert.ok(statusMessages(h).some((m) => /verify its edits/.test(m)));
    // Every request extends the previous one byte for byte.
    for (let i = 1; i < h.fake.requests.length; i++) {
      const before = JSON.stringify(h.fake.requests[i - 1]!.body.messages).slice(0, -1);
      assert.ok(JSON.stringify(h.fake.requests[i]!.body.messages).startsWith(before), `request ${i}`);
    }
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("a failing check is reported in the nudge with its output; after a fix, a new check is asked for until one passes", async () => {
  const h = await repoHarness([
    writeApp(BAD_APP),
    npmTest,
    { text: "Implemented add()." },
    { toolCalls: [{ name: "patch", arguments: { path: "src/app.js", old_string: "a - b", new_string: "a + b" } }] },
    { text: "Fixed the operator." },
    npmTest,
    { text: "Fixed; npm test passes." },
  ]);
  try {
    const result = await h.agent.runConversation("add an add function");
    assert.equal(result.finalResponse, "Fixed; npm test passes.");
    assert.equal(h.fake.requests.length, 7);
    const failed = String(lastMessage(h.fake.requests[3]!).content);
    assert.match(failed, /The last check, `npm test`, failed \(exit code 1\)/);
    assert.match(failed, /boom: add\(2, 2\) returned 0/);
    const afterFix = String(lastMessage(h.fake.requests[5]!).content);
    assert.match(afterFix, /^\[System: /);
    assert.match(afterFix, /No check has run/, "the patch made the earlier check stale");
    assert.equal(notesIn(result.messages).length, 2);
    assert.equal(readFileSync(join(h.dir, "src/app.js"), "utf8"), GOOD_APP);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("markdown-only edits and edits under the agent's home never nudge; a code edit in the next turn does", async () => {
  const docsPatch = "*** Begin Patch\n*** Add File: docs/guide.md\n+# Guide\n*** End Patch";
  const h = await repoHarness([], { turnChecks: { ...CHECKS, maxVerifyNudges: 1 } });
  try {
    // The agent's home inside the workspace: its skills are still not code work.
    h.agent.options.home = join(h.dir, ".hermes");
    h.fake.setScript([
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "README.md", content: "# Demo\n" } },
          { name: "patch", arguments: { mode: "patch", patch: docsPatch } },
          {
            name: "write_file",
            arguments: { path: join(h.dir, ".hermes", "skills", "helper.py"), content: "x = 1\n" },
          },
        ],
      },
      { text: "Docs written." },
      writeApp(GOOD_APP),
      { text: "Code written." },
      { text: "Still not checked." },
    ]);
    const docs = await h.agent.runConversation("write the docs");
    assert.equal(docs.finalResponse, "Docs written.");
    assert.equal(h.fake.requests.length, 2);
    assert.deepEqual(notesIn(docs.messages), []);

    const code = await h.agent.runConversation("now the code");
    assert.equal(code.finalResponse, "Still not checked.");
    const notes = notesIn(code.messages);
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /Changed: src\/app\.js\./, "only this turn's code edit is listed");
  } finally {
    await h.close();
  }
});

test("max_verify_nudges caps the nudges of a turn, and every turn starts a fresh count", async () => {
  const h = await repoHarness([], { turnChecks: { ...CHECKS, maxVerifyNudges: 2 } });
  try {
    h.fake.setScript([writeApp(GOOD_APP), { text: "one" }, { text: "two" }, { text: "three" }]);
    const first = await h.agent.runConversation("go");
    assert.equal(first.finalResponse, "three");
    assert.equal(h.fake.requests.length, 4);
    assert.equal(notesIn(first.messages).length, 2);

    h.fake.setScript([writeApp(GOOD_APP), { text: "again" }, { text: "again, unchecked" }, { text: "never asked" }]);
    const second = await h.agent.runConversation("go on");
    assert.equal(second.finalResponse, "never asked");
    assert.equal(notesIn(second.messages).length, 4);
  } finally {
    await h.close();
  }
});

test("verify_on_stop off, a zero cap, and auto on a chat platform end the turn at once; HERMES_VERIFY_ON_STOP turns it on", async () => {
  const h = await repoHarness([], { platform: "telegram", turnChecks: { ...CHECKS, verifyOnStop: false } });
  const saved = process.env.HERMES_VERIFY_ON_STOP;
  try {
    const turn = async (settings: Partial<TurnCheckSettings>): Promise<number> => {
      h.agent.options.turnChecks = { ...CHECKS, maxVerifyNudges: 1, ...settings };
      h.fake.setScript([writeApp(GOOD_APP), { text: "written" }, { text: "after a nudge" }]);
      const before = h.fake.requests.length;
      await h.agent.runConversation("write it");
      return h.fake.requests.length - before;
    };
    delete process.env.HERMES_VERIFY_ON_STOP;
    assert.equal(await turn({ verifyOnStop: false }), 2);
    assert.equal(await turn({ verifyOnStop: true, maxVerifyNudges: 0 }), 2);
    assert.equal(await turn({ verifyOnStop: "auto" }), 2, "telegram is a chat platform");
    process.env.HERMES_VERIFY_ON_STOP = "1";
    assert.equal(await turn({ verifyOnStop: false }), 3, "the env var wins");
    process.env.HERMES_VERIFY_ON_STOP = "off";
    assert.equal(await turn({ verifyOnStop: true }), 2);
    delete process.env.HERMES_VERIFY_ON_STOP;
    h.agent.options.platform = "cli";
    assert.equal(await turn({ verifyOnStop: "auto" }), 3, "auto is on in the terminal");
  } finally {
    if (saved === undefined) delete process.env.HERMES_VERIFY_ON_STOP;
    else process.env.HERMES_VERIFY_ON_STOP = saved;
    await h.close();
  }
});

test("intent ack: auto leaves chat completions alone; true nudges once and the model then calls a tool", async () => {
  const h = await repoHarness([], { turnChecks: { ...CHECKS, intentAckContinuation: "auto" } });
  try {
    h.fake.setScript([{ text: "I'll check the logs now." }]);
    const auto = await h.agent.runConversation("why is it failing");
    assert.equal(auto.finalResponse, "I'll check the logs now.");
    assert.equal(h.fake.requests.length, 1);

    h.agent.options.turnChecks = { ...CHECKS, intentAckContinuation: true };
    h.fake.setScript([
      { text: "Let me look at the logs." },
      { toolCalls: [{ name: "echo", arguments: { text: "logs" } }] },
      { text: "The logs show a timeout in the worker." },
    ]);
    const on = await h.agent.runConversation("and now?");
    assert.equal(on.finalResponse, "The logs show a timeout in the worker.");
    assert.equal(h.fake.requests.length, 4);
    assert.equal(lastMessage(h.fake.requests[2]!).content, INTENT_NUDGE);
    assert.deepEqual(h.trace, ["echo:logs"]);
    assert.ok(statusMessages(h).some((m) => /announced its next step/.test(m)));
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("intent ack: auto nudges on the Responses API, at most twice a turn", async () => {
  const announce = { text: "Let me run the tests." };
  const h = await repoHarness([announce, announce, announce, announce], {
    apiMode: "codex_responses",
    turnChecks: { ...CHECKS, intentAckContinuation: "auto" },
  });
  try {
    const result = await h.agent.runConversation("run the tests");
    assert.equal(result.completed, true);
    assert.equal(h.fake.requests.length, 3);
    assert.equal(h.fake.requests[0]!.protocol, "responses");
    assert.deepEqual(notesIn(result.messages), [INTENT_NUDGE, INTENT_NUDGE]);
  } finally {
    await h.close();
  }
});

test("recalled context stays on the user's message after a nudge, so each request extends the last", async () => {
  const hooks = new HookRunner();
  hooks.add("pre_llm_call", () => ({ context: "[ticket ABC-12 is open]" }), { owner: "tickets" });
  const h = await repoHarness([writeApp(GOOD_APP), { text: "written" }, npmTest, { text: "checked" }], { hooks });
  try {
    const result = await h.agent.runConversation("write it");
    assert.equal(result.finalResponse, "checked");
    assert.equal(h.fake.requests.length, 4);
    for (let i = 1; i < h.fake.requests.length; i++) {
      const before = JSON.stringify(h.fake.requests[i - 1]!.body.messages).slice(0, -1);
      assert.ok(JSON.stringify(h.fake.requests[i]!.body.messages).startsWith(before), `request ${i}`);
    }
    assert.doesNotMatch(String(lastMessage(h.fake.requests[2]!).content), /ABC-12/);
  } finally {
    await h.close();
  }
});

test("without turn-check settings the agent ends the turn at the first final answer", async () => {
  const h = await repoHarness([writeApp(GOOD_APP), { text: "Let me run the tests." }, { text: "unused" }], {
    turnChecks: undefined,
    apiMode: "codex_responses",
  });
  try {
    const result = await h.agent.runConversation("write it");
    assert.equal(result.finalResponse, "Let me run the tests.");
    assert.equal(h.fake.requests.length, 2);
    // The same turn with settings is sent back.
    h.agent.options.turnChecks = { ...CHECKS, intentAckContinuation: true };
    h.fake.setScript([
      writeApp(GOOD_APP),
      { text: "Let me run the tests." },
      { text: "unchecked" },
      npmTest,
      { text: "end" },
    ]);
    const checked = await h.agent.runConversation("again");
    assert.equal(checked.finalResponse, "end");
    assert.equal(notesIn(checked.messages.slice(result.messages.length)).length, 2);
  } finally {
    await h.close();
  }
});

test("a nudge is not a new user turn: checkpoints keep the turn's number and learning sees the whole turn", async () => {
  const turns: Array<number | undefined> = [];
  const finished: FinishedTurn[] = [];
  const h = await repoHarness(
    [
      writeApp(BAD_APP),
      { text: "written" },
      { toolCalls: [{ name: "patch", arguments: { path: "src/app.js", old_string: "a - b", new_string: "a + b" } }] },
      npmTest,
      { text: "fixed and checked" },
    ],
    {
      checkpoints: {
        beforeChange: async (_dir, info) => void turns.push(info.turn),
        newTurn: () => {},
        endTurn: async () => {},
      },
      learning: { turnFinished: (turn) => void finished.push(turn) },
    },
  );
  try {
    const result = await h.agent.runConversation("write it");
    assert.equal(result.finalResponse, "fixed and checked");
    assert.equal(notesIn(result.messages).length, 1);
    assert.deepEqual(turns, [1, 1, 1], "the write, the patch after the nudge, and the command");
    assert.equal(finished.length, 1);
    assert.equal(finished[0]!.messages[0]!.content, "write it");
    assert.equal(finished[0]!.messages.length, result.messages.length);
  } finally {
    await h.close();
  }
});
