import assert from "node:assert/strict";
import { test } from "node:test";
import { createAdapter, probe } from "../../../src/gateway/adapters/slack/platform.js";
import { enabledPlatforms } from "../../../src/gateway/platforms.js";
import type { InboundMessage } from "../../../src/gateway/types.js";
import { DEFAULT_CONFIG } from "../../../src/state/config-defaults.js";
import { configSchema } from "../../../src/state/config-schema.js";
import { ALICE, CHANNEL, DM, until } from "../../fakes/slack/gateway.js";
import { FAKE_BOT, type FakeSlack, startFakeSlack } from "../../fakes/slack/server.js";
import { tempDir } from "../../state/temp-dir.js";

function env(slack: FakeSlack, overrides: Record<string, string> = {}) {
  return {
    SLACK_BOT_TOKEN: slack.state.tokens.bot,
    SLACK_APP_TOKEN: slack.state.tokens.app,
    SLACK_API_ROOT: `${slack.url}/api`,
    ...overrides,
  };
}

test("SLACK_BOT_TOKEN, SLACK_APP_TOKEN and SLACK_API_ROOT enable the platform, and its adapter hears a DM", async () => {
  const slack = await startFakeSlack();
  const home = tempDir("hermes-slack-");
  const { adapters, notices } = await enabledPlatforms(DEFAULT_CONFIG, { home, env: env(slack), log: () => undefined });
  assert.deepEqual(notices, []);
  assert.deepEqual(
    adapters.map((a) => a.platform),
    ["slack"],
  );
  const adapter = adapters[0]!;
  const heard: InboundMessage[] = [];
  let lost: Error | undefined;
  try {
    await adapter.connect({
      inbound: async (message) => heard.push(message) > 0,
      listenerLost: (error) => (lost = error),
    });
    assert.equal(slack.connections, 1);
    slack.sendEvent({
      type: "message",
      channel: DM,
      channel_type: "im",
      user: ALICE,
      text: "hello &amp; welcome &lt;3",
      ts: "1700000100.000100",
    });
    await slack.waitFor(() => slack.calls.some((c) => c.method === "users.info"), "the name lookup");
    await until(() => heard.length > 0, "the inbound message");
    assert.deepEqual(heard[0], {
      platform: "slack",
      chatId: DM,
      chatType: "dm",
      userId: ALICE,
      userName: `member-${ALICE.toLowerCase()}`,
      text: "hello & welcome <3",
      messageId: "1700000100.000100",
      sentAt: 1_700_000_100_000,
    });
    await adapter.checkAlive?.();
    assert.equal(lost, undefined);
  } finally {
    await adapter.disconnect();
    await slack.close();
  }
});

test("one Slack token alone does not enable the platform", async () => {
  const home = tempDir("hermes-slack-");
  const { adapters } = await enabledPlatforms(DEFAULT_CONFIG, {
    home,
    env: { SLACK_BOT_TOKEN: "xoxb-only" },
    log: () => undefined,
  });
  assert.deepEqual(adapters, []);
});

test("tokens of the wrong kind are refused with a hint before anything connects", () => {
  const context = (overrides: Record<string, string>) => ({
    config: DEFAULT_CONFIG,
    env: { SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1", ...overrides },
    home: tempDir("hermes-slack-"),
    log: () => undefined,
  });
  assert.throws(
    () => createAdapter(context({ SLACK_BOT_TOKEN: "xoxp-user-token" })),
    /does not start with xoxb-.*Bot User OAuth Token/,
  );
  assert.throws(() => createAdapter(context({ SLACK_APP_TOKEN: "xoxb-not-an-app-token" })), /xapp-.*connections:write/);
});

test("probe: auth.test names the bot and the team; a rejected token or a malformed app token is not ok", async () => {
  const slack = await startFakeSlack();
  const context = (overrides: Record<string, string> = {}) => ({
    config: DEFAULT_CONFIG,
    env: env(slack, overrides),
    home: tempDir("hermes-slack-"),
    log: () => undefined,
  });
  try {
    assert.deepEqual(await probe(context(), 5_000), { ok: true, detail: `${FAKE_BOT.name} in Fake Team` });
    const rejected = await probe(context({ SLACK_BOT_TOKEN: "xoxb-revoked" }), 5_000);
    assert.equal(rejected.ok, false);
    assert.match(rejected.detail, /invalid_auth/);
    assert.match(rejected.hint ?? "", /xoxb-/);
    const noApp = await probe(context({ SLACK_APP_TOKEN: "abc" }), 5_000);
    assert.equal(noApp.ok, false);
    assert.match(noApp.hint ?? "", /connections:write/);
    assert.equal(slack.calls.filter((c) => c.method === "auth.test").length, 2, "a malformed app token needs no call");
  } finally {
    await slack.close();
  }
});

test("SLACK_REQUIRE_MENTION, SLACK_FREE_RESPONSE_CHANNELS and SLACK_ALLOWED_CHANNELS win over config.yaml", async () => {
  const slack = await startFakeSlack();
  const config = configSchema.parse({ slack: { require_mention: true, allowed_channels: [CHANNEL] } });
  const overrides = { SLACK_ALLOWED_CHANNELS: "C0OTHER001", SLACK_REQUIRE_MENTION: "false" };
  const adapter = createAdapter({
    config,
    env: { ...env(slack), ...overrides },
    home: tempDir("hermes-slack-"),
    log: () => undefined,
  });
  const heard: InboundMessage[] = [];
  try {
    await adapter.connect({ inbound: async (message) => heard.push(message) > 0, listenerLost: () => undefined });
    const keptOut = slack.sendEvent({
      type: "message",
      channel_type: "channel",
      channel: CHANNEL,
      user: ALICE,
      text: "kept out",
      ts: "1700000300.000001",
    });
    slack.sendEvent({
      type: "message",
      channel_type: "channel",
      channel: "C0OTHER001",
      user: ALICE,
      text: "no mention, let in",
      ts: "1700000300.000002",
    });
    const last = slack.sendEvent({
      type: "message",
      channel: DM,
      channel_type: "im",
      user: ALICE,
      text: "end",
      ts: "1700000300.000003",
    });
    await slack.waitFor(() => slack.acked(last) && slack.acked(keptOut), "the acks");
    await until(
      () => heard.some((m) => m.text === "no mention, let in") && heard.some((m) => m.text === "end"),
      "the messages that pass",
    );
    assert.ok(!heard.some((m) => m.text === "kept out"), "config.yaml's allowed_channels was replaced by the variable");
    // A message let in starts its channel's name lookup at once, before a later channel's ends.
    assert.ok(
      !slack.calls.some((call) => call.method === "conversations.info" && call.params.channel === CHANNEL),
      "nothing was done for the message kept out",
    );
  } finally {
    await adapter.disconnect();
    await slack.close();
  }
  assert.throws(
    () =>
      createAdapter({
        config,
        env: { ...env(slack), SLACK_REQUIRE_MENTION: "perhaps" },
        home: tempDir("hermes-slack-"),
        log: () => undefined,
      }),
    /SLACK_REQUIRE_MENTION="perhaps" is not true or false/,
  );
});

test("slack.require_mention, free_response_channels and allowed_channels decide which channel messages are heard", async () => {
  const slack = await startFakeSlack();
  const config = configSchema.parse({
    slack: { require_mention: true, free_response_channels: "C0FREE0001", allowed_channels: [CHANNEL, "C0FREE0001"] },
  });
  const adapter = createAdapter({ config, env: env(slack), home: tempDir("hermes-slack-"), log: () => undefined });
  const heard: InboundMessage[] = [];
  try {
    await adapter.connect({ inbound: async (message) => heard.push(message) > 0, listenerLost: () => undefined });
    const send = (channel: string, text: string, ts: string) =>
      slack.sendEvent({ type: "message", channel_type: "channel", channel, user: ALICE, text, ts });
    send(CHANNEL, "no mention here", "1700000200.000001");
    send("C0OTHER001", `<@${FAKE_BOT.userId}> not an allowed channel`, "1700000200.000002");
    send("C0FREE0001", "free talk", "1700000200.000003");
    send(CHANNEL, `<@${FAKE_BOT.userId}> with a mention`, "1700000200.000004");
    const last = slack.sendEvent({
      type: "message",
      channel: DM,
      channel_type: "im",
      user: ALICE,
      text: "end",
      ts: "1700000200.000005",
    });
    await slack.waitFor(() => slack.acked(last), "the last ack");
    // Each channel keeps its own order (a channel's first message waits for its name), not across channels.
    const wanted = ["end", "with a mention", "free talk"];
    await until(() => wanted.every((text) => heard.some((m) => m.text === text)), "the messages that pass");
    heard.sort((a, b) => a.messageId.localeCompare(b.messageId));
    assert.deepEqual(
      heard.map((m) => [m.chatId, m.chatType, m.threadId, m.text]),
      [
        ["C0FREE0001", "channel", "1700000200.000003", "free talk"],
        [CHANNEL, "channel", "1700000200.000004", "with a mention"],
        [DM, "dm", undefined, "end"],
      ],
    );
  } finally {
    await adapter.disconnect();
    await slack.close();
  }
});
