import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createAdapter as createSlackAdapter } from "../../../src/gateway/adapters/slack/platform.js";
import type { InboundMessage } from "../../../src/gateway/types.js";
import { configSchema } from "../../../src/state/config-schema.js";
import type { RecordedRequest } from "../../fake-provider/types.js";
import { startDiscordGateway } from "../../fakes/discord/harness.js";
import { ALICE as MAIL_ALICE, startEmailGateway } from "../../fakes/email/gateway.js";
import { startMailWorld } from "../../fakes/email/mail-world.js";
import { ALICE as SLACK_ALICE, DM as SLACK_DM, until } from "../../fakes/slack/gateway.js";
import { startFakeSlack } from "../../fakes/slack/server.js";
import { startTelegramGateway } from "../../fakes/telegram/gateway.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests } from "../harness.js";

const CAP = 1000;
const CAP_CONFIG = `gateway:\n  max_inbound_media_bytes: ${CAP}\n`;
const SMALL = Buffer.alloc(500, "s");
const BIG = Buffer.alloc(5000, "b");
const NAMED_CAP = /the 1000 bytes limit set by gateway\.max_inbound_media_bytes/;

/** The text of the last user message a model request carried (text parts joined). */
function lastUserText(request: RecordedRequest | undefined): string {
  const messages = (request?.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const content = messages.filter((m) => m.role === "user").at(-1)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Array<{ type: string; text?: string }>)
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("\n");
}

function cached(home: string, platform: string): string[] {
  try {
    return readdirSync(join(home, "cache", platform));
  } catch {
    return [];
  }
}

test("telegram: a file under gateway.max_inbound_media_bytes is downloaded; one over it is refused, declared or not", async () => {
  const tg = await startTelegramGateway({ config: CAP_CONFIG, provider: { fallback: { text: "noted" } } });
  const replies = () => tg.telegram.messages.filter((m) => m.text === "noted").length;
  try {
    tg.telegram.userMessage({ document: { bytes: SMALL, filename: "small.txt", mimeType: "text/plain" } });
    await tg.telegram.waitForMessages(() => replies() === 1);
    const saved = cached(tg.gw.home, "telegram").find((name) => name.endsWith("small.txt"));
    assert.ok(saved, "the small file is in the cache");
    assert.deepEqual(readFileSync(join(tg.gw.home, "cache", "telegram", saved)), SMALL);

    tg.telegram.userMessage({ document: { bytes: BIG, filename: "big.bin" }, caption: "a big one" });
    await tg.telegram.waitForMessages(() => replies() === 2);
    const refused = lastUserText(modelRequests(tg.gw.fake)[1]);
    assert.match(refused, /a big one/);
    assert.match(refused, /big\.bin \(5000 bytes\), which is over the 1000 bytes limit/);
    assert.match(refused, NAMED_CAP);
    assert.equal(tg.telegram.callsOf("getFile").length, 1, "the declared size was enough to refuse it");

    // A file whose declared size is small is still stopped while it streams in.
    tg.telegram.userMessage({ document: { bytes: BIG, filename: "liar.bin", declaredSize: 10 } });
    await tg.telegram.waitForMessages(() => replies() === 3);
    const stopped = lastUserText(modelRequests(tg.gw.fake)[2]);
    assert.match(stopped, /liar\.bin, but it could not be downloaded: it is over/);
    assert.match(stopped, NAMED_CAP);
    assert.deepEqual(
      cached(tg.gw.home, "telegram").filter((name) => !name.endsWith("small.txt")),
      [],
      "nothing of the refused files is left in the cache",
    );
  } finally {
    await tg.close();
  }
});

test("discord: gateway.max_inbound_media_bytes below discord.max_attachment_bytes refuses larger files and names the key", async () => {
  const d = await startDiscordGateway({ config: CAP_CONFIG, provider: { fallback: { text: "noted" } } });
  try {
    const small = d.fake.attachment("small.txt", SMALL, "text/plain");
    const big = d.fake.attachment("big.txt", BIG, "text/plain");
    const liar = { ...d.fake.attachment("liar.txt", BIG, "text/plain"), size: 10 };
    d.fake.userSays({ channel: "dm", user: d.alice, content: "three files", attachments: [small, big, liar] });
    await d.fake.waitForBotText(/noted/, d.fake.dmChannel(d.alice).id);
    const text = lastUserText(modelRequests(d.gw.fake)[0]);
    assert.match(text, /three files/);
    assert.match(
      text,
      /big\.txt \(5000 bytes\) was not downloaded: larger than 1000 bytes, the limit set by gateway\.max_inbound_media_bytes/,
    );
    assert.match(
      text,
      /liar\.txt was not downloaded: larger than 1000 bytes, the limit set by gateway\.max_inbound_media_bytes/,
    );
    const files = cached(d.gw.home, "discord");
    assert.equal(files.length, 1);
    assert.match(files[0] ?? "", /small\.txt$/);
  } finally {
    await d.close();
  }
});

test("discord: with the key above the file sizes, discord.max_attachment_bytes is the limit the note names", async () => {
  const d = await startDiscordGateway({
    config: "gateway:\n  max_inbound_media_bytes: 100000\ndiscord:\n  max_attachment_bytes: 1000\n",
    provider: { fallback: { text: "noted" } },
  });
  try {
    const small = d.fake.attachment("small.txt", SMALL, "text/plain");
    const big = d.fake.attachment("big.txt", BIG, "text/plain");
    d.fake.userSays({ channel: "dm", user: d.alice, content: "two files", attachments: [small, big] });
    await d.fake.waitForBotText(/noted/, d.fake.dmChannel(d.alice).id);
    const text = lastUserText(modelRequests(d.gw.fake)[0]);
    assert.match(
      text,
      /big\.txt \(5000 bytes\) was not downloaded: larger than 1000 bytes, the limit set by discord\.max_attachment_bytes/,
    );
    assert.doesNotMatch(text, /gateway\.max_inbound_media_bytes/);
    assert.equal(cached(d.gw.home, "discord").length, 1);
  } finally {
    await d.close();
  }
});

test("slack: the adapter built from config caps downloads at gateway.max_inbound_media_bytes, declared size or not", async () => {
  const slack = await startFakeSlack();
  const home = tempDir("hermes-slack-");
  const config = configSchema.parse({ gateway: { max_inbound_media_bytes: CAP } });
  const adapter = createSlackAdapter({
    config,
    env: {
      SLACK_BOT_TOKEN: slack.state.tokens.bot,
      SLACK_APP_TOKEN: slack.state.tokens.app,
      SLACK_API_ROOT: `${slack.url}/api`,
    },
    home,
    log: () => undefined,
  });
  const heard: InboundMessage[] = [];
  try {
    await adapter.connect({ inbound: async (message) => heard.push(message) > 0, listenerLost: () => undefined });
    const small = slack.state.addUserFile("small.txt", "text/plain", SMALL);
    const big = slack.state.addUserFile("big.bin", "application/octet-stream", BIG);
    const liar = { ...slack.state.addUserFile("liar.bin", "application/octet-stream", BIG), size: 10 };
    slack.sendEvent({
      type: "message",
      subtype: "file_share",
      channel: SLACK_DM,
      channel_type: "im",
      user: SLACK_ALICE,
      text: "three files",
      ts: "1700000300.000001",
      files: [small, big, liar],
    });
    await until(() => heard.length > 0, "the inbound message");
    const message = heard[0]!;
    assert.deepEqual(
      message.attachments?.map((a) => [a.name, a.bytes]),
      [["small.txt", SMALL.length]],
    );
    assert.match(message.text, /big\.bin: it is over the 1000 bytes limit set by gateway\.max_inbound_media_bytes/);
    assert.match(message.text, /liar\.bin: it is over the 1000 bytes limit set by gateway\.max_inbound_media_bytes/);
    assert.deepEqual(
      cached(home, "slack").filter((name) => !name.endsWith("small.txt")),
      [],
    );
  } finally {
    await adapter.disconnect();
    await slack.close();
  }
});

test("email: attachments over gateway.max_inbound_media_bytes are not saved and the note names the key", async () => {
  const world = await startMailWorld();
  const { gw } = await startEmailGateway(world, { config: CAP_CONFIG, provider: { fallback: { text: "noted" } } });
  try {
    await world.mail({
      from: MAIL_ALICE,
      subject: "Files",
      text: "two files",
      attachments: [
        { filename: "small.txt", content: SMALL, contentType: "text/plain" },
        { filename: "big.bin", content: BIG, contentType: "application/octet-stream" },
      ],
    });
    await world.smtp.waitFor((m) => /noted/.test(m.mail.text ?? ""), "the reply");
    const text = lastUserText(modelRequests(gw.fake)[0]);
    assert.match(text, /two files/);
    assert.match(
      text,
      /The attachment big\.bin \(5000 bytes\) is over the 1000 bytes limit set by gateway\.max_inbound_media_bytes/,
    );
    const files = cached(gw.home, "email");
    assert.equal(files.length, 1);
    assert.match(files[0] ?? "", /small\.txt$/);
  } finally {
    await gw.close();
    await world.close();
  }
});
