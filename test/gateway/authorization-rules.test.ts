import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { authorize, pairingReply, requestPairing } from "../../src/gateway/authorization.js";
import { resolveGatewaySettings } from "../../src/gateway/settings.js";
import type { InboundMessage } from "../../src/gateway/types.js";
import { DEFAULT_CONFIG } from "../../src/state/config-defaults.js";
import { openGatewayStore } from "../../src/state/gateway-store.js";
import { tempDir } from "../state/temp-dir.js";

const message = (overrides: Partial<InboundMessage> = {}): InboundMessage => ({
  platform: "telegram",
  chatId: "555",
  chatType: "dm",
  userId: "555",
  userName: "mallory",
  text: "hi",
  messageId: "1",
  ...overrides,
});

test("each way in is named, in the original's order; strangers are refused with why", async () => {
  const store = await openGatewayStore(join(tempDir(), "state.db"));
  try {
    const settings = (env: Record<string, string>) => resolveGatewaySettings(DEFAULT_CONFIG, env);
    const check = (env: Record<string, string>, m = message()) => authorize(m, settings(env), store);
    assert.deepEqual(await check({ TELEGRAM_ALLOW_ALL_USERS: "true" }), {
      allowed: true,
      admin: false,
      via: "platform allow-all",
    });
    assert.deepEqual(await check({ TELEGRAM_ALLOWED_USERS: "mallory" }), {
      allowed: true,
      admin: false,
      via: "platform allowlist",
    });
    const group = message({ chatId: "-100", chatType: "group" });
    assert.deepEqual(await check({ TELEGRAM_GROUP_ALLOWED_CHATS: "-100" }, group), {
      allowed: true,
      admin: false,
      via: "group allowlist",
    });
    assert.deepEqual(await check({ GATEWAY_ALLOWED_USERS: "555" }), {
      allowed: true,
      admin: false,
      via: "gateway allowlist",
    });
    assert.deepEqual(await check({ GATEWAY_ALLOW_ALL_USERS: "1" }), {
      allowed: true,
      admin: false,
      via: "gateway allow-all",
    });
    assert.deepEqual(await check({}, group), {
      allowed: false,
      action: "ignore",
      why: "not allowed in this group",
    });
    assert.deepEqual(await check({}), { allowed: false, action: "pair", why: "not an allowed user" });
    await store.approveUser({ platform: "telegram", userId: "555", userName: "mallory", admin: true });
    assert.deepEqual(await check({}), { allowed: true, admin: true, via: "pairing" });
  } finally {
    store.close();
  }
});

test("a group allowlist never admits a direct message, even one whose chat id is listed", async () => {
  const store = await openGatewayStore(join(tempDir(), "state.db"));
  try {
    const settings = resolveGatewaySettings(DEFAULT_CONFIG, { TELEGRAM_GROUP_ALLOWED_CHATS: "555" });
    assert.equal((await authorize(message(), settings, store)).allowed, false);
  } finally {
    store.close();
  }
});

test("a pairing request keeps the user's name for the owner, and the reply says what to run", async () => {
  const store = await openGatewayStore(join(tempDir(), "state.db"));
  try {
    const request = await requestPairing(message(), store);
    assert.ok(request);
    assert.equal(request.userName, "mallory");
    assert.equal((await store.pendingPairingRequests("telegram"))[0]?.userName, "mallory");
    assert.equal(
      pairingReply(request),
      [
        "I only talk to people my owner has approved.",
        `Your pairing code is ${request.code} (valid for one hour).`,
        `Ask the owner to run: hermes pairing approve telegram ${request.code}`,
      ].join("\n"),
    );
    const nameless = await requestPairing(message({ userId: "777", chatId: "777", userName: undefined }), store);
    assert.equal(nameless?.userName, null);
  } finally {
    store.close();
  }
});

test("what the platform vouches for admits a sender last: only when no allowlist or pairing did, named as the reason", async () => {
  const store = await openGatewayStore(join(tempDir(), "state.db"));
  try {
    const asked: string[] = [];
    const vouch = async (m: InboundMessage) => {
      asked.push(m.userId);
      return m.userId === "role-holder" ? "holds a role the operator allows" : undefined;
    };
    const settings = (env: Record<string, string>) => resolveGatewaySettings(DEFAULT_CONFIG, env);
    assert.deepEqual(await authorize(message({ userId: "role-holder" }), settings({}), store, vouch), {
      allowed: true,
      admin: false,
      via: "holds a role the operator allows",
    });
    const stranger = await authorize(message({ userId: "stranger" }), settings({}), store, vouch);
    assert.equal(stranger.allowed, false);
    const groupStranger = await authorize(
      message({ userId: "stranger", chatId: "-100", chatType: "group" }),
      settings({}),
      store,
      vouch,
    );
    assert.deepEqual(groupStranger, { allowed: false, action: "ignore", why: "not allowed in this group" });
    asked.length = 0;
    const listed = await authorize(
      message({ userId: "role-holder" }),
      settings({ TELEGRAM_ALLOWED_USERS: "role-holder" }),
      store,
      vouch,
    );
    assert.equal(listed.allowed && listed.via, "platform allowlist");
    assert.deepEqual(asked, [], "the platform is not asked when an allowlist already admits the sender");
  } finally {
    store.close();
  }
});
