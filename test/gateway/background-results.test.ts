import assert from "node:assert/strict";
import { test } from "node:test";
import { backgroundScript, chatParent, HeldChildren } from "../helpers/background-subagents.js";
import { type GatewayHarness, startGateway } from "./harness.js";

const DM_KEY = "agent:main:test:dm:chat-1";

async function gatewayWith(held: HeldChildren, goal: string): Promise<GatewayHarness> {
  return startGateway({
    config: "learning:\n  mode: off\n",
    provider: {
      fallback: backgroundScript(held, chatParent(held, goal)),
    },
  });
}

/** Resolves once `condition` holds, checking on each turn of the event loop (bounded). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test("a background subagent's result comes back to the chat as a new turn of its session", async () => {
  const held = new HeldChildren();
  const gw = await gatewayWith(held, "check the invoices");
  try {
    gw.adapter.inject({ messageId: "m1", text: "dispatch" });
    await gw.adapter.waitForText(/^Started it in the background\.$/);
    await held.arrived("check the invoices");
    held.release("check the invoices", { text: "Two invoices are overdue." });
    const reply = await gw.adapter.waitForText(/^parent read: /);
    assert.match(reply, /^parent read: \[Background subagent result bg_\w+ — this is not a message from the user\]/);
    assert.match(reply, /Two invoices are overdue\./);
    const sent = gw.adapter.sent.find((record) => record.current === reply);
    assert.equal(sent?.chatId, "chat-1");
    assert.equal(sent?.replyTo ?? null, null, "the answer is not a reply to a message nobody sent");

    await gw.runner.idle();
    const route = await gw.store.sessionRoute(DM_KEY);
    const stored = await gw.runtime.store.getMessages(route!.sessionId);
    const users = stored.filter((m) => m.role === "user").map((m) => String(m.content));
    assert.equal(users.length, 2, "the result is a turn of the chat's session");
    assert.equal(users[0], "dispatch");
    assert.match(users[1]!, /^\[Background subagent result/);
  } finally {
    held.release("@parent", { text: "unused" });
    await gw.close();
  }
});

test("a result that finishes during the chat's turn waits in its lane instead of interrupting it", async () => {
  const held = new HeldChildren();
  const gw = await gatewayWith(held, "scan the logs");
  try {
    gw.adapter.inject({ messageId: "m1", text: "dispatch" });
    await gw.adapter.waitForText(/^Started it in the background\.$/);
    gw.adapter.inject({ messageId: "m2", text: "wait here" });
    await held.arrived("@parent");
    held.release("scan the logs", { text: "No errors in the logs." });
    await until(() => gw.runner.waiting(DM_KEY).length === 1, "the result to be queued behind the running turn");
    held.release("@parent", { text: "finished waiting" });
    await gw.adapter.waitForText(/^parent read: /);
    const texts = gw.adapter.texts();
    const waited = texts.indexOf("finished waiting");
    const result = texts.findIndex((text) => text.startsWith("parent read: "));
    assert.ok(waited >= 0, "the running turn was not interrupted");
    assert.ok(result > waited, "the result's answer comes after the turn it waited for");
  } finally {
    held.release("@parent", { text: "unused" });
    await gw.close();
  }
});

test("/agents lists the chat's running background subagent and /agents stop all stops it without a result", async () => {
  const held = new HeldChildren();
  const gw = await gatewayWith(held, "audit the bills");
  try {
    gw.adapter.inject({ messageId: "m1", text: "dispatch" });
    await gw.adapter.waitForText(/^Started it in the background\.$/);
    await held.arrived("audit the bills");
    gw.adapter.inject({ messageId: "m2", text: "/agents" });
    const listed = await gw.adapter.waitForText(/^Background subagents of this session/);
    assert.match(listed, /\(1 running\):\n {2}bg_\w+ {2}\d+s {2}audit the bills\n/);
    gw.adapter.inject({ messageId: "m3", text: "/agents stop all" });
    await gw.adapter.waitForText(/^Stopped 1 background subagent; its result will not be reported\.$/);
    await gw.runtime.background.idle();
    await gw.runner.idle();
    gw.adapter.inject({ messageId: "m4", text: "/agents" });
    await gw.adapter.waitForText(/^No background subagents are running in this session\.$/);
    const route = await gw.store.sessionRoute(DM_KEY);
    const users = (await gw.runtime.store.getMessages(route!.sessionId)).filter((m) => m.role === "user");
    assert.deepEqual(
      users.map((m) => String(m.content)),
      ["dispatch"],
      "no result turn for the stopped child",
    );
  } finally {
    held.release("@parent", { text: "unused" });
    held.release("audit the bills", { text: "unused" });
    await gw.close();
  }
});
