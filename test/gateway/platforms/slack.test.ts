import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  ALICE,
  CHANNEL,
  channelMessage,
  DM,
  dm,
  finished,
  mention,
  press,
  startSlackGateway,
} from "../../fakes/slack/gateway.js";
import { FAKE_BOT } from "../../fakes/slack/server.js";
import { lastToolResults } from "../../helpers/agent-harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests, userTexts } from "../harness.js";

const STREAMING = "display:\n  platforms:\n    slack:\n      streaming: true\n      edit_interval: 0.2\n";

test("a DM turn with a tool call streams by chat.update and ends as the full reply in mrkdwn", async () => {
  const { gw, slack, close } = await startSlackGateway({
    config: STREAMING,
    provider: {
      script: [
        { toolCalls: [{ name: "todo", arguments: { todos: [] } }] },
        { text: "Done: the **list** is empty & ready for [more](https://example.com/a?b=1).", chunkDelayMs: 80 },
      ],
    },
  });
  try {
    const ts = dm(slack, "plan my day");
    const expected = "Done: the *list* is empty &amp; ready for <https://example.com/a?b=1|more>.";
    await slack.waitFor(() => slack.state.visible(DM).some((m) => m.text === expected), "the final reply in the DM");
    assert.deepEqual(userTexts(modelRequests(gw.fake)[0]!), ["plan my day"]);
    assert.equal(modelRequests(gw.fake).length, 2, "the tool result went back to the model");
    const reply = slack.state.visible(DM).find((m) => m.text === expected)!;
    assert.ok(reply.edits.length >= 1, "the reply was streamed by edits");
    assert.ok(
      slack.calls.some((c) => c.method === "chat.update" && c.params.ts === reply.ts),
      "chat.update was called on the streamed message",
    );
    assert.equal(reply.threadTs, undefined, "a DM reply stays in the main conversation");
    assert.ok(slack.acked(slack.sentFrames.find((f) => f.type === "events_api")?.envelope_id as string));
    assert.equal(
      slack.calls.filter((c) => c.method === "chat.postMessage" && String(c.params.text).startsWith("Done")).length,
      1,
      "one message for the reply",
    );
    assert.ok(ts);
  } finally {
    await close();
  }
});

test("an approval is answered by a Block Kit button and the prompt loses its buttons", async () => {
  const dir = join(tempDir("hermes-slack-victim-"), "victim");
  mkdirSync(dir, { recursive: true });
  const { gw, slack, close } = await startSlackGateway({
    config: 'sandbox:\n  mode: "off"\n',
    provider: {
      script: [{ toolCalls: [{ name: "terminal", arguments: { command: `rm -r ${dir}` } }] }],
      fallback: (req) => ({ text: `result: ${lastToolResults(req)[0] ?? ""}` }),
    },
  });
  try {
    dm(slack, "clean up");
    const promptCall = await slack.waitForCall("chat.postMessage", (c) => Array.isArray(c.params.blocks));
    const blocks = promptCall.params.blocks as Array<{ type: string; elements?: Array<{ action_id: string }> }>;
    const actions = blocks.find((b) => b.type === "actions")!;
    assert.deepEqual(
      actions.elements?.map((e) => e.action_id),
      ["ap:once", "ap:session", "ap:always", "ap:deny"],
    );
    assert.match(JSON.stringify(blocks), new RegExp(`rm -r ${dir}`));
    const promptTs = promptCall.response.ts as string;
    press(slack, { channel: DM, ts: promptTs, blocks }, "ap:once", "/approve");
    await slack.waitFor(() => finished(slack, DM).some((m) => m.text.startsWith("result:")), "the tool result");
    assert.equal(existsSync(dir), false, "the approved command ran");
    const prompt = slack.state.visible(DM).find((m) => m.ts === promptTs)!;
    assert.ok(!JSON.stringify(prompt.blocks).includes('"actions"'), "no buttons left on the prompt");
    assert.match(prompt.text, /Allow once/);
    assert.match(prompt.text, new RegExp(`<@${ALICE}>`));
    assert.equal(modelRequests(gw.fake).length, 2);
  } finally {
    await close();
  }
});

test("a mention in a channel is answered in its thread, and the thread continues the session", async () => {
  const { gw, slack, close } = await startSlackGateway({
    provider: { fallback: (req) => ({ text: `heard ${userTexts(req).join(" + ")}` }) },
  });
  const answers = () => finished(slack, CHANNEL);
  try {
    const root = mention(slack, "what is up?");
    await slack.waitFor(() => answers().length === 1, "the first answer");
    const first = answers()[0]!;
    assert.equal(first.threadTs, root, "the answer went into the thread of the mention");
    // A thread is one conversation for all who join it, so each message says who wrote it.
    assert.equal(first.text, "heard [member-u0alice01] what is up?", "the mention was stripped");

    channelMessage(slack, "and then?", root);
    await slack.waitFor(() => answers().length === 2, "the second answer");
    const second = answers()[1]!;
    assert.equal(second.threadTs, root);
    assert.equal(
      second.text,
      "heard [member-u0alice01] what is up? + [member-u0alice01] and then?",
      "the thread is one conversation",
    );

    channelMessage(slack, "chatter nobody asked the app about");
    mention(slack, "new topic");
    await slack.waitFor(() => answers().length === 3, "the third answer");
    assert.equal(answers()[2]!.text, "heard [member-u0alice01] new topic", "a new mention starts a new thread");
    const system = String((modelRequests(gw.fake)[0]!.body.messages as Array<{ content: string }>)[0]!.content);
    assert.match(
      system,
      new RegExp(`- Where: Slack, the channel "chan-${CHANNEL.toLowerCase()}", in a thread of it\\.`),
      "the channel's name",
    );
    assert.equal(slack.calls.filter((c) => c.method === "conversations.info").length, 1, "looked up once");
    assert.equal(modelRequests(gw.fake).length, 3, "the app_mention and message twins ran once each");
  } finally {
    await close();
  }
});

test("bot messages, edits and the app's own messages are ignored", async () => {
  const { gw, slack, close } = await startSlackGateway({ provider: { fallback: { text: "hi" } } });
  try {
    dm(slack, "from a bot", { bot_id: "B0OTHER01", subtype: "bot_message" });
    dm(slack, "edited", { subtype: "message_changed" });
    dm(slack, "deleted", { subtype: "message_deleted" });
    dm(slack, "me", {}, FAKE_BOT.userId);
    dm(slack, "a real one");
    await slack.waitFor(() => slack.state.visible(DM).some((m) => m.text === "hi"), "the answer");
    assert.equal(modelRequests(gw.fake).length, 1);
    assert.deepEqual(userTexts(modelRequests(gw.fake)[0]!), ["a real one"]);
  } finally {
    await close();
  }
});

test("a long reply is split into several Slack messages under the limit", async () => {
  const paragraph = "word ".repeat(300).trim();
  const text = Array.from({ length: 8 }, (_, i) => `Part ${i + 1}: ${paragraph}`).join("\n\n");
  const { slack, close, adapters } = await startSlackGateway({ provider: { script: [{ text }] } });
  try {
    dm(slack, "write a lot");
    await slack.waitFor(() => finished(slack, DM).some((m) => m.text.includes("Part 8:")), "the last part");
    const parts = finished(slack, DM);
    assert.ok(parts.length >= 3, `split into ${parts.length} messages`);
    for (const part of parts) assert.ok(part.text.length <= adapters[0]!.maxMessageLength);
    assert.equal(
      parts
        .map((p) => p.text)
        .join("\n\n")
        .replaceAll(/\s+/g, " "),
      text.replaceAll(/\s+/g, " "),
    );
  } finally {
    await close();
  }
});

test("a DM from a stranger gets a pairing code and never reaches the model", async () => {
  const { gw, slack, close } = await startSlackGateway({ provider: { fallback: { text: "secret" } } });
  try {
    dm(slack, "let me in", {}, "U0STRANGE1");
    await slack.waitFor(() => slack.state.visible(DM).length === 1, "the pairing reply");
    const reply = slack.state.visible(DM)[0]!;
    assert.match(reply.text, /[A-HJ-NP-Z2-9]{8}/);
    assert.doesNotMatch(reply.text, /secret/);
    assert.equal(modelRequests(gw.fake).length, 0);
  } finally {
    await close();
  }
});

test("a channel name Slack refuses (a scope the app lacks) is not asked for again", async () => {
  const { gw, slack, close } = await startSlackGateway({ provider: { fallback: { text: "ok" } } });
  const answers = () => finished(slack, CHANNEL);
  try {
    slack.state.fail("conversations.info", { error: "missing_scope" }, 5);
    mention(slack, "first");
    await slack.waitFor(() => answers().length === 1, "the first answer");
    mention(slack, "second");
    await slack.waitFor(() => answers().length === 2, "the second answer");
    assert.equal(slack.calls.filter((c) => c.method === "conversations.info").length, 1);
    const system = String((modelRequests(gw.fake)[0]!.body.messages as Array<{ content: string }>)[0]!.content);
    assert.match(system, new RegExp(`- Where: Slack, the channel "${CHANNEL}", in a thread of it\\.`));
  } finally {
    await close();
  }
});
