import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startTelegramGateway } from "../../fakes/telegram/gateway.js";
import { ALICE, type BotMessage, type FakeChat } from "../../fakes/telegram/server.js";
import { lastToolResults } from "../../helpers/agent-harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests, userTexts } from "../harness.js";

const FAST_EDITS = "display:\n  platforms:\n    telegram:\n      edit_interval: 0.2\n";
const NO_SANDBOX = 'sandbox:\n  mode: "off"\n';
const echoToolResult = {
  fallback: (req: Parameters<typeof lastToolResults>[0]) => ({ text: `result: ${lastToolResults(req)[0] ?? ""}` }),
};
const isPreview = (m: BotMessage) => m.text.endsWith(" ▉") || m.text.startsWith("⚙");

test("a DM turn with a tool call streams into one message by edits and ends as the full reply", async () => {
  const reply = "All done. The list is empty (nothing to do) - enjoy the rest of your day!";
  const tg = await startTelegramGateway({
    // Private chats stream by drafts unless told to edit (telegram-drafts.test.ts covers drafts).
    config: `${FAST_EDITS}streaming:\n  transport: edit\n`,
    provider: {
      script: [{ toolCalls: [{ name: "todo", arguments: { todos: [] } }] }, { text: reply, chunkDelayMs: 20 }],
    },
  });
  try {
    tg.telegram.userMessage({ text: "check my list" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text === reply));
    const final = tg.telegram.messages.find((m) => m.text === reply) as BotMessage;
    assert.equal(final.chatId, ALICE.id);
    assert.equal(final.parseMode, "MarkdownV2");
    assert.match(final.raw, /All done\\\. The list is empty \\\(nothing to do\\\) \\- enjoy/);
    assert.ok(final.history.length >= 1, "the preview was edited into the reply");
    assert.match(final.history[0] as string, / ▉$/, "the first version was a growing preview");
    assert.ok(tg.telegram.callsOf("editMessageText").length >= 1);
    assert.ok(
      tg.telegram
        .callsOf("sendChatAction")
        .some((c) => c.params.action === "typing" && Number(c.params.chat_id) === ALICE.id),
      "the chat saw the bot typing",
    );
    const requests = modelRequests(tg.gw.fake);
    assert.equal(requests.length, 2, "one request for the tool call, one after its result");
    assert.deepEqual(userTexts(requests[0]!), ["check my list"]);
    assert.deepEqual(
      tg.adapterLogs.filter((line) => /plain text/.test(line)),
      [],
      "previews, progress and the reply all parsed as MarkdownV2",
    );
    assert.deepEqual(
      tg.gw.logs.filter((line) => /failed/.test(line)),
      [],
    );
  } finally {
    await tg.close();
  }
});

test("an approval is answered by pressing a button: the press is acknowledged, the keyboard removed, the command run", async () => {
  const dir = join(tempDir("hermes-tg-victim-"), "victim");
  mkdirSync(join(dir, "inner"), { recursive: true });
  const tg = await startTelegramGateway({
    config: NO_SANDBOX,
    provider: {
      script: [{ toolCalls: [{ name: "terminal", arguments: { command: `rm -r ${dir}` } }] }],
      ...echoToolResult,
    },
  });
  try {
    tg.telegram.userMessage({ text: "clean up" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.replyMarkup));
    const prompt = tg.telegram.messages.find((m) => m.replyMarkup) as BotMessage;
    assert.match(prompt.text, /needs your approval/);
    assert.ok(prompt.text.includes(`rm -r ${dir}`), prompt.text);
    const buttons = (
      prompt.replyMarkup as { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> }
    ).inline_keyboard.flat();
    assert.deepEqual(
      buttons.map((b) => [b.text, b.callback_data]),
      [
        ["Allow once", "ap:once"],
        ["Allow for this session", "ap:session"],
        ["Always allow", "ap:always"],
        ["Deny", "ap:deny"],
      ],
    );
    const press = tg.telegram.press({ message: prompt, data: "ap:once" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => /^result:/.test(m.text)));
    assert.equal(existsSync(dir), false, "the approved command ran");
    const pressId = (press.callback_query as { id: string }).id;
    const answered = tg.telegram.callsOf("answerCallbackQuery").find((c) => c.params.callback_query_id === pressId);
    assert.equal(answered?.params.text, "Allowed once");
    assert.equal(prompt.replyMarkup, undefined, "the keyboard is gone");
    assert.match(prompt.text, /Allowed once by @alice/);

    const again = tg.telegram.press({ message: { ...prompt, replyMarkup: { inline_keyboard: [] } }, data: "ap:deny" });
    const secondId = (again.callback_query as { id: string }).id;
    const second = await tg.telegram.waitForCall(
      (c) => c.method === "answerCallbackQuery" && c.params.callback_query_id === secondId,
    );
    assert.equal(second.params.text, "This was already answered.", JSON.stringify(second.params));
  } finally {
    await tg.close();
  }
});

test("a message in a forum topic is answered in the same topic", async () => {
  const chat: FakeChat = { id: -1001234, type: "supergroup", title: "Team", is_forum: true };
  const tg = await startTelegramGateway({ provider: { fallback: { text: "answered in the topic" } } });
  try {
    tg.telegram.userMessage({ chat, threadId: 42, text: "hello from the topic" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text === "answered in the topic"));
    const replies = tg.telegram.messagesIn(chat.id);
    assert.ok(replies.length >= 1);
    assert.ok(
      replies.every((m) => m.threadId === 42),
      "every message went to topic 42",
    );
    const typing = tg.telegram.callsOf("sendChatAction").filter((c) => Number(c.params.chat_id) === chat.id);
    assert.ok(typing.length >= 1 && typing.every((c) => c.params.message_thread_id === 42));
    const route = await tg.gw.store.sessionRoute(`agent:main:telegram:group:${chat.id}:42`);
    assert.ok(route, "the topic has a session of its own");
  } finally {
    await tg.close();
  }
});

test("a reply longer than 4096 characters arrives in parts, each within Telegram's limit, nothing lost", async () => {
  const paragraphs = Array.from(
    { length: 5 },
    (_, i) => `Part ${i}. ${"Some words, then a full stop. ".repeat(60).trim()}`,
  );
  const tg = await startTelegramGateway({ provider: { script: [{ text: paragraphs.join("\n\n") }] } });
  try {
    tg.telegram.userMessage({ text: "write a lot" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text.startsWith("Part 4.")));
    const parts = tg.telegram.messagesIn(ALICE.id).filter((m) => !isPreview(m));
    assert.ok(parts.length >= 2, `the reply was split (${parts.length} part(s))`);
    assert.ok(parts.every((m) => m.text.length <= 4096 && m.raw.length <= 4096));
    assert.equal(parts.map((m) => m.text).join("\n\n"), paragraphs.join("\n\n"));
    assert.equal(
      tg.telegram.callsOf("sendMessage").filter((c) => c.status !== 200).length,
      0,
      "Telegram refused nothing",
    );
  } finally {
    await tg.close();
  }
});

test("an unknown user's DM gets a pairing code and the request is stored; the model is not called", async () => {
  const stranger = { id: 555, first_name: "Mallory", username: "mallory" };
  const tg = await startTelegramGateway({ env: {} });
  try {
    tg.telegram.userMessage({ from: stranger, text: "let me in" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => /pairing code/.test(m.text)));
    const reply = tg.telegram.messagesIn(stranger.id)[0] as BotMessage;
    const code = /pairing code is ([A-Z0-9]+)/.exec(reply.text)?.[1];
    assert.ok(code, reply.text);
    assert.match(reply.text, new RegExp(`hermes pairing approve telegram ${code}`));
    const pending = await tg.gw.store.pendingPairingRequests("telegram");
    assert.equal(pending.length, 1);
    assert.equal(pending[0]?.code, code);
    assert.equal(pending[0]?.userId, String(stranger.id));
    assert.equal(modelRequests(tg.gw.fake).length, 0);
  } finally {
    await tg.close();
  }
});

test("a stranger's photo is not downloaded: the DM gets its pairing code and getFile is never called", async () => {
  const stranger = { id: 556, first_name: "Mallory", username: "mallory" };
  const tg = await startTelegramGateway({ env: {} });
  try {
    tg.telegram.userMessage({ from: stranger, photo: Buffer.from("not for us"), caption: "open this" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => /pairing code/.test(m.text)));
    assert.equal(tg.telegram.callsOf("getFile").length, 0);
    assert.equal(existsSync(join(tg.gw.home, "cache", "telegram")), false);
    assert.equal(modelRequests(tg.gw.fake).length, 0);
  } finally {
    await tg.close();
  }
});

test("a photo reaches the model as an image; a MEDIA: line in the reply is sent as a document", async () => {
  const outDir = tempDir("hermes-tg-out-");
  const notes = join(outDir, "notes.txt");
  writeFileSync(notes, "the notes, as a file\n");
  const photo = Buffer.from("not really a jpeg, but bytes all the same");
  const tg = await startTelegramGateway({
    // The fake model's name says nothing about images: ask for them as images.
    config: "agent:\n  image_input_mode: native\n",
    provider: { script: [{ text: `Here are the notes.\nMEDIA:${notes}` }] },
  });
  try {
    tg.telegram.userMessage({ photo, caption: "what is in this picture?" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.document));
    const [request] = modelRequests(tg.gw.fake);
    const messages = request?.body.messages as Array<{ role: string; content: unknown }>;
    const content = messages.filter((m) => m.role === "user").at(-1)?.content as Array<Record<string, unknown>>;
    assert.ok(Array.isArray(content), "the user message has parts");
    assert.deepEqual(content[0], { type: "text", text: "what is in this picture?" });
    assert.deepEqual(content[1], {
      type: "image_url",
      image_url: { url: `data:image/jpeg;base64,${photo.toString("base64")}` },
    });
    const getFile = tg.telegram.callsOf("getFile");
    assert.equal(getFile.length, 1);
    assert.equal(getFile[0]?.params.file_id, "file-2", "the largest size was downloaded");
    assert.equal(readdirSync(join(tg.gw.home, "cache", "telegram")).length, 1);

    const sentDoc = tg.telegram.messages.find((m) => m.document) as BotMessage;
    assert.equal(sentDoc.document?.filename, "notes.txt");
    assert.equal(sentDoc.document?.bytes.toString(), "the notes, as a file\n");
    assert.ok(tg.telegram.messages.some((m) => m.text === "Here are the notes."));
  } finally {
    await tg.close();
  }
});

test("a file over 20 MB is not downloaded; the model is told it was refused", async () => {
  const tg = await startTelegramGateway({ provider: { fallback: { text: "noted" } } });
  try {
    tg.telegram.userMessage({
      document: { filename: "huge.bin", declaredSize: 25 * 1024 * 1024 },
      caption: "here is a big one",
    });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text === "noted"));
    assert.equal(tg.telegram.callsOf("getFile").length, 0);
    const [text] = userTexts(modelRequests(tg.gw.fake)[0]!);
    assert.match(text ?? "", /here is a big one/);
    assert.match(text ?? "", /huge\.bin .*over Telegram's 20 MB limit/);
  } finally {
    await tg.close();
  }
});
