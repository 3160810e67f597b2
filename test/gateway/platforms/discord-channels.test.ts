import assert from "node:assert/strict";
import { test } from "node:test";
import { createAdapter } from "../../../src/gateway/adapters/discord/platform.js";
import { loadConfig } from "../../../src/state/config.js";
import { startDiscordGateway } from "../../fakes/discord/harness.js";
import type { FakeUser } from "../../fakes/discord/server.js";
import { snowflake } from "../../fakes/discord/state.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests, userTexts } from "../harness.js";

const NO_AUTO_THREAD = "discord:\n  auto_thread: false\n";

function lastUserText(d: Awaited<ReturnType<typeof startDiscordGateway>>, index: number): string | undefined {
  const request = modelRequests(d.gw.fake)[index];
  return request ? userTexts(request).at(-1) : undefined;
}

test("in a guild channel only a mention is answered, and the mention is not part of the text", async () => {
  const d = await startDiscordGateway({ config: NO_AUTO_THREAD, provider: { script: [{ text: "you called?" }] } });
  try {
    const channel = d.fake.textChannel.id;
    d.fake.userSays({ channel, user: d.alice, content: "just chatting among ourselves" });
    const asked = d.fake.userSays({ channel, user: d.alice, content: "what is the time?", mention: true });
    const reply = await d.fake.waitForBotText(/you called\?/, channel);
    assert.equal(reply.replyTo, asked);
    assert.equal(modelRequests(d.gw.fake).length, 1, "the message without a mention was not answered");
    // The chat before the mention comes along as quoted context (discord.history_backfill).
    assert.match(lastUserText(d, 0) ?? "", /<\/earlier_chat>\n\nwhat is the time\?$/);
    assert.ok(!lastUserText(d, 0)?.includes("<@"));
  } finally {
    await d.close();
  }
});

test("a free-response channel needs no mention; allowed_channels keeps the bot out of the others", async () => {
  const d = await startDiscordGateway({
    config: (fake) =>
      `discord:\n  auto_thread: false\n  free_response_channels: "${fake.textChannel.id}"\n  allowed_channels: "${fake.textChannel.id}"\n`,
    provider: { fallback: (req) => ({ text: `echo: ${userTexts(req).at(-1)}` }) },
  });
  try {
    d.fake.userSays({ channel: d.fake.otherChannel.id, user: d.alice, content: "over here", mention: true });
    d.fake.userSays({ channel: d.fake.textChannel.id, user: d.alice, content: "no mention needed" });
    await d.fake.waitForBotText(/echo: no mention needed/, d.fake.textChannel.id);
    assert.equal(modelRequests(d.gw.fake).length, 1, "the channel outside allowed_channels was ignored");
    assert.equal(d.fake.botMessages(d.fake.otherChannel.id).length, 0);
  } finally {
    await d.close();
  }
});

test("where no mention is needed, a message to someone else is left to them; DISCORD_* variables win over config.yaml", async () => {
  const bob: FakeUser = { id: snowflake(), username: "bob" };
  const d = await startDiscordGateway({
    // config.yaml asks for mentions everywhere; the environment turns that off.
    config: "discord:\n  auto_thread: false\n  require_mention: true\n",
    env: { DISCORD_REQUIRE_MENTION: "false" },
    provider: { fallback: (req) => ({ text: `echo: ${userTexts(req).at(-1)}` }) },
  });
  try {
    d.fake.userSays({
      channel: d.fake.textChannel.id,
      user: d.alice,
      content: "can you look at this?",
      mentionUsers: [bob],
    });
    d.fake.userSays({
      channel: d.fake.textChannel.id,
      user: d.alice,
      content: "and you, bot?",
      mentionUsers: [bob],
      mention: true,
    });
    // Messages are judged in order: once the second is answered, the first was passed over.
    await d.fake.waitForBotText(/and you, bot\?$/, d.fake.textChannel.id);
    d.fake.userSays({ channel: d.fake.textChannel.id, user: d.alice, content: "anyone at all" });
    await d.fake.waitForBotText(/echo: anyone at all$/, d.fake.textChannel.id);
    const asked = modelRequests(d.gw.fake).map((r) => userTexts(r).at(-1) ?? "");
    assert.equal(asked.length, 2, "the message to bob alone started no turn");
    assert.match(asked[0]!, /and you, bot\?$/, "a message that also mentions the bot is answered");
    assert.match(
      asked[0]!,
      /<earlier_chat>\n\[alice\] @bob can you look at this\?\n<\/earlier_chat>/,
      "the other one is only context",
    );
    assert.equal(asked[1], "anyone at all", "DISCORD_REQUIRE_MENTION=false beat require_mention: true");
  } finally {
    await d.close();
  }
});

test("DISCORD_IGNORE_NO_MENTION=false answers those too; a bad DISCORD_* flag stops the platform with its name", async () => {
  const bob: FakeUser = { id: snowflake(), username: "bob" };
  const d = await startDiscordGateway({
    config: (fake) => `discord:\n  auto_thread: false\n  free_response_channels: "${fake.textChannel.id}"\n`,
    env: { DISCORD_IGNORE_NO_MENTION: "false" },
    provider: { fallback: (req) => ({ text: `echo: ${userTexts(req).at(-1)}` }) },
  });
  try {
    d.fake.userSays({ channel: d.fake.textChannel.id, user: d.alice, content: "bob, see this", mentionUsers: [bob] });
    await d.fake.waitForBotText(/echo: .*bob, see this/, d.fake.textChannel.id);
  } finally {
    await d.close();
  }
  const home = tempDir("hermes-discord-flag-");
  const { config } = loadConfig({ home });
  assert.throws(
    () =>
      createAdapter({
        config,
        env: { DISCORD_BOT_TOKEN: "t", DISCORD_REQUIRE_MENTION: "sometimes" },
        home,
        log: () => {},
      }),
    /DISCORD_REQUIRE_MENTION="sometimes" is not true or false/,
  );
});

test("with auto_thread a mention opens a thread and the conversation continues there", async () => {
  const d = await startDiscordGateway({
    provider: { fallback: (req) => ({ text: `echo: ${userTexts(req).at(-1)}` }) },
  });
  try {
    const channel = d.fake.textChannel.id;
    const asked = d.fake.userSays({ channel, user: d.alice, content: "plan the trip", mention: true });
    const opened = await d.fake.waitForCall((c) => c.path === `/channels/${channel}/messages/${asked}/threads`);
    assert.equal(opened.body.name, "plan the trip");
    // A thread is one conversation for all who join it, so each message says who wrote it.
    const reply = await d.fake.waitForBotText(/echo: \[alice\] plan the trip/);
    assert.equal(reply.channelId, asked, "the reply is in the thread started from the message");
    d.fake.userSays({ channel: asked, user: d.alice, content: "and the hotel?" });
    const second = await d.fake.waitForBotText(/echo: \[alice\] and the hotel\?/);
    assert.equal(second.channelId, asked, "a thread needs no mention");
    assert.ok(await d.gw.store.sessionRoute(`agent:main:discord:thread:${channel}:${asked}`));
  } finally {
    await d.close();
  }
});

test("a reply longer than 2000 characters arrives in parts, each within the limit, nothing lost", async () => {
  const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i}: ${"words ".repeat(30).trim()}.`);
  const d = await startDiscordGateway({ provider: { script: [{ text: paragraphs.join("\n\n") }] } });
  try {
    d.fake.userSays({ channel: "dm", user: d.alice, content: "write a lot" });
    const dm = d.fake.dmChannel(d.alice).id;
    await d.fake.waitForBotText(/Paragraph 29/, dm);
    const parts = d.fake.botMessages(dm).map((m) => m.content);
    assert.ok(parts.length >= 3, `${parts.length} parts`);
    assert.ok(parts.every((part) => part.length <= 2000));
    assert.equal(parts.join("\n\n"), paragraphs.join("\n\n"));
  } finally {
    await d.close();
  }
});

test("a stranger's DM gets a pairing code and never reaches the model; bots are ignored", async () => {
  const d = await startDiscordGateway({ provider: { fallback: { text: "should not be said" } } });
  try {
    const mallory = { id: snowflake(), username: "mallory" };
    const robot = { id: snowflake(), username: "robot", bot: true };
    d.fake.userSays({ channel: "dm", user: robot, content: "beep" });
    d.fake.userSays({ channel: "dm", user: mallory, content: "let me in" });
    const dm = d.fake.dmChannel(mallory).id;
    const reply = await d.fake.waitForBotText(/pairing code is [A-Z0-9]{8}/, dm);
    assert.match(reply.content, /hermes pairing approve discord/);
    assert.equal(modelRequests(d.gw.fake).length, 0);
    assert.equal(d.fake.botMessages(d.fake.dmChannel(robot).id).length, 0, "another bot gets no answer");
  } finally {
    await d.close();
  }
});
