import assert from "node:assert/strict";
import { test } from "node:test";
import { TelegramAdapter } from "../../../src/gateway/adapters/telegram/adapter.js";
import {
  isMarkdownV2,
  markdownV2ToPlain,
  renderTable,
  toMarkdownV2,
} from "../../../src/gateway/adapters/telegram/format.js";
import { parseMarkdownV2 } from "../../fakes/telegram/markdown-v2.js";
import { ALICE, FakeTelegram } from "../../fakes/telegram/server.js";
import { tempDir } from "../../state/temp-dir.js";

test("every character MarkdownV2 reserves is escaped in plain text", () => {
  const reserved = "_*[]()~`>#+-=|{}.!\\";
  const converted = toMarkdownV2(`a ${reserved.split("").join(" ")} z`);
  assert.equal(
    converted,
    `a ${reserved
      .split("")
      .map((c) => `\\${c}`)
      .join(" ")} z`,
  );
  assert.equal(parseMarkdownV2(converted).text, `a ${reserved.split("").join(" ")} z`);
});

test("bold, italic, strikethrough, inline code and links become MarkdownV2 entities", () => {
  const converted = toMarkdownV2(
    "**Bold** and *italic* and _also italic_ and ~~gone~~, `a.b(c)` and [the docs](https://x.dev/a_(b))",
  );
  assert.equal(
    converted,
    "*Bold* and _italic_ and _also italic_ and ~gone~, `a.b(c)` and [the docs](https://x.dev/a_(b\\))",
  );
});

test("snake_case words and lone asterisks stay text", () => {
  assert.equal(toMarkdownV2("call my_function_name with 2 * 3"), "call my\\_function\\_name with 2 \\* 3");
});

test("a code block keeps its language and only backticks and backslashes are escaped in it", () => {
  const converted = toMarkdownV2('Run this:\n```python\nprint("a.b\\n")  # `x`\n```\nDone.');
  assert.equal(converted, 'Run this:\n```python\nprint("a.b\\\\n")  # \\`x\\`\n```\nDone\\.');
  const parsed = parseMarkdownV2(converted);
  assert.equal(parsed.text, 'Run this:\nprint("a.b\\n")  # `x`\nDone.');
  assert.deepEqual(
    parsed.entities.map((e) => [e.type, e.language]),
    [["pre", "python"]],
  );
});

test("a code block still streaming (no closing fence) is closed", () => {
  const converted = toMarkdownV2("```js\nconst a = 1;");
  assert.equal(converted, "```js\nconst a = 1;\n```");
  assert.doesNotThrow(() => parseMarkdownV2(converted));
});

test("a markdown table becomes a preformatted block with aligned columns", () => {
  const table = "| Name | Size |\n|------|-----:|\n| **a.txt** | 12 |\n| bigger-file.md | 3400 |";
  const converted = toMarkdownV2(`Files:\n${table}\nThat is all.`);
  const expected = ["Name           | Size", "---------------+-----", "a.txt          | 12", "bigger-file.md | 3400"];
  assert.equal(renderTable(table.split("\n")), expected.join("\n"));
  assert.equal(converted, `Files:\n\`\`\`\n${expected.join("\n")}\n\`\`\`\nThat is all\\.`);
  assert.equal(parseMarkdownV2(converted).entities[0]?.type, "pre");
});

test("headings, lists and quotes render without reserved characters left bare", () => {
  const converted = toMarkdownV2("# Title!\n- first item.\n- second\n1. numbered\n> quoted (text)");
  assert.equal(converted, "*Title\\!*\n• first item\\.\n• second\n1\\. numbered\n>quoted \\(text\\)");
  const parsed = parseMarkdownV2(converted);
  assert.equal(parsed.text, "Title!\n• first item.\n• second\n1. numbered\nquoted (text)");
});

test("whatever markdown goes in, what comes out parses as MarkdownV2 and is recognised as such", () => {
  const samples = [
    "Plain sentence. With punctuation! And (brackets) - dashes = equals + plus #hash {braces} |pipes|",
    "**bold with _nested italic_ inside** then `code` then ~~strike~~",
    "a * b * c and 3_000_000 and file_name.txt",
    "[link](https://example.com/path?q=1&r=(2)) and [not a link] (really)",
    "```\nunlabelled block with ``` inside? no\n```",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "> quote\n>> nested?\n---\n***",
  ];
  for (const sample of samples) {
    const converted = toMarkdownV2(sample);
    assert.doesNotThrow(() => parseMarkdownV2(converted), `${sample} -> ${converted}`);
    assert.ok(isMarkdownV2(converted), `recognised: ${converted}`);
  }
  assert.equal(isMarkdownV2("Hello. This is plain markdown (a preview)."), false);
  assert.equal(markdownV2ToPlain("a\\.b \\(c\\) \\\\ d"), "a.b (c) \\ d");
});

test("text Telegram cannot parse is sent again as plain text, never lost", async () => {
  const telegram = await FakeTelegram.start();
  const adapter = new TelegramAdapter({ token: telegram.token, apiRoot: telegram.url, home: tempDir("hermes-tg-") });
  try {
    telegram.world.chats.set(ALICE.id, { id: ALICE.id, type: "private" });
    // An unclosed bold marker: valid-looking to us, refused by Telegram's parser.
    const sent = await adapter.send({ chatId: String(ALICE.id), text: "*half bold and a \\. dot" });
    const [refused, plain] = telegram.callsOf("sendMessage");
    assert.equal(refused?.status, 400);
    assert.equal(refused?.params.parse_mode, "MarkdownV2");
    assert.equal(plain?.status, 200);
    assert.equal(plain?.params.parse_mode, undefined);
    assert.equal(telegram.messagesIn(ALICE.id)[0]?.text, "*half bold and a . dot");
    assert.equal(sent.messageId, String(telegram.messagesIn(ALICE.id)[0]?.messageId));

    // A parse error Telegram reports for its own reasons takes the same way out.
    telegram.failNext("sendMessage", {
      code: 400,
      description: "Bad Request: can't parse entities: Can't find end of italic entity at byte offset 3",
    });
    await adapter.send({ chatId: String(ALICE.id), text: toMarkdownV2("All good (really).") });
    assert.equal(telegram.messagesIn(ALICE.id)[1]?.text, "All good (really).");
    assert.equal(telegram.messagesIn(ALICE.id)[1]?.parseMode, undefined);
  } finally {
    await telegram.close();
  }
});

test("edits that change nothing succeed; a missing message is an error the core will not retry", async () => {
  const telegram = await FakeTelegram.start();
  const adapter = new TelegramAdapter({ token: telegram.token, apiRoot: telegram.url, home: tempDir("hermes-tg-") });
  try {
    telegram.world.chats.set(ALICE.id, { id: ALICE.id, type: "private" });
    const address = { chatId: String(ALICE.id) };
    const { messageId } = await adapter.send({ ...address, text: "same" });
    await adapter.edit(address, messageId as string, "same");
    await assert.rejects(
      adapter.edit(address, "999", "other"),
      (error: Error & { options?: { retryable: boolean } }) => {
        assert.match(error.message, /message to edit not found/);
        assert.equal(error.options?.retryable, false);
        return true;
      },
    );
    telegram.failNext("sendMessage", { code: 502, description: "Bad Gateway" });
    await assert.rejects(
      adapter.send({ ...address, text: "x" }),
      (error: Error & { options?: { retryable: boolean } }) => {
        assert.equal(error.options?.retryable, true);
        return true;
      },
    );
  } finally {
    await telegram.close();
  }
});
