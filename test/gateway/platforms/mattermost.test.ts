import assert from "node:assert/strict";
import { test } from "node:test";
import { MattermostAdapter } from "../../../src/gateway/adapters/mattermost/adapter.js";
import { STREAM_CURSOR } from "../../../src/gateway/reply-stream.js";
import { dm, finished, mention, startMattermostGateway, until } from "../../fakes/mattermost/gateway.js";
import { routeOf } from "../../fakes/mattermost/server.js";
import { modelRequests, userTexts } from "../harness.js";

const STREAMING = "display:\n  platforms:\n    mattermost:\n      streaming: true\n      edit_interval: 0.2\n";
const echo = { fallback: (req: Parameters<typeof userTexts>[0]) => ({ text: `heard ${userTexts(req).join(" + ")}` }) };

function systemPrompt(request: Parameters<typeof userTexts>[0]): string {
  return String((request.body.messages as Array<{ content: string }>)[0]!.content);
}

test("a DM is answered in the DM, with typing shown, and the bot's own post is not read back as a message", async () => {
  const { gw, mm, world, close } = await startMattermostGateway({ provider: echo });
  try {
    dm(mm, world, "hello there");
    await mm.waitFor(() => finished(mm, world.dm).length === 1, "the answer");
    const [answer] = finished(mm, world.dm);
    assert.equal(answer!.message, "heard hello there");
    assert.equal(answer!.root_id, "", "a DM answer stays in the main conversation");
    const typing = mm.calls.find((c) => routeOf(c) === "POST /users/:id/typing");
    assert.equal(typing?.body.channel_id, world.dm.id, "typing was shown in the DM");
    // The server broadcasts the bot's own post back over the socket; it must not start a turn.
    assert.ok(
      mm.sentEvents.some((e) => e.event === "posted" && String((e.data as { post: string }).post).includes(answer!.id)),
    );
    dm(mm, world, "and again");
    await mm.waitFor(() => finished(mm, world.dm).length === 2, "the second answer");
    assert.equal(modelRequests(gw.fake).length, 2);
    assert.deepEqual(userTexts(modelRequests(gw.fake)[1]!), ["hello there", "and again"]);
  } finally {
    await close();
  }
});

test("a channel mention is answered in a thread under it, and the thread continues without a mention", async () => {
  const { gw, mm, world, close } = await startMattermostGateway({ provider: echo });
  const answers = () => finished(mm, world.town);
  try {
    const root = mention(mm, world.town, world.alice, "what is up?");
    await mm.waitFor(() => answers().length === 1, "the first answer");
    assert.equal(answers()[0]!.root_id, root.id, "the answer went into the thread of the mention");
    assert.equal(answers()[0]!.message, "heard [alice] what is up?", "the mention was taken out");

    mm.userPost(world.alice, world.town, "and then?", { root_id: root.id });
    await mm.waitFor(() => answers().length === 2, "the answer in the thread");
    assert.equal(answers()[1]!.root_id, root.id);
    assert.equal(answers()[1]!.message, "heard [alice] what is up? + [alice] and then?", "one conversation");

    const system = systemPrompt(modelRequests(gw.fake)[0]!);
    assert.match(system, /- Where: Mattermost, the channel "Town Square", in a thread of it\./);
  } finally {
    await close();
  }
});

test("unmentioned channel posts, the bot's own, other bots' and system posts are ignored", async () => {
  const { gw, mm, world, close } = await startMattermostGateway({ provider: echo });
  try {
    mm.userPost(world.alice, world.town, "chatter nobody asked the bot about");
    mm.userPost(world.alice, world.town, "mail hermes@example.com about it");
    mm.userPost(world.otherBot, world.town, `@${mm.bot.username} from a bot`, { props: { from_bot: "true" } });
    mm.userPost(world.alice, world.town, "alice joined the channel.", { type: "system_join_channel" });
    // Posted with a personal access token, the bot's own posts carry no from_bot mark.
    mm.userPost(mm.bot, world.town, `@${mm.bot.username} talking to myself`);
    mm.userPost(world.alice, world.town, `@${mm.bot.username} via a webhook`, { props: { from_webhook: "true" } });
    dm(mm, world, "a real one");
    await mm.waitFor(() => finished(mm, world.dm).length === 1, "the DM answer");
    assert.equal(modelRequests(gw.fake).length, 1);
    assert.deepEqual(userTexts(modelRequests(gw.fake)[0]!), ["a real one"]);
    const toTown = mm.calls.filter((c) => routeOf(c) === "POST /posts" && c.body.channel_id === world.town.id);
    assert.equal(toTown.length, 0, "nothing was answered in the channel");
  } finally {
    await close();
  }
});

test("a free-response channel is answered without a mention", async () => {
  const { mm, world, close } = await startMattermostGateway({
    provider: echo,
    rules: (w) => ({ freeResponseChannels: new Set([w.lounge.id]) }),
  });
  try {
    const post = mm.userPost(world.alice, world.lounge, "anyone around?");
    await mm.waitFor(() => finished(mm, world.lounge).length === 1, "the answer");
    assert.equal(finished(mm, world.lounge)[0]!.root_id, post.id);
  } finally {
    await close();
  }
});

test("allowed_channels keeps the bot out of other channels even when mentioned; DMs still work", async () => {
  const { gw, mm, world, close } = await startMattermostGateway({
    provider: echo,
    rules: (w) => ({ allowedChannels: new Set([w.lounge.id]) }),
  });
  try {
    mention(mm, world.town, world.alice, "not here");
    mention(mm, world.lounge, world.alice, "here");
    await mm.waitFor(() => finished(mm, world.lounge).length === 1, "the answer in the allowed channel");
    dm(mm, world, "and in private");
    await mm.waitFor(() => finished(mm, world.dm).length === 1, "the DM answer");
    assert.equal(finished(mm, world.town).length, 0);
    assert.equal(modelRequests(gw.fake).length, 2);
  } finally {
    await close();
  }
});

test("a streamed reply grows by post edits and ends as the final text", async () => {
  const text = "Here is the **plan**:\n\n1. wake up\n2. write code\n3. ship it";
  const { mm, world, close } = await startMattermostGateway({
    config: STREAMING,
    provider: { script: [{ text, chunkDelayMs: 80 }] },
  });
  try {
    dm(mm, world, "plan my day");
    await mm.waitFor(() => finished(mm, world.dm).some((p) => p.message === text), "the final text");
    const posts = mm.state.visible(world.dm.id);
    assert.equal(posts.length, 1, "one post, edited in place");
    assert.ok(posts[0]!.edits.length >= 2, `edited ${posts[0]!.edits.length} times`);
    assert.ok(
      posts[0]!.edits.slice(0, -1).some((e) => e.endsWith(STREAM_CURSOR)),
      "previews carried the cursor",
    );
    assert.equal(posts[0]!.edits.at(-1), text, "markdown passes through unchanged");
  } finally {
    await close();
  }
});

test("a long reply is split into several posts within the limit", async () => {
  const paragraph = "word ".repeat(300).trim();
  const text = Array.from({ length: 8 }, (_, i) => `Part ${i + 1}: ${paragraph}`).join("\n\n");
  const { mm, world, close, adapters } = await startMattermostGateway({ provider: { script: [{ text }] } });
  try {
    dm(mm, world, "write a lot");
    await mm.waitFor(() => finished(mm, world.dm).some((p) => p.message.includes("Part 8:")), "the last part");
    const parts = finished(mm, world.dm);
    assert.ok(parts.length >= 3, `split into ${parts.length} posts`);
    assert.equal(adapters[0]!.maxMessageLength, 4_000);
    for (const part of parts) assert.ok(part.message.length <= 4_000);
    assert.equal(
      parts
        .map((p) => p.message)
        .join("\n\n")
        .replaceAll(/\s+/g, " "),
      text.replaceAll(/\s+/g, " "),
    );
  } finally {
    await close();
  }
});

test("a 429 is retried once the rate limit resets, as the server's headers say", async () => {
  const { mm, world, close } = await startMattermostGateway({ provider: { script: [{ text: "after the wait" }] } });
  try {
    mm.state.fail("POST /posts", { rateLimitSeconds: 2 });
    dm(mm, world, "hello");
    const limited = await mm.waitForCall("POST /posts", (c) => c.status === 429);
    const sent = await mm.waitForCall("POST /posts", (c) => c.status === 201);
    assert.equal(sent.body.message, "after the wait");
    const waited = sent.at - limited.at;
    assert.ok(waited >= 1_900, `the retry came ${waited} ms after the 429`);
    assert.equal(mm.calls.filter((c) => routeOf(c) === "POST /posts").length, 2, "one retry, by the core");
  } finally {
    await close();
  }
});

test("a dropped WebSocket is reconnected and posts after it are answered", async () => {
  const { gw, mm, world, close } = await startMattermostGateway({ provider: echo, runner: { reconnectBaseMs: 5 } });
  try {
    dm(mm, world, "one");
    await mm.waitFor(() => finished(mm, world.dm).length === 1, "the first answer");
    const before = mm.connections;
    mm.dropSockets();
    await mm.waitFor(() => mm.connections > before && mm.connected, "the reconnect");
    await until(() => gw.logs.some((l) => l.startsWith("mattermost: reconnected")), "the reconnect log");
    assert.ok(
      gw.logs.some((l) => /^mattermost: listener lost \(the Mattermost WebSocket closed/.test(l)),
      gw.logs.join("\n"),
    );
    dm(mm, world, "two");
    await mm.waitFor(() => finished(mm, world.dm).length === 2, "the answer after the reconnect");
    assert.equal(finished(mm, world.dm)[1]!.message, "heard one + two");
  } finally {
    await close();
  }
});

test("mattermost.channel_prompts reach the model in that channel only", async () => {
  const { gw, mm, world, close } = await startMattermostGateway({
    provider: echo,
    worldConfig: (w) => `mattermost:\n  channel_prompts:\n    "${w.town.id}": Answer like a ship's captain.\n`,
  });
  try {
    mention(mm, world.town, world.alice, "status?");
    await mm.waitFor(() => finished(mm, world.town).length === 1, "the channel answer");
    dm(mm, world, "status in private?");
    await mm.waitFor(() => finished(mm, world.dm).length === 1, "the DM answer");
    const [inChannel, inDm] = modelRequests(gw.fake);
    assert.match(systemPrompt(inChannel!), /Answer like a ship's captain\./);
    assert.doesNotMatch(systemPrompt(inDm!), /ship's captain/);
  } finally {
    await close();
  }
});

test("a DM from someone not on MATTERMOST_ALLOWED_USERS gets a pairing code and never reaches the model", async () => {
  const { gw, mm, world, close } = await startMattermostGateway({ provider: { fallback: { text: "secret" } } });
  try {
    const theirs = mm.state.addChannel("D", `${mm.bot.id}__${world.stranger.id}`, "");
    mm.userPost(world.stranger, theirs, "let me in");
    mention(mm, world.town, world.stranger, "me too");
    await mm.waitFor(() => mm.state.visible(theirs.id).length === 1, "the pairing reply");
    assert.match(mm.state.visible(theirs.id)[0]!.message, /[A-HJ-NP-Z2-9]{8}/);
    assert.doesNotMatch(mm.state.visible(theirs.id)[0]!.message, /secret/);
    assert.equal(modelRequests(gw.fake).length, 0);
    assert.equal(finished(mm, world.town).length, 0, "a stranger's channel mention is not answered");
  } finally {
    await close();
  }
});

test("a stranger's file is never fetched: the DM gets its pairing code and nothing reaches the model", async () => {
  const { gw, mm, world, close } = await startMattermostGateway({ provider: { fallback: { text: "secret" } } });
  try {
    const theirs = mm.state.addChannel("D", `${mm.bot.id}__${world.stranger.id}`, "");
    const file = mm.state.storeFile("payload.sh", "text/plain", Buffer.from("rm -rf /"), theirs.id);
    mm.userPost(world.stranger, theirs, "run this", { file_ids: [file.id] });
    await mm.waitFor(() => mm.state.visible(theirs.id).length === 1, "the pairing reply");
    assert.match(mm.state.visible(theirs.id)[0]!.message, /[A-HJ-NP-Z2-9]{8}/);
    assert.equal(mm.calls.filter((c) => routeOf(c).startsWith("GET /files/")).length, 0);
    assert.equal(modelRequests(gw.fake).length, 0);
  } finally {
    await close();
  }
});

test("a token the server rejects at start-up is logged with what to do", async () => {
  const { gw, mm, close } = await startMattermostGateway({
    provider: echo,
    adapter: { token: "revoked-token" },
    waitForConnection: false,
  });
  try {
    await until(() => gw.logs.some((l) => l.startsWith("mattermost: listener lost")), "the start-up failure");
    const line = gw.logs.find((l) => l.startsWith("mattermost: listener lost"))!;
    assert.match(line, /rejected MATTERMOST_TOKEN \(HTTP 401\): create a new bot token/);
    assert.doesNotMatch(line, /revoked-token/, "the token is never logged");
    assert.equal(mm.connections, 0);
  } finally {
    await close();
  }
});

test("connect with a revoked token rejects with an actionable message and never opens the socket", async () => {
  const { startFakeMattermost } = await import("../../fakes/mattermost/server.js");
  const mm = await startFakeMattermost();
  const adapter = new MattermostAdapter({
    serverUrl: mm.url,
    token: "revoked-token",
    home: "/nonexistent",
    log: () => undefined,
    rules: { requireMention: true, freeResponseChannels: new Set(), allowedChannels: new Set(), replyInThreads: true },
  });
  try {
    await assert.rejects(
      adapter.connect({ inbound: async () => true, listenerLost: () => undefined }),
      /rejected MATTERMOST_TOKEN \(HTTP 401\): create a new bot token/,
    );
    assert.equal(mm.connections + mm.refusedChallenges, 0, "no WebSocket was opened");
    assert.ok(!JSON.stringify(mm.calls).includes("revoked-token"));
  } finally {
    await adapter.disconnect();
    await mm.close();
  }
});
