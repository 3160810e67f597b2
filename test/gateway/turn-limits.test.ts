import assert from "node:assert/strict";
import { test } from "node:test";
import { modelRequests, startGateway, userTexts } from "./harness.js";

const stalled = {
  text: "I am thinking about this for a very long time",
  fault: { kind: "stall" as const, afterChunks: 1 },
};

test("a chat turn past agent.gateway_timeout is stopped and the chat is told why, after a warning", async () => {
  const gw = await startGateway({
    config:
      "agent:\n  gateway_timeout: 0.4\n  gateway_timeout_warning: 0.1\n  gateway_notify_interval: 0\n" +
      "display:\n  platforms:\n    test:\n      streaming: false\n",
    provider: { script: [stalled] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "do the long thing" });
    await gw.adapter.waitForText(/agent\.gateway_timeout\)\. Ask me to continue/);
    const texts = gw.adapter.texts();
    assert.equal(texts.length, 2);
    assert.equal(
      texts[0],
      "⏳ Still working after 0.1 s; I will stop in 0.3 s (agent.gateway_timeout). Send /stop to end it now.",
    );
    assert.equal(
      texts[1],
      "⚠ I stopped: this took longer than 0.4 s (agent.gateway_timeout). Ask me to continue, or break the task into smaller steps.",
    );
    // The chat can go on: the next message runs normally.
    gw.fake.setScript([{ text: "back again" }]);
    gw.adapter.inject({ messageId: "2", text: "continue" });
    await gw.adapter.waitForText(/^back again$/);
  } finally {
    await gw.close();
  }
});

test("a chat that has seen nothing of a running turn for agent.gateway_notify_interval hears it is still running", async () => {
  const gw = await startGateway({
    config:
      "agent:\n  gateway_timeout: 0.5\n  gateway_timeout_warning: 0\n  gateway_notify_interval: 0.1\n" +
      "display:\n  platforms:\n    test:\n      streaming: false\n",
    provider: { script: [stalled] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "do the long thing" });
    await gw.adapter.waitForText(/^⚠ I stopped/);
    const texts = gw.adapter.texts();
    const notes = texts.filter((text) => /^⏳ Still working \(.* so far\)\.$/.test(text));
    assert.ok(notes.length >= 1, `still-working notes: ${notes.length}`);
    assert.match(texts.at(-1)!, /^⚠ I stopped/);
  } finally {
    await gw.close();
  }
});

test("a run whose answer is delivered elsewhere keeps its time limit but sends no notes along the way", async () => {
  const gw = await startGateway({
    config: "agent:\n  gateway_timeout: 0.4\n  gateway_timeout_warning: 0.1\n  gateway_notify_interval: 0.1\n",
    provider: { script: [stalled] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "nightly digest", deliverTo: { platform: "test", chatId: "digest" } });
    await gw.adapter.waitForText(/^⚠ I stopped/, "digest");
    assert.deepEqual(
      gw.adapter.texts().map((text) => text.slice(0, 14)),
      ["⚠ I stopped: t"],
    );
  } finally {
    await gw.close();
  }
});

test("agent.gateway_auto_continue_freshness: the message after a cut-short turn asks the model to pick the work up, while fresh", async () => {
  const gw = await startGateway({
    config:
      "agent:\n  gateway_timeout: 0.3\n  gateway_timeout_warning: 0\n  gateway_notify_interval: 0\n" +
      "  gateway_auto_continue_freshness: 3600\n",
    provider: { script: [stalled] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "migrate the database" });
    await gw.adapter.waitForText(/agent\.gateway_timeout\)\. Ask me to continue/);
    gw.fake.setScript([{ text: "picking it up" }, { text: "stopped" }, { text: "fresh start" }]);
    gw.adapter.inject({ messageId: "2", text: "go on" });
    await gw.adapter.waitForText(/^picking it up$/);
    const continued = userTexts(modelRequests(gw.fake).at(-1)!).at(-1) ?? "";
    assert.match(
      continued,
      /^\[System note: your previous turn was cut short \(it ran past agent\.gateway_timeout\) before you finished\. .*\]\n\ngo on$/,
    );
    const assistant = (modelRequests(gw.fake).at(-1)!.body.messages as Array<{ role: string; content: unknown }>)
      .filter((m) => m.role === "assistant")
      .map((m) => String(m.content));
    assert.ok(assistant.some((text) => text.includes("(This turn was cut short before it finished: it ran past")));

    // Only once: the turn after that one finished normally.
    gw.adapter.inject({ messageId: "3", text: "and then?" });
    await gw.adapter.waitForText(/^stopped$/);
    assert.equal(userTexts(modelRequests(gw.fake).at(-1)!).at(-1), "and then?");
  } finally {
    await gw.close();
  }
});

test("a cut-short turn longer ago than agent.gateway_auto_continue_freshness gets no note", async () => {
  const clock = { shift: 0 };
  const gw = await startGateway({
    config:
      "agent:\n  gateway_timeout: 0.3\n  gateway_timeout_warning: 0\n  gateway_notify_interval: 0\n" +
      "  gateway_auto_continue_freshness: 60\n",
    provider: { script: [stalled] },
    runner: { now: () => Date.now() + clock.shift },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "migrate the database" });
    await gw.adapter.waitForText(/agent\.gateway_timeout\)\. Ask me to continue/);
    clock.shift = 2 * 3_600_000;
    gw.fake.setScript([{ text: "something else" }]);
    gw.adapter.inject({ messageId: "2", text: "what is the weather?" });
    await gw.adapter.waitForText(/^something else$/);
    assert.equal(userTexts(modelRequests(gw.fake).at(-1)!).at(-1), "what is the weather?");
  } finally {
    await gw.close();
  }
});
