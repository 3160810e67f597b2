import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { ChatController } from "../../src/cli/tui/controller.js";
import { GOAL_TURN_PREFIX } from "../../src/runtime/goals.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, RecordedRequest, ScriptedTurn, ScriptStep } from "../fake-provider/types.js";
import { useTitleEndpoint } from "../helpers/title-endpoint.js";
import { RecordingView } from "./recording-view.js";

let fake: FakeProvider;
let titles: FakeProvider;
const savedHome = process.env.HERMES_HOME;
const homes: string[] = [];

before(async () => {
  fake = await startFakeProvider({});
  titles = await startFakeProvider({ fallback: { text: "A goal" } });
});
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
after(async () => {
  await fake.close();
  await titles.close();
  if (savedHome === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = savedHome;
});

async function session(
  script: ScriptStep[],
  config = "",
): Promise<{ chat: ChatController; view: RecordingView; home: string }> {
  const home = mkdtempSync(join(tmpdir(), "hermes-goal-"));
  homes.push(home);
  useTitleEndpoint(home, titles.url);
  if (config) writeFileSync(join(home, "config.yaml"), config, { flag: "a" });
  process.env.HERMES_HOME = home;
  fake.setScript(script);
  const view = new RecordingView();
  const flags = { provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "k", model: "scripted" };
  const chat = await ChatController.create(flags, view, { localServers: false });
  return { chat, view, home };
}

const isJudge = (req: RecordedRequest) =>
  String(req.body?.messages?.[0]?.content ?? "").startsWith("You decide whether an assistant has achieved a goal");
const verdict = (done: boolean, reason: string): ScriptedTurn => ({ text: JSON.stringify({ done, reason }) });

test("/goal works turn after turn until the judge finds the goal achieved", async () => {
  const { chat, view, home } = await session([
    { text: "Wrote the parser; the tests are next." },
    verdict(false, "the tests have not run"),
    { text: "All 12 tests pass." },
    verdict(true, "the parser exists and its tests pass"),
  ]);
  try {
    await chat.submit("/goal write a parser and make its tests pass");
    assert.deepEqual(
      view.outcomes.map((o) => o.result?.finalResponse),
      ["Wrote the parser; the tests are next.", "All 12 tests pass."],
    );
    const turns = view.outcomes.map((o) => o.text);
    assert.ok(turns.every((t) => t.startsWith(GOAL_TURN_PREFIX)));
    assert.match(turns[1]!, /turn 2 of 20\] Keep working toward the goal: write a parser/);
    const judged = fake.requests.filter(isJudge);
    assert.equal(judged.length, 2);
    assert.match(String(judged[1]?.body.messages?.[1]?.content), /All 12 tests pass\./);
    assert.ok(view.printed.some((p) => /^Goal set \(up to 20 turns/.test(p)));
    assert.ok(view.printed.includes("Goal achieved: the parser exists and its tests pass"));
    await chat.submit("/goal");
    assert.match(view.printed.at(-1)!, /^Goal \(done, 2\/20 turns\): write a parser/);
    assert.ok(existsSync(join(home, "goals")), "kept under HERMES_HOME/goals for a resumed session");
  } finally {
    await chat.close();
  }
});

test("goals.max_turns pauses a goal the judge never finds done; /goal resume gives a fresh budget", async () => {
  const { chat, view } = await session(
    [
      { text: "step one" },
      verdict(false, "not yet"),
      { text: "step two" },
      verdict(false, "still not"),
      { text: "step three" },
      verdict(true, "done now"),
    ],
    "goals:\n  max_turns: 2\n",
  );
  try {
    await chat.submit("/goal finish the migration");
    assert.equal(view.outcomes.length, 2);
    assert.match(view.printed.at(-1)!, /^Goal paused: its turn budget \(2, goals.max_turns\) is used up/);
    await chat.submit("/goal resume");
    assert.equal(view.outcomes.length, 3);
    assert.match(view.outcomes[2]!.text, /turn 1 of 2\]/);
    assert.equal(view.printed.at(-1), "Goal achieved: done now");
  } finally {
    await chat.close();
  }
});

test("a judge that gives no verdict three times pauses the goal; one that cannot be reached lets it go on", async () => {
  const { chat, view } = await session(
    [
      { text: "a" },
      { text: "I think it is going well" },
      { text: "b" },
      { text: "no json here either" },
      { text: "c" },
      { text: "still prose" },
    ],
    "goals:\n  max_turns: 10\n",
  );
  try {
    await chat.submit("/goal tidy the docs");
    assert.equal(view.outcomes.length, 3);
    assert.match(
      view.printed.at(-1)!,
      /Goal paused: the judge model gave no verdict 3 times in a row\. Route auxiliary\.goal_judge/,
    );
  } finally {
    await chat.close();
  }
});

test("/goal pause, clear and status; /stop during a goal pauses it", async () => {
  const { chat, view } = await session(
    [{ text: "first step" }, verdict(false, "more to do")],
    "goals:\n  max_turns: 5\n",
  );
  try {
    await chat.submit("/goal");
    assert.match(view.printed.at(-1)!, /^No goal set/);
    await chat.submit("/goal pause");
    assert.match(view.printed.at(-1)!, /^No goal set/);
    fake.setScript([
      { text: "first step" },
      () => {
        // The judge's call: the user stops the goal before it answers.
        chat.stop();
        return verdict(false, "more to do");
      },
    ]);
    await chat.submit("/goal rename every module");
    assert.equal(view.outcomes.length, 1, "no next step after /stop");
    assert.equal(view.printed.at(-1), "Goal paused: stopped with /stop. /goal resume to go on.");
    await chat.submit("/goal status");
    assert.match(view.printed.at(-1)!, /^Goal \(paused, 1\/5 turns\): rename every module/);
    await chat.submit("/goal clear");
    assert.equal(view.printed.at(-1), "Goal cleared.");
    await chat.submit("/goal status");
    assert.match(view.printed.at(-1)!, /^No goal set/);
  } finally {
    await chat.close();
  }
});
