import assert from "node:assert/strict";
import { test } from "node:test";
import { PAIRING_ALPHABET, PAIRING_CODE_LENGTH } from "../../src/gateway/authorization.js";
import { modelRequests, startGateway } from "./harness.js";

const codeIn = (text: string) => /pairing code is ([A-Z0-9]+)/.exec(text)?.[1];

test("an unknown user's DM gets a pairing code, never an answer, until the owner approves it", async () => {
  const gw = await startGateway({ env: {} });
  try {
    gw.adapter.inject({ userId: "stranger", chatId: "dm-s", messageId: "1", text: "hi, run something for me" });
    const reply = await gw.adapter.waitForText(/pairing code/);
    const code = codeIn(reply);
    assert.ok(code, reply);
    assert.equal(code.length, PAIRING_CODE_LENGTH);
    assert.ok(
      [...code].every((c) => PAIRING_ALPHABET.includes(c)),
      `${code} avoids 0, O, 1 and I`,
    );
    assert.match(reply, new RegExp(`hermes pairing approve test ${code}`));

    // More messages within ten minutes get no reply at all.
    gw.adapter.inject({ userId: "stranger", chatId: "dm-s", messageId: "2", text: "hello??" });
    gw.adapter.inject({ userId: "stranger", chatId: "dm-s", messageId: "3", text: "/help" });
    await gw.runner.stop();
    assert.equal(gw.adapter.sent.length, 1);
    assert.equal(modelRequests(gw.fake).length, 0, "no model call for an unknown user");

    await gw.restart();
    assert.ok(await gw.store.approvePairingCode("test", code));
    gw.adapter.inject({ userId: "stranger", chatId: "dm-s", messageId: "4", text: "now?" });
    await gw.adapter.waitForText(/^ok$/);
  } finally {
    await gw.close();
  }
});

test("pairing gives at most three pending codes per platform; the fourth stranger hears nothing", async () => {
  const gw = await startGateway({ env: {} });
  try {
    for (const n of [1, 2, 3, 4])
      gw.adapter.inject({ userId: `s${n}`, chatId: `dm-${n}`, messageId: `${n}`, text: "hi" });
    await gw.adapter.waitFor((sent) => sent.length === 3);
    await gw.runner.stop();
    assert.equal(gw.adapter.sent.length, 3);
    assert.equal((await gw.store.pendingPairingRequests("test")).length, 3);
  } finally {
    await gw.close();
  }
});

test("unauthorized_dm_behavior: ignore sends nothing to strangers", async () => {
  const gw = await startGateway({ env: {}, config: "unauthorized_dm_behavior: ignore\n" });
  try {
    gw.adapter.inject({ userId: "stranger", messageId: "1", text: "hi" });
    await gw.runner.stop();
    assert.equal(gw.adapter.sent.length, 0);
    assert.equal((await gw.store.pendingPairingRequests()).length, 0);
  } finally {
    await gw.close();
  }
});

test("in a group a stranger is ignored, an allowed group's members are answered", async () => {
  const gw = await startGateway({ env: { TEST_GROUP_ALLOWED_CHATS: "team" } });
  try {
    gw.adapter.inject({ userId: "x", chatId: "elsewhere", chatType: "group", messageId: "1", text: "hi" });
    gw.adapter.inject({ userId: "y", chatId: "team", chatType: "group", messageId: "2", text: "hi team" });
    await gw.adapter.waitForText(/^ok$/);
    await gw.runner.stop();
    assert.deepEqual(
      gw.adapter.sent.map((s) => s.chatId),
      ["team"],
    );
    assert.equal((await gw.store.pendingPairingRequests()).length, 0, "no pairing codes are handed out in groups");
  } finally {
    await gw.close();
  }
});

for (const [name, env] of [
  ["the platform allowlist (by user name too)", { TEST_ALLOWED_USERS: "alice" }],
  ["the platform allow-all flag", { TEST_ALLOW_ALL_USERS: "true" }],
  ["the gateway allowlist", { GATEWAY_ALLOWED_USERS: "u-9" }],
  ["the gateway allow-all flag", { GATEWAY_ALLOW_ALL_USERS: "1" }],
] as const) {
  test(`a user allowed by ${name} is answered`, async () => {
    const gw = await startGateway({ env });
    try {
      gw.adapter.inject({ userId: "u-9", userName: "alice", messageId: "1", text: "hi" });
      await gw.adapter.waitForText(/^ok$/);
      assert.equal(modelRequests(gw.fake).length, 1);
    } finally {
      await gw.close();
    }
  });
}

test("admin-only commands say so to a user who is not the admin once an admin exists", async () => {
  const gw = await startGateway({ env: { TEST_ALLOWED_USERS: "user-1,user-2" } });
  try {
    await gw.store.approveUser({ platform: "test", userId: "user-1", userName: null, admin: true });
    gw.adapter.inject({ userId: "user-2", chatId: "c2", messageId: "1", text: "/yolo on" });
    await gw.adapter.waitForText(/admin only/);
    assert.equal(gw.runtime.approvals.yolo, false);
    gw.adapter.inject({ userId: "user-1", chatId: "c1", messageId: "2", text: "/yolo on" });
    await gw.adapter.waitForText(/YOLO on/);
    assert.equal(gw.runtime.approvals.yolo, true);
    gw.adapter.inject({ userId: "user-1", chatId: "c1", messageId: "3", text: "/whoami" });
    assert.match(await gw.adapter.waitForText(/id user-1/), /admin/);
  } finally {
    await gw.close();
  }
});
