import assert from "node:assert/strict";
import { test } from "node:test";
import { GOAL_TURN_PREFIX } from "../../src/runtime/goals.js";
import type { RecordedRequest } from "../fake-provider/types.js";
import { startGateway, userTexts } from "./harness.js";

const judged = (req: RecordedRequest) =>
  String(req.body?.messages?.[0]?.content ?? "").startsWith("You decide whether an assistant has achieved a goal");
const verdict = (done: boolean, reason: string) => ({ text: JSON.stringify({ done, reason }) });
const noStreaming = "display:\n  platforms:\n    test:\n      streaming: false\n";

test("/goal in a chat: the agent works turn after turn, each step a reply, until the judge finds it achieved", async () => {
  const gw = await startGateway({
    config: noStreaming,
    provider: {
      script: [
        { text: "Collected the prices of three shops." },
        verdict(false, "no comparison yet"),
        { text: "The cheapest is shop B at 12 EUR." },
        verdict(true, "the comparison names the cheapest shop"),
      ],
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "/goal find the cheapest shop for my printer ink" });
    await gw.adapter.waitForText(/^Goal achieved: the comparison names the cheapest shop$/);
    const texts = gw.adapter.texts();
    assert.match(texts[0]!, /^Goal set \(up to 20 turns/);
    assert.deepEqual(texts.slice(1), [
      "Collected the prices of three shops.",
      "The cheapest is shop B at 12 EUR.",
      "Goal achieved: the comparison names the cheapest shop",
    ]);
    const steps = gw.fake.requests.filter((r) => r.method === "POST" && !judged(r));
    assert.ok(userTexts(steps[1]!).at(-1)?.startsWith(`${GOAL_TURN_PREFIX}2 of 20]`));
    gw.adapter.inject({ messageId: "2", text: "/goal status" });
    await gw.adapter.waitForText(/^Goal \(done, 2\/20 turns\): find the cheapest shop/);
  } finally {
    await gw.close();
  }
});

test("a chat's goal pauses at goals.max_turns; /goal resume starts it again with a fresh budget; /goal clear drops it", async () => {
  const gw = await startGateway({
    config: `${noStreaming}goals:\n  max_turns: 1\n`,
    provider: { script: [{ text: "first pass done" }, verdict(false, "half way")] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "/goal clean up the downloads folder" });
    await gw.adapter.waitForText(/^Goal paused: its turn budget \(1, goals\.max_turns\) is used up/);
    gw.fake.setScript([{ text: "second pass done" }, verdict(true, "the folder is clean")]);
    gw.adapter.inject({ messageId: "2", text: "/goal resume" });
    await gw.adapter.waitForText(/^Goal achieved: the folder is clean$/);
    assert.ok(gw.adapter.texts().includes("second pass done"));
    gw.adapter.inject({ messageId: "3", text: "/goal clear" });
    await gw.adapter.waitForText(/^Goal cleared\.$/);
  } finally {
    await gw.close();
  }
});
