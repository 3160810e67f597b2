import assert from "node:assert/strict";
import { test } from "node:test";
import { toMarkdownV2 } from "../../../src/gateway/adapters/telegram/format.js";
import { createTelegramAdapter } from "../../../src/gateway/adapters/telegram/platform.js";
import { needsRichRendering } from "../../../src/gateway/adapters/telegram/rich.js";
import { validateConfig } from "../../../src/state/config-validate.js";
import { startTelegramGateway, type TelegramGateway } from "../../fakes/telegram/gateway.js";
import { ALICE, type BotMessage, type FakeChat } from "../../fakes/telegram/server.js";
import { tempDir } from "../../state/temp-dir.js";

const FAST = "display:\n  platforms:\n    telegram:\n      edit_interval: 0.2\n";
const RICH = "telegram:\n  extra:\n    rich_messages: true\n";
const REPLY = "Here is what I found after looking through everything you sent me this morning, in short.";
const TABLE =
  "| Name | Count |\n|------|-------|\n| apples | 3 |\n| pears | 5 |\n\nThat is all the fruit in the basket today.";
const GROUP: FakeChat = { id: -100777, type: "supergroup", title: "Team" };

/** Runs one user message in `chat` to its final reply: the bot's message whose shown text ends so. */
async function ask(tg: TelegramGateway, ending: string, text = "hi", chat?: FakeChat): Promise<BotMessage> {
  const before = tg.telegram.messages.length;
  tg.telegram.userMessage({ text, ...(chat ? { chat } : {}) });
  const isFinal = (m: BotMessage) => m.text.endsWith(ending);
  await tg.telegram.waitForMessages((messages) => messages.slice(before).some(isFinal));
  return tg.telegram.messages.slice(before).find(isFinal) as BotMessage;
}

const TABLE_END = "basket today.";

const streamed = (text: string, chunkDelayMs = 300) => ({ text, chunkDelayMs });

test("a DM reply streams as drafts of one draft id and ends as one fresh message, with no edits", async () => {
  const tg = await startTelegramGateway({ config: FAST, provider: { script: [streamed(REPLY)] } });
  try {
    const final = await ask(tg, REPLY);
    const drafts = tg.telegram.world.drafts;
    assert.ok(drafts.length >= 2, `the reply grew in drafts (${drafts.length})`);
    assert.equal(new Set(drafts.map((d) => d.draftId)).size, 1, "one draft id for the whole reply");
    assert.notEqual(drafts[0]?.draftId, 0);
    assert.ok(drafts.every((d) => d.chatId === ALICE.id && !d.rich && d.text.endsWith(" ▉")));
    assert.equal(tg.telegram.callsOf("editMessageText").length, 0, "nothing was edited");
    assert.deepEqual(
      tg.telegram.messagesIn(ALICE.id).map((m) => m.text),
      [REPLY],
      "the chat holds only the final reply",
    );
    assert.equal(final.parseMode, "MarkdownV2");
    assert.deepEqual(final.history, []);
  } finally {
    await tg.close();
  }
});

test("a group reply streams by edits even with transport draft: drafts are for private chats only", async () => {
  const tg = await startTelegramGateway({
    config: `${FAST}streaming:\n  transport: draft\n`,
    provider: { script: [streamed(REPLY)] },
  });
  try {
    const final = await ask(tg, REPLY, "hi", GROUP);
    assert.equal(tg.telegram.callsOf("sendMessageDraft").length, 0);
    assert.ok(tg.gw.logs.some((line) => /transport is draft, but this chat cannot have drafts/.test(line)));
    assert.ok(final.history.length >= 1, "the preview was edited into the reply");
    assert.ok(tg.telegram.callsOf("editMessageText").length >= 1);
  } finally {
    await tg.close();
  }
});

test("streaming.transport edit previews by edits in a DM too", async () => {
  const tg = await startTelegramGateway({
    config: `${FAST}streaming:\n  transport: edit\n`,
    provider: { script: [streamed(REPLY)] },
  });
  try {
    const final = await ask(tg, REPLY);
    assert.equal(tg.telegram.callsOf("sendMessageDraft").length, 0);
    assert.ok(final.history.length >= 1, "the preview was edited into the reply");
  } finally {
    await tg.close();
  }
});

test("a server without sendMessageDraft: the reply goes on by edits, and the next reply does not try drafts", async () => {
  const second = "And here is the second answer, which streams as an edited preview again.";
  const tg = await startTelegramGateway({ config: FAST, provider: { script: [streamed(REPLY), streamed(second)] } });
  tg.telegram.withoutMethods("sendMessageDraft");
  try {
    const first = await ask(tg, REPLY);
    assert.ok(first.history.length >= 1, "after the failed draft the preview was a message, edited into the reply");
    const next = await ask(tg, second, "and?");
    assert.ok(next.history.length >= 1, "the second reply streamed by edits");
    assert.equal(tg.telegram.callsOf("sendMessageDraft").length, 1, "the missing method was asked once");
    assert.ok(tg.adapterLogs.some((line) => /sendMessageDraft failed \(.*404.*until restart/.test(line)));
    assert.ok(tg.adapterLogs.every((line) => !line.includes(tg.telegram.token)));
  } finally {
    await tg.close();
  }
});

test("a rate-limited draft waits out retry_after, then drafting goes on", async () => {
  const tg = await startTelegramGateway({ config: FAST, provider: { script: [streamed(REPLY, 700)] } });
  tg.telegram.failNext("sendMessageDraft", {
    code: 429,
    description: "Too Many Requests: retry after 1",
    retryAfter: 1,
  });
  try {
    await ask(tg, REPLY);
    const calls = tg.telegram.callsOf("sendMessageDraft");
    assert.equal(calls[0]?.status, 429);
    assert.ok(calls.length >= 2, "drafting resumed after the wait");
    const waited = (calls[1]?.atHr ?? 0) - (calls[0]?.atHr ?? 0);
    assert.ok(waited >= 950, `the next draft waited for retry_after (${Math.round(waited)} ms)`);
    assert.equal(tg.telegram.callsOf("editMessageText").length, 0, "no fall back to edits");
    assert.equal(tg.telegram.messagesIn(ALICE.id).length, 1, "only the final reply is a message");
  } finally {
    await tg.close();
  }
});

test("with rich_messages on, a reply with a table is sent whole as a rich message of its markdown", async () => {
  const tg = await startTelegramGateway({ config: `${FAST}${RICH}`, provider: { script: [streamed(TABLE)] } });
  try {
    const final = await ask(tg, TABLE_END, "fruit?");
    const [call, ...more] = tg.telegram.callsOf("sendRichMessage");
    assert.equal(more.length, 0);
    assert.deepEqual(call?.params.rich_message, { markdown: TABLE });
    assert.equal(final.rich, TABLE);
    assert.equal(final.replyTo, 1, "it answers the user's message");
    assert.deepEqual(tg.telegram.messagesIn(ALICE.id), [final], "no classic copy besides it");
    assert.ok(tg.telegram.world.drafts.length >= 1 && tg.telegram.world.drafts.every((d) => !d.rich));
  } finally {
    await tg.close();
  }
});

test("with rich_messages on, a plain reply stays on the classic MarkdownV2 path", async () => {
  const tg = await startTelegramGateway({ config: RICH, provider: { script: [{ text: REPLY }] } });
  try {
    const final = await ask(tg, REPLY);
    assert.equal(tg.telegram.callsOf("sendRichMessage").length, 0);
    assert.equal(final.parseMode, "MarkdownV2");
  } finally {
    await tg.close();
  }
});

test("a refused rich send falls back to MarkdownV2 for that message only; the next table goes rich again", async () => {
  const tg = await startTelegramGateway({ config: RICH, provider: { script: [{ text: TABLE }, { text: TABLE }] } });
  tg.telegram.failNext("sendRichMessage", { code: 400, description: "Bad Request: can't parse the rich message" });
  try {
    const classic = await ask(tg, TABLE_END, "fruit?");
    assert.equal(classic.parseMode, "MarkdownV2");
    assert.match(classic.raw, /```\nName {3}\| Count/, "the table is a preformatted block");
    assert.ok(tg.adapterLogs.some((line) => /sendRichMessage failed \(.*400.*sent as MarkdownV2$/.test(line)));
    const rich = await ask(tg, TABLE_END, "again?");
    assert.equal(rich.rich, TABLE);
    assert.equal(tg.telegram.callsOf("sendRichMessage").length, 2);
  } finally {
    await tg.close();
  }
});

test("a rich send whose answer is lost on the network is retried as a rich send, never also sent the classic way", async () => {
  const tg = await startTelegramGateway({ config: RICH, provider: { script: [{ text: TABLE }] } });
  tg.telegram.loseAnswerOfNext("sendRichMessage");
  try {
    tg.telegram.userMessage({ text: "fruit?" });
    await tg.telegram.waitForMessages(() => tg.telegram.callsOf("sendRichMessage").length >= 2);
    assert.equal(
      tg.telegram.messages.filter((m) => m.parseMode === "MarkdownV2").length,
      0,
      "no classic copy beside the rich one",
    );
    assert.ok(!tg.adapterLogs.some((line) => /sent as MarkdownV2/.test(line)));
  } finally {
    await tg.close();
  }
});

test("in a group, the edited preview of a table reply is turned into the rich message by editMessageText", async () => {
  const tg = await startTelegramGateway({ config: `${FAST}${RICH}`, provider: { script: [streamed(TABLE)] } });
  try {
    const final = await ask(tg, TABLE_END, "fruit?", GROUP);
    assert.equal(final.rich, TABLE);
    assert.ok(final.history.length >= 1, "it was the preview");
    assert.ok(tg.telegram.callsOf("editMessageText").some((c) => c.status === 200 && c.params.rich_message));
    assert.equal(tg.telegram.callsOf("sendRichMessage").length, 0);
  } finally {
    await tg.close();
  }
});

test("a refused rich reply longer than one message goes out as MarkdownV2 parts within the limit", async () => {
  const long = `${TABLE}\n\n${"Several more words come after the table. ".repeat(150)}Done here.`;
  const tg = await startTelegramGateway({ config: RICH, provider: { script: [{ text: long }] } });
  tg.telegram.failNext("sendRichMessage", { code: 400, description: "Bad Request: can't parse the rich message" });
  try {
    const last = await ask(tg, "Done here.", "more?");
    const parts = tg.telegram.messagesIn(ALICE.id);
    assert.ok(parts.length >= 2 && parts.every((m) => m.parseMode === "MarkdownV2" && m.text.length <= 4096));
    assert.equal(parts.at(-1), last);
    assert.equal(parts[0]?.replyTo, 1, "the first part answers the user's message");
  } finally {
    await tg.close();
  }
});

test("a server without sendRichMessage: classic for that reply, and rich is not tried again", async () => {
  const tg = await startTelegramGateway({ config: RICH, provider: { script: [{ text: TABLE }, { text: TABLE }] } });
  tg.telegram.withoutMethods("sendRichMessage");
  try {
    const first = await ask(tg, TABLE_END, "fruit?");
    const second = await ask(tg, TABLE_END, "again?");
    assert.equal(first.parseMode, "MarkdownV2");
    assert.equal(second.parseMode, "MarkdownV2");
    assert.equal(tg.telegram.callsOf("sendRichMessage").length, 1);
    assert.ok(tg.adapterLogs.some((line) => /rich messages are off until restart/.test(line)));
  } finally {
    await tg.close();
  }
});

test("a table reply over 32,768 characters takes the classic split path", async () => {
  const long = `${TABLE}\n\n${"Many more words follow here. ".repeat(1300)}The end.`;
  assert.ok(long.length > 32_768);
  const tg = await startTelegramGateway({ config: RICH, provider: { script: [{ text: long }] } });
  try {
    await ask(tg, "The end.", "tell me everything");
    assert.equal(tg.telegram.callsOf("sendRichMessage").length, 0);
    const parts = tg.telegram.messagesIn(ALICE.id);
    assert.ok(parts.length >= 9, `${parts.length} parts`);
    assert.ok(parts.every((m) => m.parseMode === "MarkdownV2" && m.text.length <= 4096));
  } finally {
    await tg.close();
  }
});

for (const [keys, richDrafts] of [
  ["rich_messages: true\n    rich_drafts: true", true],
  ["rich_drafts: true", false],
] as const) {
  test(`rich drafts preview a table reply only with both keys on (${keys.replace(/\n\s+/, ", ")})`, async () => {
    const tg = await startTelegramGateway({
      config: `${FAST}telegram:\n  extra:\n    ${keys}\n`,
      provider: { script: [streamed(TABLE)] },
    });
    try {
      const final = await ask(tg, TABLE_END, "fruit?");
      assert.equal(final.rich !== undefined, richDrafts, "the final is rich exactly when rich_messages is on");
      const drafts = tg.telegram.world.drafts;
      assert.ok(drafts.length >= 1);
      assert.equal(
        drafts.some((d) => d.rich),
        richDrafts,
      );
      assert.equal(tg.telegram.callsOf("sendRichMessageDraft").length > 0, richDrafts);
    } finally {
      await tg.close();
    }
  });
}

test("the rich detector picks tables, task lists, <details> and display math outside code only", () => {
  for (const rich of [
    TABLE,
    "a | b\n--- | ---\n1 | 2",
    "- [ ] buy milk",
    "1. [x] done it",
    "<details>\n<summary>More</summary>",
    "$$\nE = mc^2\n$$",
  ]) {
    assert.equal(needsRichRendering(rich), true, rich);
  }
  for (const plain of [
    REPLY,
    "- a list\n- of things",
    "```\n| a | b |\n|---|---|\n```",
    "costs $5 or $$",
    "a --- b",
    "---",
  ]) {
    assert.equal(needsRichRendering(plain), false, plain);
  }
  assert.equal(
    needsRichRendering(toMarkdownV2("- [ ] buy milk\n<details>")),
    false,
    "our own MarkdownV2 never reads as rich",
  );
});

test("streaming.transport and telegram.extra are checked and acted on; a bad extra value stops the adapter", () => {
  const { config, notActedOn } = validateConfig({
    streaming: { transport: "draft" },
    telegram: { extra: { rich_messages: true, rich_drafts: false } },
  });
  assert.deepEqual(notActedOn, []);
  assert.equal(config.streaming.transport, "draft");
  assert.equal(validateConfig({}).config.streaming.transport, "auto");
  assert.throws(
    () => validateConfig({ streaming: { transport: "sideways" } }),
    /streaming\.transport.*"auto", "draft", "edit" or "off"/s,
  );
  assert.throws(
    () => validateConfig({ telegram: { extra: { rich_drafts: "maybe" } } }),
    /telegram\.extra\.rich_drafts/,
  );
  const context = {
    config: validateConfig({ platforms: { telegram: { extra: { rich_messages: "maybe" } } } }).config,
    env: { TELEGRAM_BOT_TOKEN: "123:abc" },
    home: tempDir("hermes-tg-extra-"),
    log: () => undefined,
  };
  assert.throws(
    () => createTelegramAdapter(context),
    /platforms\.telegram\.extra\.rich_messages is "maybe"; set it to true or false/,
  );
});
