/** `platforms.<name>.reply_to_mode`, `typing_indicator` and `gateway_restart_notification`. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { startGateway, untilModelRequests } from "./harness.js";

const LONG = `${"a".repeat(90)}\n\n${"b".repeat(90)}\n\n${"c".repeat(90)}`;

/** A reply in three parts on a platform that takes 100 characters per message. */
async function threeParts(config = "", env?: Record<string, string>) {
  const gw = await startGateway({
    config,
    ...(env ? { env: { TEST_ALLOWED_USERS: "user-1", ...env } } : {}),
    provider: { fallback: { text: LONG } },
    adapter: () => new TestAdapter({ maxMessageLength: 100 }),
  });
  try {
    gw.adapter.inject({ messageId: "in-1", text: "write a lot" });
    await gw.adapter.waitFor((sent) => sent.length === 3);
    return { quoted: gw.adapter.sent.map((s) => s.replyTo ?? null), typing: gw.adapter.typingCount };
  } finally {
    await gw.close();
  }
}

test("reply_to_mode: the first part quotes the message by default; all quotes every part; off none", async () => {
  assert.deepEqual((await threeParts()).quoted, ["in-1", null, null]);
  assert.deepEqual((await threeParts("platforms:\n  test:\n    reply_to_mode: all\n")).quoted, [
    "in-1",
    "in-1",
    "in-1",
  ]);
  assert.deepEqual((await threeParts("platforms:\n  test:\n    reply_to_mode: off\n")).quoted, [null, null, null]);
});

test("<PLATFORM>_REPLY_TO_MODE wins over config.yaml", async () => {
  assert.deepEqual(
    (await threeParts("platforms:\n  test:\n    reply_to_mode: all\n", { TEST_REPLY_TO_MODE: "off" })).quoted,
    [null, null, null],
  );
});

test("typing_indicator: false shows no typing while the agent works", async () => {
  assert.ok((await threeParts()).typing > 0, "typing is shown by default");
  assert.equal((await threeParts("platforms:\n  test:\n    typing_indicator: false\n")).typing, 0);
});

test("gateway_restart_notification: false stops a turn a restart cuts short without the note", async () => {
  for (const [config, told] of [
    ["", true],
    ["platforms:\n  test:\n    gateway_restart_notification: false\n", false],
  ] as const) {
    const gw = await startGateway({
      config,
      provider: { script: [{ text: "this will stall", fault: { kind: "stall", afterChunks: 1 } }] },
    });
    try {
      gw.adapter.inject({ messageId: "1", text: "work" });
      await untilModelRequests(gw.fake, 1);
      await gw.runner.stop(50);
      assert.equal(
        gw.adapter.texts().some((t) => /restarted while working on this/.test(t)),
        told,
        `config: ${JSON.stringify(config)}`,
      );
    } finally {
      await gw.close();
    }
  }
});

test("a <PLATFORM>_REPLY_TO_MODE that is not off, first or all stops the gateway naming the variable", async () => {
  const { resolveGatewaySettings } = await import("../../src/gateway/settings.js");
  const { configSchema } = await import("../../src/state/config-schema.js");
  const config = configSchema.parse({});
  assert.throws(
    () => resolveGatewaySettings(config, { DISCORD_REPLY_TO_MODE: "sometimes" }),
    /DISCORD_REPLY_TO_MODE="sometimes" is not one of off, first, all/,
  );
  assert.throws(() => resolveGatewaySettings(config, { MATTERMOST_REPLY_MODE: "every" }), /MATTERMOST_REPLY_MODE/);
  assert.equal(
    resolveGatewaySettings(config, { TELEGRAM_REPLY_TO_MODE: " ALL " }).delivery("telegram").replyToMode,
    "all",
  );
});
