import assert from "node:assert/strict";
import { test } from "node:test";
import type { ScriptStep } from "../fake-provider/types.js";
import { gated, modelRequests, startGateway, untilModelRequests, userTexts } from "./harness.js";

test("busy_input_mode queue: a message sent while the agent works waits its turn", async () => {
  const first = gated({ text: "first done" });
  const gw = await startGateway({
    config: "display:\n  busy_input_mode: queue\n",
    provider: { script: [first.step, { text: "second done" }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "long task" });
    await untilModelRequests(gw.fake, 1);
    gw.adapter.inject({ messageId: "2", text: "and then this" });
    await gw.adapter.waitForText(/Queued/);
    first.open();
    await gw.adapter.waitForText(/second done/);
    const texts = gw.adapter.texts();
    assert.ok(texts.indexOf("first done") < texts.indexOf("second done"));
    assert.deepEqual(userTexts(modelRequests(gw.fake)[1]!), ["long task", "and then this"]);
  } finally {
    await gw.close();
  }
});

test("a full queue folds further messages into the last queued one; none is dropped", async () => {
  const first = gated({ text: "first done" });
  const gw = await startGateway({
    config: "display:\n  busy_input_mode: queue\ngateway:\n  queue_limit: 1\n",
    provider: { script: [first.step], fallback: (req) => ({ text: `answered: ${userTexts(req).at(-1)}` }) },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "long task" });
    await untilModelRequests(gw.fake, 1);
    gw.adapter.inject({ messageId: "2", text: "queued one" });
    gw.adapter.inject({ messageId: "3", text: "overflow one" });
    await gw.adapter.waitForText(/Queue full/);
    first.open();
    const answer = await gw.adapter.waitForText(/overflow one$/);
    assert.match(answer, /^answered: queued one[\s\S]*overflow one$/);
    assert.equal(modelRequests(gw.fake).length, 2);
    await gw.runner.stop();
    assert.deepEqual(await gw.store.unfinishedInbound(), [], "the folded message is marked answered too");
  } finally {
    await gw.close();
  }
});

test("busy_input_mode interrupt: a new message stops the running turn and is answered next", async () => {
  const gw = await startGateway({
    provider: {
      script: [
        { text: "I am about to stall forever", fault: { kind: "stall", afterChunks: 2 } },
        { text: "answered the new one" },
      ],
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "slow" });
    await untilModelRequests(gw.fake, 1);
    gw.adapter.inject({ messageId: "2", text: "never mind, this instead" });
    await gw.adapter.waitForText(/answered the new one/);
    // The interrupted message had no reply, so the two user messages reach the model together.
    assert.match(userTexts(modelRequests(gw.fake)[1]!).at(-1) ?? "", /never mind, this instead$/);
    assert.equal(modelRequests(gw.fake).length, 2);
  } finally {
    await gw.close();
  }
});

test("busy_input_mode steer: a message sent mid-run reaches the agent's next model call in that run", async () => {
  const first = gated({ toolCalls: [{ name: "todo", arguments: { todos: [] } }] });
  const gw = await startGateway({
    config: "display:\n  busy_input_mode: steer\n",
    provider: { script: [first.step, { text: "done with guidance" }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "start the work" });
    await untilModelRequests(gw.fake, 1);
    gw.adapter.inject({ messageId: "2", text: "use metric units" });
    await gw.adapter.waitForText(/Added to what I am working on/);
    first.open();
    await gw.adapter.waitForText(/done with guidance/);
    const second = JSON.stringify(modelRequests(gw.fake)[1]!.body.messages);
    assert.match(second, /use metric units/);
    assert.equal(modelRequests(gw.fake).length, 2, "the steer did not start a run of its own");
  } finally {
    await gw.close();
  }
});

test("/stop interrupts the run and drops what was queued; /status reports it while busy", async () => {
  const gw = await startGateway({
    config: "display:\n  busy_input_mode: queue\n",
    provider: { script: [{ text: "stalling", fault: { kind: "stall", afterChunks: 1 } }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "slow" });
    await untilModelRequests(gw.fake, 1);
    gw.adapter.inject({ messageId: "2", text: "queued" });
    await gw.adapter.waitForText(/Queued/);
    gw.adapter.inject({ messageId: "3", text: "/status" });
    assert.match(await gw.adapter.waitForText(/Working:/), /Working: yes; queued: 1/);
    gw.adapter.inject({ messageId: "4", text: "/stop" });
    await gw.adapter.waitForText(/Stopped\. Dropped 1 queued message/);
    await gw.runner.stop();
    assert.equal(modelRequests(gw.fake).length, 1, "the queued message never ran");
    assert.deepEqual(await gw.store.unfinishedInbound(), []);
  } finally {
    await gw.close();
  }
});

test("runs across chats are capped by gateway.max_concurrent_runs", async () => {
  let inFlight = 0;
  let most = 0;
  // Each model call takes a little while, so uncapped runs from three chats would overlap.
  const slowReply: ScriptStep = async () => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 30));
    inFlight -= 1;
    return { text: "done" };
  };
  const gw = await startGateway({ config: "gateway:\n  max_concurrent_runs: 1\n", provider: { fallback: slowReply } });
  try {
    for (const chat of ["c1", "c2", "c3"]) gw.adapter.inject({ chatId: chat, messageId: chat, text: "go" });
    await gw.adapter.waitFor((sent) => sent.filter((s) => s.current === "done").length === 3);
    assert.equal(most, 1);
  } finally {
    await gw.close();
  }
});
