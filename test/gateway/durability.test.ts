import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { POSSIBLE_DUPLICATE_NOTE } from "../../src/gateway/delivery.js";
import { PlatformSendError } from "../../src/gateway/types.js";
import { modelRequests, startGateway, userTexts } from "./harness.js";

const inbound = (messageId: string) => ({ platform: "test", chatId: "chat-1", messageId });

test("a redelivered message is answered once, also when it comes again after a restart", async () => {
  const gw = await startGateway();
  try {
    gw.adapter.inject({ messageId: "42", text: "hello" });
    gw.adapter.inject({ messageId: "42", text: "hello" });
    await gw.adapter.waitForText(/^ok$/);
    await gw.restart();
    gw.adapter.inject({ messageId: "42", text: "hello" });
    await gw.runner.stop();
    assert.equal(modelRequests(gw.fake).length, 1);
    assert.equal(gw.adapter.sent.length, 0, "nothing was sent after the restart");
    assert.ok(gw.logs.some((line) => /ignored a repeat of test message 42/.test(line)));
  } finally {
    await gw.close();
  }
});

test("a send that fails twice is retried and the reply arrives once", async () => {
  const gw = await startGateway();
  try {
    gw.adapter.failNextSends(
      new Error("socket hang up"),
      new PlatformSendError("429 Too Many Requests", { retryable: true, retryAfterMs: 20 }),
    );
    gw.adapter.inject({ messageId: "1", text: "hello" });
    await gw.adapter.waitForText(/^ok$/);
    assert.equal(gw.adapter.sent.length, 1);
    const [delivery] = await gw.store.dueDeliveries(Number.MAX_SAFE_INTEGER, 10);
    assert.equal(delivery, undefined, "nothing is left pending");
    assert.ok(gw.logs.some((line) => /retrying in/.test(line)));
  } finally {
    await gw.close();
  }
});

test("a send the platform rejects for good is not retried and is recorded as failed", async () => {
  const gw = await startGateway();
  try {
    gw.adapter.failNextSends(new PlatformSendError("400 chat not found", { retryable: false }));
    gw.adapter.inject({ messageId: "1", text: "hello" });
    await gw.runner.stop();
    assert.equal(gw.adapter.sent.length, 0);
    assert.ok(gw.logs.some((line) => /gave up sending to test:chat-1: 400 chat not found/.test(line)));
  } finally {
    await gw.close();
  }
});

test("a reply in flight when the process died is sent again after the restart, once, marked", async () => {
  const gw = await startGateway();
  try {
    await gw.runner.stop();
    // What a SIGKILL between "sending" and the platform's answer leaves in the ledger.
    await gw.store.recordDelivery({
      id: "d-1",
      platform: "test",
      chatId: "chat-1",
      body: { text: "the answer you were waiting for" },
      idempotencyKey: "hermes-d-1",
    });
    await gw.store.markSending("d-1");
    await gw.restart();
    await gw.adapter.waitForText(/the answer you were waiting for/);
    await gw.restart();
    assert.deepEqual(gw.adapter.sent, [], "the second restart sends nothing again");
    const record = await gw.store.getDelivery("d-1");
    assert.equal(record?.state, "sent");
    assert.equal(record?.possibleDuplicate, true);
  } finally {
    await gw.close();
  }
});

test("the resent reply starts with the note that it may be a repeat", async () => {
  const gw = await startGateway();
  try {
    await gw.runner.stop();
    await gw.store.recordDelivery({
      id: "d-2",
      platform: "test",
      chatId: "chat-1",
      body: { text: "x" },
      idempotencyKey: "k",
    });
    await gw.store.markSending("d-2");
    await gw.restart();
    assert.equal(await gw.adapter.waitForText(/x$/), `${POSSIBLE_DUPLICATE_NOTE}\nx`);
  } finally {
    await gw.close();
  }
});

test("a message that crashed the gateway once runs again; after two crashes it is set aside and the chat is told", async () => {
  const gw = await startGateway();
  try {
    await gw.runner.stop();
    const key = "agent:main:test:dm:chat-1";
    const once = { ...inbound("once"), chatType: "dm", userId: "user-1", text: "crashed once" };
    const twice = { ...inbound("twice"), chatType: "dm", userId: "user-1", text: "crashed twice" };
    await gw.store.claimInbound(inbound("once"), key, once);
    await gw.store.startInbound(inbound("once"));
    await gw.store.claimInbound(inbound("twice"), key, twice);
    await gw.store.startInbound(inbound("twice"));
    await gw.store.startInbound(inbound("twice"));
    await gw.restart();
    await gw.adapter.waitForText(/^ok$/);
    await gw.adapter.waitForText(/set your message aside \("crashed twice"\)/);
    await gw.runner.stop();
    assert.equal(modelRequests(gw.fake).length, 1, "only the message that crashed once ran again");
    assert.deepEqual(await gw.store.unfinishedInbound(), []);
  } finally {
    await gw.close();
  }
});

test("a message whose turn was cut off runs again without its first attempt left in the transcript", async () => {
  const gw = await startGateway();
  try {
    gw.adapter.inject({ messageId: "m1", text: "first question" });
    await gw.adapter.waitForText(/^ok$/);
    await gw.runner.stop();
    // The process died mid-turn: the message was started and its user message written, no answer.
    const key = "agent:main:test:dm:chat-1";
    const route = await gw.store.sessionRoute(key);
    assert.ok(route);
    const message = { ...inbound("m2"), chatType: "dm", userId: "user-1", text: "second question" };
    await gw.store.claimInbound(inbound("m2"), key, message);
    await gw.store.startInbound(inbound("m2"));
    await gw.runtime.store.appendMessage(route.sessionId, { role: "user", content: "second question" });
    await gw.restart();
    await gw.adapter.waitForText(/^ok$/);
    await gw.runner.stop();
    const requests = modelRequests(gw.fake);
    assert.deepEqual(userTexts(requests.at(-1)!), ["first question", "second question"]);
    const users = (await gw.runtime.store.getMessages(route.sessionId)).filter((m) => m.role === "user");
    assert.deepEqual(
      users.map((m) => m.content),
      ["first question", "second question"],
    );
  } finally {
    await gw.close();
  }
});

test("a gateway killed with SIGKILL while a reply was on its way resends it once, marked, after the restart", async () => {
  const { spawnSync } = await import("node:child_process");
  const { tempDir } = await import("../state/temp-dir.js");
  const home = tempDir("hermes-gateway-kill-");
  // The child sends through the real delivery queue; the platform call kills the process mid-send.
  const crasher = `
    const [storeUrl, deliveryUrl, path] = process.argv.slice(1);
    const { openGatewayStore } = await import(storeUrl);
    const { DeliveryQueue } = await import(deliveryUrl);
    const store = await openGatewayStore(path);
    const dying = {
      platform: "test", maxMessageLength: 4096, canEdit: false,
      async connect() {}, async disconnect() {},
      async send() { process.kill(process.pid, "SIGKILL"); await new Promise(() => {}); },
    };
    const queue = new DeliveryQueue({ store, adapter: () => dying });
    await queue.deliver({ platform: "test", chatId: "chat-1", text: "the answer you waited for" });
  `;
  const modules = ["../../src/state/gateway-store.ts", "../../src/gateway/delivery.ts"].map(
    (path) => new URL(path, import.meta.url).href,
  );
  const crashed = spawnSync(process.execPath, [
    "--import",
    "tsx",
    "--input-type=module",
    "-e",
    crasher,
    ...modules,
    join(home, "state.db"),
  ]);
  assert.equal(crashed.signal, "SIGKILL", crashed.stderr.toString());

  const gw = await startGateway({ home });
  try {
    const resent = await gw.adapter.waitForText(/the answer you waited for/);
    assert.equal(resent, `${POSSIBLE_DUPLICATE_NOTE}\nthe answer you waited for`);
    await gw.restart();
    await gw.runner.stop();
    assert.equal(gw.adapter.sent.length, 0, "a second restart sends nothing");
  } finally {
    await gw.close();
  }
});

test("answered messages and sent replies are pruned after a week; a redelivery within it is still caught", async () => {
  const gw = await startGateway();
  try {
    gw.adapter.inject({ messageId: "old", text: "hello" });
    await gw.adapter.waitForText(/^ok$/);
    await gw.runner.prune(Date.now() + 6 * 24 * 3_600_000);
    gw.adapter.inject({ messageId: "old", text: "hello" });
    await gw.runner.stop();
    assert.equal(modelRequests(gw.fake).length, 1, "the redelivery inside the week was not answered again");
    assert.ok(!gw.logs.some((line) => /pruned/.test(line)), "nothing is pruned within the week");
    await gw.runner.prune(Date.now() + 8 * 24 * 3_600_000);
    assert.ok(
      gw.logs.some((line) => /pruned 1 inbound and 1 delivery record/.test(line)),
      gw.logs.join("\n"),
    );
  } finally {
    await gw.close();
  }
});
