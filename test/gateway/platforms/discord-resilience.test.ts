import assert from "node:assert/strict";
import { test } from "node:test";
import { DiscordAdapter } from "../../../src/gateway/adapters/discord/adapter.js";
import { rulesFrom } from "../../../src/gateway/adapters/discord/inbound.js";
import { probe } from "../../../src/gateway/adapters/discord/platform.js";
import { enabledPlatforms } from "../../../src/gateway/platforms.js";
import { PlatformSendError } from "../../../src/gateway/types.js";
import { DEFAULT_CONFIG } from "../../../src/state/config-defaults.js";
import { startDiscordGateway } from "../../fakes/discord/harness.js";
import { startFakeDiscord } from "../../fakes/discord/server.js";
import { tempDir } from "../../state/temp-dir.js";
import { gated, modelRequests, untilModelRequests, userTexts } from "../harness.js";

test("the gateway socket dropped mid-conversation is resumed: nothing lost, nothing doubled", async () => {
  const first = gated({ text: "answer one" });
  const d = await startDiscordGateway({
    config: "display:\n  busy_input_mode: queue\n",
    provider: { script: [first.step], fallback: (req) => ({ text: `echo: ${userTexts(req).at(-1)}` }) },
  });
  try {
    const dm = d.fake.dmChannel(d.alice).id;
    d.fake.userSays({ channel: "dm", user: d.alice, content: "one" });
    await untilModelRequests(d.gw.fake, 1);
    d.fake.gateway.drop();
    // Sent while the bot is away: Discord keeps it for the resumed session.
    d.fake.userSays({ channel: "dm", user: d.alice, content: "two" });
    await d.fake.waitFor(() => d.fake.gateway.resumes.length === 1 && d.fake.gateway.live, 20_000, "a RESUME");
    first.open();
    await d.fake.waitForBotText(/echo: two/, dm);
    const replies = d.fake.botMessages(dm).map((m) => m.content);
    // Besides the "Queued" notice the core gives while busy, each message got exactly one answer.
    assert.deepEqual(
      replies.filter((text) => !text.startsWith("Queued")),
      ["answer one", "echo: two"],
    );
    assert.equal(d.fake.gateway.identifies.length, 1, "the session was resumed, not identified anew");
    assert.equal(d.fake.gateway.resumes[0]?.session_id, "session-1");
    assert.ok(d.fake.gateway.connectUrls[1]?.startsWith("/resume"), "it reconnected to resume_gateway_url");
    assert.equal(modelRequests(d.gw.fake).length, 2);
  } finally {
    await d.close();
  }
});

test("a send that meets a 429 waits the retry_after Discord gave, then is delivered once", async () => {
  const d = await startDiscordGateway({ provider: { script: [{ text: "after the wait" }] } });
  try {
    const dm = d.fake.dmChannel(d.alice).id;
    d.fake.failNext({ method: "POST", path: new RegExp(`^/channels/${dm}/messages$`), status: 429, retryAfter: 2 });
    d.fake.userSays({ channel: "dm", user: d.alice, content: "hi" });
    await d.fake.waitForBotText(/after the wait/, dm);
    const posts = d.fake.calls.filter((c) => c.method === "POST" && c.path === `/channels/${dm}/messages`);
    assert.deepEqual(
      posts.map((c) => c.status),
      [429, 200],
    );
    const waited = (posts[1]?.at ?? 0) - (posts[0]?.at ?? 0);
    assert.ok(waited >= 1950, `waited ${waited} ms for a retry_after of 2 s`);
    assert.equal(d.fake.botMessages(dm).length, 1);
  } finally {
    await d.close();
  }
});

test("send failures reach the core as retryable or not, with Discord's wait", async () => {
  const fake = await startFakeDiscord();
  const channel = fake.textChannel.id;
  const adapter = new DiscordAdapter({
    token: fake.token,
    apiRoot: fake.apiRoot,
    home: tempDir("hermes-discord-"),
    rules: rulesFrom(DEFAULT_CONFIG),
    log: () => undefined,
    maxInlineRateLimitMs: 500,
  });
  const failure = async (fault: Parameters<typeof fake.failNext>[0]) => {
    fake.failNext({ method: "POST", path: /\/messages$/, ...fault });
    const error = await adapter.send({ chatId: channel, text: "hello" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof PlatformSendError, `a PlatformSendError for ${JSON.stringify(fault)}`);
    return error;
  };
  try {
    const limited = await failure({ status: 429, retryAfter: 3 });
    assert.equal(limited.options.retryable, true);
    assert.ok((limited.options.retryAfterMs ?? 0) >= 3000, `retryAfterMs ${limited.options.retryAfterMs}`);
    assert.equal((await failure({ status: 403 })).options.retryable, false);
    assert.equal((await failure({ status: 400 })).options.retryable, false);
    assert.equal((await failure({ status: 502 })).options.retryable, true);
    assert.equal((await failure({ drop: true })).options.retryable, true);
    const sent = await adapter.send({ chatId: channel, text: "finally" });
    assert.equal(fake.messages.get(sent.messageId ?? "")?.content, "finally");
    const unauthorized = new DiscordAdapter({
      token: "wrong",
      apiRoot: fake.apiRoot,
      home: tempDir("hermes-discord-"),
      rules: rulesFrom(DEFAULT_CONFIG),
      log: () => undefined,
    });
    const refused = await unauthorized.send({ chatId: channel, text: "x" }).catch((e: unknown) => e);
    assert.ok(refused instanceof PlatformSendError && !refused.options.retryable);
    assert.ok(!refused.message.includes("wrong"), "the token is not in the error");
  } finally {
    await fake.close();
  }
});

test("DISCORD_BOT_TOKEN and DISCORD_API_ROOT enable the platform; probe names the bot or explains a bad token", async () => {
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 500 });
  const home = tempDir("hermes-discord-");
  const env = { DISCORD_BOT_TOKEN: fake.token, DISCORD_API_ROOT: fake.apiRoot };
  try {
    const { adapters } = await enabledPlatforms(DEFAULT_CONFIG, { home, env, log: () => undefined });
    const discord = adapters.find((a) => a.platform === "discord");
    assert.ok(discord, "the discord adapter was built");
    assert.equal(discord.maxMessageLength, 2000);
    await discord.connect({ inbound: async () => true, listenerLost: () => undefined });
    try {
      assert.equal(fake.gateway.identifies.length, 1);
      await fake.waitFor(() => fake.gateway.heartbeats >= 2, 10_000, "two acknowledged heartbeats");
      await discord.checkAlive?.();
      assert.ok(fake.calls.some((c) => c.method === "GET" && c.path === "/users/@me"));
    } finally {
      await discord.disconnect();
    }
    const none = await enabledPlatforms(DEFAULT_CONFIG, { home, env: {}, log: () => undefined });
    assert.ok(!none.adapters.some((a) => a.platform === "discord"));

    const context = { config: DEFAULT_CONFIG, env, home, log: () => undefined };
    assert.deepEqual(await probe(context, 5000), { ok: true, detail: `hermes-bot (${fake.bot.id})` });
    const bad = await probe({ ...context, env: { ...env, DISCORD_BOT_TOKEN: "not-it" } }, 5000);
    assert.equal(bad.ok, false);
    assert.match(bad.detail, /401/);
    assert.match(bad.hint ?? "", /DISCORD_BOT_TOKEN/);
  } finally {
    await fake.close();
  }
});

test("a gateway close discord.js cannot recover from is reported, and the core connects again", async () => {
  const d = await startDiscordGateway({ provider: { fallback: { text: "back again" } } });
  try {
    d.fake.gateway.closeWith(4004, "Authentication failed");
    await d.fake.waitFor(
      () => d.fake.gateway.identifies.length === 2 && d.fake.gateway.live,
      20_000,
      "a fresh IDENTIFY",
    );
    assert.ok(
      d.gw.logs.some((line) => /discord: listener lost \(.*4004/.test(line)),
      d.gw.logs.join("\n"),
    );
    d.fake.userSays({ channel: "dm", user: d.alice, content: "still there?" });
    await d.fake.waitForBotText(/back again/, d.fake.dmChannel(d.alice).id);
  } finally {
    await d.close();
  }
});
