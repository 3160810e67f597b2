import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { GatewayIntentBits } from "discord.js";
import { startDiscordGateway } from "../../fakes/discord/harness.js";
import { lastToolResults } from "../../helpers/agent-harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests } from "../harness.js";

const NO_SANDBOX = 'sandbox:\n  mode: "off"\n';
const echoResult = {
  fallback: (req: Parameters<typeof lastToolResults>[0]) => ({ text: `result: ${lastToolResults(req)[0] ?? ""}` }),
};

test("a DM turn runs a tool and streams its reply into one message by edits", async () => {
  const text = "The tool said hello, and this reply arrives in small pieces so the preview grows in place.";
  const d = await startDiscordGateway({
    config: `${NO_SANDBOX}display:\n  platforms:\n    discord:\n      streaming: true\n      edit_interval: 0.2\n`,
    provider: {
      script: [
        { toolCalls: [{ name: "terminal", arguments: { command: "echo hello-from-tool" } }] },
        { text, chunkDelayMs: 20 },
      ],
    },
  });
  try {
    const identify = d.fake.gateway.identifies[0] as { intents: number };
    const wanted =
      GatewayIntentBits.Guilds |
      GatewayIntentBits.GuildMessages |
      GatewayIntentBits.DirectMessages |
      GatewayIntentBits.MessageContent;
    assert.equal(identify.intents, wanted, "only the intents the adapter needs");
    assert.ok(!d.fake.gateway.connectUrls[0]?.includes("compress"), "no compression was asked for");

    const asked = d.fake.userSays({ channel: "dm", user: d.alice, content: "say hello with a tool" });
    const dm = d.fake.dmChannel(d.alice);
    const reply = await d.fake.waitForBotText(/grows in place\.$/, dm.id);
    assert.equal(reply.content, text);
    assert.ok(reply.edits.length >= 1, "the preview was edited into the reply");
    const requests = modelRequests(d.gw.fake);
    assert.equal(requests.length, 2);
    assert.match(lastToolResults(requests[1] as (typeof requests)[number])[0] ?? "", /hello-from-tool/);
    const posts = d.fake.calls.filter((c) => c.method === "POST" && c.path === `/channels/${dm.id}/messages`);
    const replyPosts = posts.filter((c) => !String(c.body.content).startsWith("⚙"));
    assert.equal(replyPosts.length, 1, "the reply is one message, grown by edits");
    assert.match(replyPosts[0]?.body.content, / ▉$/, "it started as a preview");
    assert.ok(
      d.fake.calls.some((c) => c.path === `/channels/${dm.id}/typing`),
      "typing was shown",
    );
    // 👀 while working, then ✅ with the 👀 taken off.
    const userMessage = d.fake.messages.get(asked);
    await d.fake.waitFor(
      () => userMessage?.reactions.has("✅") && !userMessage.reactions.has("👀"),
      10_000,
      "✅ in place of 👀",
    );
    assert.ok(
      d.fake.calls.some((c) => c.method === "PUT" && c.path.endsWith(`/reactions/${encodeURIComponent("👀")}/@me`)),
    );
  } finally {
    await d.close();
  }
});

test("an approval is answered with a button: the press is acknowledged, the buttons go, the command runs", async () => {
  const dir = join(tempDir("hermes-discord-victim-"), "victim");
  mkdirSync(join(dir, "inner"), { recursive: true });
  const d = await startDiscordGateway({
    config: NO_SANDBOX,
    provider: {
      script: [{ toolCalls: [{ name: "terminal", arguments: { command: `rm -r ${dir}` } }] }],
      ...echoResult,
    },
  });
  try {
    d.fake.userSays({ channel: "dm", user: d.alice, content: "clean up" });
    const dm = d.fake.dmChannel(d.alice);
    const prompt = await d.fake.waitFor(
      () => d.fake.botMessages(dm.id).find((m) => m.components.length > 0),
      20_000,
      "the approval prompt",
    );
    assert.match(prompt.content, /needs your approval/);
    const ids = prompt.components.flatMap((row) => row.components.map((b: { custom_id: string }) => b.custom_id));
    const labels = prompt.components.flatMap((row) => row.components.map((b: { label: string }) => b.label));
    assert.deepEqual(labels, ["Allow once", "Allow for this session", "Always allow", "Deny"]);
    assert.equal(ids.length, 4);

    const interaction = d.fake.press(prompt.id, ids[0] as string, d.alice);
    const callback = await d.fake.waitForCall((c) => c.path.startsWith(`/interactions/${interaction}/`));
    assert.equal(callback.body.type, 7, "UPDATE_MESSAGE");
    assert.deepEqual(callback.body.data.components, [], "the buttons are removed");
    assert.equal(callback.headers.authorization, undefined, "interaction callbacks carry no bot token");
    assert.deepEqual(prompt.components, []);
    assert.match(prompt.content, /Allow once \(alice\)/);
    await d.fake.waitForBotText(/^result:/, dm.id);
    assert.equal(existsSync(dir), false, "the approved command ran");
  } finally {
    await d.close();
  }
});

test("a thread conversation is answered in the thread, without a mention", async () => {
  const d = await startDiscordGateway({ provider: { script: [{ text: "answer in the thread" }] } });
  try {
    const asked = d.fake.userSays({ channel: d.fake.thread.id, user: d.alice, content: "what now?" });
    const reply = await d.fake.waitForBotText(/answer in the thread/);
    assert.equal(reply.channelId, d.fake.thread.id);
    assert.equal(reply.replyTo, asked, "the reply references the question");
    const [request] = modelRequests(d.gw.fake);
    assert.ok(JSON.stringify(request?.body.messages).includes("what now?"));
    const routes = await d.gw.store.sessionRoute(
      `agent:main:discord:thread:${d.fake.textChannel.id}:${d.fake.thread.id}`,
    );
    assert.ok(routes, "the thread is a session of its own, keyed by channel and thread");
  } finally {
    await d.close();
  }
});
