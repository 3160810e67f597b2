import assert from "node:assert/strict";
import { test } from "node:test";
import { accessFrom, DiscordAccess } from "../../../src/gateway/adapters/discord/access.js";
import { DiscordReads } from "../../../src/gateway/adapters/discord/reads.js";
import { restOptions } from "../../../src/gateway/adapters/discord/rest-options.js";
import type { InboundMessage } from "../../../src/gateway/types.js";
import { DEFAULT_CONFIG } from "../../../src/state/config-defaults.js";
import { startDiscordGateway } from "../../fakes/discord/harness.js";
import { type FakeDiscord, startFakeDiscord } from "../../fakes/discord/server.js";
import { snowflake } from "../../fakes/discord/state.js";
import { modelRequests, userTexts } from "../harness.js";

const robot = { id: snowflake(), username: "robot", bot: true };
const helen = { id: snowflake(), username: "helen" };
const gus = { id: snowflake(), username: "gus" };
const dave = { id: snowflake(), username: "dave" };
const outsider = { id: snowflake(), username: "outsider" };

function memberLookups(fake: FakeDiscord, userId?: string) {
  return fake.calls.filter(
    (c) => c.method === "GET" && c.path.startsWith("/guilds/") && (!userId || c.path.endsWith(`/members/${userId}`)),
  );
}

test("with bots_require_inline_mention another bot's reply ping or role mention does not wake the bot; <@id> does", async () => {
  const d = await startDiscordGateway({
    config: "discord:\n  auto_thread: false\n  bots_require_inline_mention: true\n",
    env: { DISCORD_ALLOW_BOTS: "mentions" },
    provider: { fallback: (req) => ({ text: `heard: ${userTexts(req).at(-1)?.split("\n").at(-1)}` }) },
  });
  try {
    const channel = d.fake.textChannel.id;
    const [said] = d.fake.pastMessages(channel, [{ user: d.fake.bot, content: "an answer from before" }]);
    d.fake.userSays({ channel, user: robot, content: "replying with a ping", replyTo: said });
    d.fake.userSays({ channel, user: robot, content: "all helpers please", mentionRoles: [d.fake.roles.helpers] });
    d.fake.userSays({ channel, user: robot, content: "status report", mention: true });
    await d.fake.waitForBotText(/heard: status report/, channel);
    // Inbound events are handled in order, so the two before were dropped by the time this one was answered.
    assert.equal(modelRequests(d.gw.fake).length, 1);
  } finally {
    await d.close();
  }
});

test("DISCORD_ALLOW_BOTS=mentions admits a bot addressing this one, even where no mention is needed; a reply ping counts", async () => {
  const d = await startDiscordGateway({
    config: (fake) =>
      `discord:\n  auto_thread: false\n  history_backfill: false\n  free_response_channels: "${fake.textChannel.id}"\n`,
    env: { DISCORD_ALLOW_BOTS: "mentions" },
    provider: { fallback: (req) => ({ text: `heard: ${userTexts(req).at(-1)}` }) },
  });
  try {
    const channel = d.fake.textChannel.id;
    const [said] = d.fake.pastMessages(channel, [{ user: d.fake.bot, content: "an answer from before" }]);
    d.fake.userSays({ channel, user: robot, content: "chatting, no mention" });
    d.fake.userSays({ channel, user: robot, content: "replying with a ping", replyTo: said });
    await d.fake.waitForBotText(/heard: replying with a ping/, channel);
    assert.equal(modelRequests(d.gw.fake).length, 1, "a bot that does not address this one is not answered");
  } finally {
    await d.close();
  }
});

test("DISCORD_ALLOWED_ROLES admits a role holder in a server channel; their DM needs dm_role_auth_guild", async () => {
  const d = await startDiscordGateway({
    config: "discord:\n  auto_thread: false\n  history_backfill: false\n",
    env: (fake) => ({ DISCORD_ALLOWED_ROLES: fake.roles.helpers }),
    provider: { fallback: { text: "hello helper" } },
  });
  try {
    const channel = d.fake.textChannel.id;
    d.fake.members.set(helen.id, { user: helen, roles: [d.fake.roles.helpers] });
    d.fake.members.set(gus.id, { user: gus, roles: [d.fake.roles.guests] });
    d.fake.userSays({ channel, user: gus, content: "me too?", mention: true });
    d.fake.userSays({ channel, user: helen, content: "a question", mention: true });
    await d.fake.waitForBotText(/hello helper/, channel);
    d.fake.userSays({ channel: "dm", user: helen, content: "in private" });
    await d.fake.waitForBotText(/pairing code/, d.fake.dmChannel(helen).id);
    assert.equal(modelRequests(d.gw.fake).length, 1, "only helen, in the channel");
    assert.equal(d.fake.botMessages(channel).length, 1, "gus, holding another role, got nothing");
    assert.equal(memberLookups(d.fake).length, 0, "no member lookups without dm_role_auth_guild");
  } finally {
    await d.close();
  }
});

test("with dm_role_auth_guild a DM is answered when the sender holds an allowed role there, checked once per five minutes", async () => {
  const d = await startDiscordGateway({
    config: (fake) => `discord:\n  dm_role_auth_guild: "${fake.guildId}"\n`,
    env: (fake) => ({ DISCORD_ALLOWED_ROLES: `${fake.roles.helpers}` }),
    provider: { fallback: (req) => ({ text: `answer to ${userTexts(req).at(-1)}` }) },
  });
  try {
    const { fake } = d;
    fake.members.set(helen.id, { user: helen, roles: [fake.roles.guests, fake.roles.helpers] });
    fake.members.set(gus.id, { user: gus, roles: [fake.roles.guests] });
    fake.members.set(dave.id, { user: dave, roles: [fake.roles.helpers] });

    fake.userSays({ channel: "dm", user: helen, content: "one" });
    await fake.waitForBotText(/answer to one/, fake.dmChannel(helen).id);
    fake.userSays({ channel: "dm", user: helen, content: "two" });
    await fake.waitForBotText(/answer to two/, fake.dmChannel(helen).id);
    assert.equal(memberLookups(fake, helen.id).length, 1, "the second DM used the cached roles");

    fake.userSays({ channel: "dm", user: gus, content: "without the role" });
    await fake.waitForBotText(/pairing code/, fake.dmChannel(gus).id);
    fake.userSays({ channel: "dm", user: outsider, content: "not in the server" });
    await fake.waitForBotText(/pairing code/, fake.dmChannel(outsider).id);
    assert.equal(memberLookups(fake, outsider.id)[0]?.status, 404);

    fake.failNext({ method: "GET", path: new RegExp(`/members/${dave.id}$`), status: 503 });
    fake.userSays({ channel: "dm", user: dave, content: "during an outage" });
    await fake.waitForBotText(/pairing code/, fake.dmChannel(dave).id);
    assert.equal(d.logs.filter((line) => line.includes(`could not check user ${dave.id}'s roles`)).length, 1);
    fake.userSays({ channel: "dm", user: dave, content: "after it" });
    await fake.waitForBotText(/answer to after it/, fake.dmChannel(dave).id);
    assert.equal(memberLookups(fake, dave.id).length, 2, "a failed lookup is not remembered");
    assert.equal(modelRequests(d.gw.fake).length, 3, "helen twice and dave once reached the model");
  } finally {
    await d.close();
  }
});

test("role lookups are remembered for five minutes, then asked again; a 404 is remembered as not a member", async () => {
  const fake = await startFakeDiscord();
  try {
    fake.members.set(helen.id, { user: helen, roles: [fake.roles.helpers] });
    let now = 1_000_000;
    const reads = new DiscordReads(restOptions({ apiRoot: fake.apiRoot }), fake.token);
    const settings = {
      allowBots: "none" as const,
      allowedRoles: new Set([fake.roles.helpers]),
      dmRoleGuild: fake.guildId,
    };
    const access = new DiscordAccess(
      settings,
      reads.memberRoles,
      () => undefined,
      () => now,
    );
    const dm = (user: { id: string }): InboundMessage => ({
      platform: "discord",
      chatId: snowflake(),
      chatType: "dm",
      userId: user.id,
      text: "hi",
      messageId: snowflake(),
    });
    assert.match((await access.vouchFor(dm(helen))) ?? "", /DISCORD_ALLOWED_ROLES on server/);
    assert.equal(await access.vouchFor(dm(outsider)), undefined);
    now += 4 * 60_000;
    fake.members.delete(helen.id);
    fake.members.set(outsider.id, { user: outsider, roles: [fake.roles.helpers] });
    assert.ok(await access.vouchFor(dm(helen)), "still remembered");
    assert.equal(await access.vouchFor(dm(outsider)), undefined, "still remembered as not a member");
    assert.equal(memberLookups(fake).length, 2);
    now += 60_001;
    assert.equal(await access.vouchFor(dm(helen)), undefined, "helen left the server");
    assert.ok(await access.vouchFor(dm(outsider)), "the outsider joined with the role");
    assert.equal(memberLookups(fake).length, 4);
  } finally {
    await fake.close();
  }
});

test("DISCORD_ALLOW_BOTS and DISCORD_ALLOWED_ROLES refuse values they cannot mean, saying what to set", () => {
  assert.throws(
    () => accessFrom({ DISCORD_ALLOW_BOTS: "true" }, DEFAULT_CONFIG),
    /DISCORD_ALLOW_BOTS is "true"; set it to none .*, mentions .* or all/,
  );
  assert.throws(
    () => accessFrom({ DISCORD_ALLOWED_ROLES: "Admin, 123" }, DEFAULT_CONFIG),
    /role ids \(digits\), not "Admin"/,
  );
  const access = accessFrom({ DISCORD_ALLOW_BOTS: " All ", DISCORD_ALLOWED_ROLES: "1, 2" }, DEFAULT_CONFIG);
  assert.equal(access.allowBots, "all");
  assert.deepEqual([...access.allowedRoles], ["1", "2"]);
});

test("what Discord said about a sender travels with the stored message, so a message recovered after a restart is still vouched for", async () => {
  const lookups: string[] = [];
  const access = new DiscordAccess(
    { allowBots: "mentions", allowedRoles: new Set(["111"]), dmRoleGuild: "" },
    async (_guild, user) => {
      lookups.push(user);
      return null;
    },
    () => undefined,
  );
  const inChannel = (senderFacts?: InboundMessage["senderFacts"]): InboundMessage => ({
    platform: "discord",
    chatId: snowflake(),
    chatType: "group",
    userId: snowflake(),
    text: "hello",
    messageId: snowflake(),
    ...(senderFacts ? { senderFacts } : {}),
  });
  // As the gateway's store keeps it: JSON, read back by another process after a restart.
  const recovered = (message: InboundMessage) => JSON.parse(JSON.stringify(message)) as InboundMessage;
  const roleHolder = recovered(inChannel({ bot: false, roles: ["222", "111"] }));
  assert.equal(await access.vouchFor(roleHolder), "a role in DISCORD_ALLOWED_ROLES");
  const bot = recovered(inChannel({ bot: true, roles: [] }));
  assert.equal(await access.vouchFor(bot), "DISCORD_ALLOW_BOTS=mentions");
  assert.equal(await access.vouchFor(recovered(inChannel({ bot: false, roles: ["222"] }))), undefined);
  assert.equal(await access.vouchFor(inChannel()), undefined, "nothing said, nothing vouched");
  assert.deepEqual(lookups, [], "no lookups outside DMs");
});
