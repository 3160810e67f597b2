import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ALICE, CHANNEL, DM, dm, finished, mention, press, startSlackGateway } from "../../fakes/slack/gateway.js";
import { lastToolResults } from "../../helpers/agent-harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests } from "../harness.js";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64",
);

function lastUserContent(body: { messages: Array<{ role: string; content: unknown }> }): unknown {
  return body.messages.filter((m) => m.role === "user").at(-1)?.content;
}

test("an image sent in a DM is downloaded with the bot token and reaches the model as an image part", async () => {
  const { gw, slack, close } = await startSlackGateway({
    config: "agent:\n  image_input_mode: native\n",
    provider: { fallback: { text: "nice picture" } },
  });
  try {
    const file = slack.state.addUserFile("cat photo.png", "image/png", PNG);
    dm(slack, "look at this", { subtype: "file_share", files: [file] });
    await slack.waitFor(() => slack.state.visible(DM).some((m) => m.text === "nice picture"), "the answer");
    const content = lastUserContent(modelRequests(gw.fake)[0]!.body) as Array<Record<string, unknown>>;
    assert.ok(Array.isArray(content), "the message became content parts");
    assert.equal(content[0]?.type, "text");
    assert.match(String(content[0]?.text), /look at this/);
    const image = content.find((part) => part.type === "image_url") as { image_url: { url: string } } | undefined;
    assert.equal(image?.image_url.url, `data:image/png;base64,${PNG.toString("base64")}`);
    const cache = join(gw.home, "cache", "slack");
    const saved = readdirSync(cache).find((name) => name.endsWith("cat_photo.png"));
    assert.ok(saved, "saved under the platform's cache directory with a safe name");
    assert.deepEqual(readFileSync(join(cache, saved)), PNG);
  } finally {
    await close();
  }
});

test("a file whose URL is not on Slack is never fetched with the token; the model is told it is missing", async () => {
  const { gw, slack, close } = await startSlackGateway({ provider: { fallback: { text: "ok" } } });
  try {
    const file = {
      id: "F0EVIL0001",
      name: "payload.bin",
      mimetype: "application/octet-stream",
      size: 10,
      url_private_download: "http://127.0.0.2:9/steal-token",
    };
    dm(slack, "open this", { subtype: "file_share", files: [file] });
    await slack.waitFor(() => slack.state.visible(DM).some((m) => m.text === "ok"), "the answer");
    const content = String(lastUserContent(modelRequests(gw.fake)[0]!.body));
    assert.match(content, /open this/);
    assert.match(content, /could not be downloaded: payload\.bin: its download URL is not on Slack/);
  } finally {
    await close();
  }
});

test("a reply naming MEDIA:/path uploads the file with the three-step upload into the thread", async () => {
  const dir = tempDir("hermes-slack-out-");
  const report = join(dir, "report.txt");
  writeFileSync(report, "quarterly numbers\n");
  const { slack, close } = await startSlackGateway({
    provider: { script: [{ text: `Here is the report.\nMEDIA:${report}` }] },
  });
  try {
    const root = mention(slack, "send me the report");
    const done = await slack.waitForCall("files.completeUploadExternal");
    assert.equal(done.response.ok, true);
    assert.equal(done.params.channel_id, CHANNEL);
    assert.equal(done.params.thread_ts, root, "the file went into the conversation's thread");
    const asked = slack.calls.find((c) => c.method === "files.getUploadURLExternal")!;
    assert.equal(asked.params.filename, "report.txt");
    assert.equal(Number(asked.params.length), Buffer.byteLength("quarterly numbers\n"));
    const stored = [...slack.state.files.values()].find((f) => f.name === "report.txt")!;
    assert.equal(stored.data.toString(), "quarterly numbers\n");
    assert.deepEqual(stored.sharedTo, { channel: CHANNEL, threadTs: root });
    await slack.waitFor(
      () => slack.state.visible(CHANNEL).some((m) => m.text === "Here is the report."),
      "the text part of the reply",
    );
  } finally {
    await close();
  }
});

test("a clarify question shows its choices as buttons and a press answers it with the choice's text", async () => {
  const { gw, slack, close } = await startSlackGateway({
    provider: {
      script: [
        { toolCalls: [{ name: "clarify", arguments: { question: "Which colour?", choices: ["red", "blue"] } }] },
      ],
      fallback: (req) => ({ text: `result: ${lastToolResults(req)[0] ?? ""}` }),
    },
  });
  try {
    dm(slack, "paint it");
    const promptCall = await slack.waitForCall("chat.postMessage", (c) => Array.isArray(c.params.blocks));
    const blocks = promptCall.params.blocks as Array<{
      type: string;
      elements?: Array<{ action_id: string; value: string }>;
    }>;
    const buttons = blocks.find((b) => b.type === "actions")!.elements!;
    assert.deepEqual(
      buttons.map((b) => [b.action_id, b.value]),
      [
        ["q:0", "red"],
        ["q:1", "blue"],
      ],
    );
    const promptTs = promptCall.response.ts as string;
    press(slack, { channel: DM, ts: promptTs, blocks }, "q:1", "blue");
    // A second press on the same prompt (a double click) is ignored.
    press(slack, { channel: DM, ts: promptTs, blocks }, "q:0", "red");
    await slack.waitFor(() => finished(slack, DM).some((m) => m.text.startsWith("result:")), "the result");
    assert.match(finished(slack, DM).find((m) => m.text.startsWith("result:"))!.text, /blue/);
    assert.match(slack.state.visible(DM).find((m) => m.ts === promptTs)!.text, new RegExp(`blue.*<@${ALICE}>`));
    assert.equal(modelRequests(gw.fake).length, 2, "the press did not start a run of its own");
  } finally {
    await close();
  }
});

test("a stranger's file is never downloaded: the DM gets its pairing code and nothing reaches the disk", async () => {
  const { gw, slack, close } = await startSlackGateway({ provider: { fallback: { text: "secret" } } });
  try {
    const file = slack.state.addUserFile("payload.png", "image/png", PNG);
    dm(slack, "open this", { subtype: "file_share", files: [file] }, "U0STRANGE1");
    await slack.waitFor(() => slack.state.visible(DM).length === 1, "the pairing reply");
    assert.match(slack.state.visible(DM)[0]!.text, /[A-HJ-NP-Z2-9]{8}/);
    const cache = join(gw.home, "cache", "slack");
    assert.deepEqual(existsSync(cache) ? readdirSync(cache) : [], [], "nothing was saved");
    assert.equal(modelRequests(gw.fake).length, 0);
  } finally {
    await close();
  }
});
