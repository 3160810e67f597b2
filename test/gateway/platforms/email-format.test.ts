import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  markdownToPlainText,
  outgoingMessageId,
  referencesFor,
  replySubject,
  smtpSendError,
} from "../../../src/gateway/adapters/email/compose.js";
import { parseInbound, stripQuotedHistory } from "../../../src/gateway/adapters/email/inbound.js";
import { SeenLedger } from "../../../src/gateway/adapters/email/seen-ledger.js";
import { buildMail } from "../../fakes/email/mail-world.js";
import { tempDir } from "../../state/temp-dir.js";

test("quoted history under a reply is removed: > lines, the attribution line (also wrapped), original-message blocks", () => {
  assert.equal(
    stripQuotedHistory(
      "/approve\r\n\r\nOn Tue, 3 Mar 2026 at 10:00, Agent <a@x.test> wrote:\r\n> Reply /approve\r\n> or /deny\r\n",
    ),
    "/approve",
  );
  assert.equal(
    stripQuotedHistory("Sounds good.\n\nOn Tue, 3 Mar 2026 at 10:00 Agent\n<a@x.test> wrote:\n\n> earlier"),
    "Sounds good.",
  );
  assert.equal(stripQuotedHistory("Top\n\n-----Original Message-----\nFrom: a\nold text"), "Top");
  assert.equal(
    stripQuotedHistory("> quoted first\nthen my answer\n> more quote\nand more"),
    "then my answer\nand more",
  );
  assert.equal(stripQuotedHistory("On the whole, I agree."), "On the whole, I agree.");
});

test("markdown becomes readable plain text: links as text (url), code blocks untouched", () => {
  const text = markdownToPlainText(
    [
      "See [the docs](https://example.com/a) and <https://example.com/b>.",
      "![chart](https://example.com/c.png) and [https://x.test](https://x.test)",
      "```md",
      "[keep](this) as is",
      "```",
      "- **bold** item",
    ].join("\n"),
  );
  assert.equal(
    text,
    [
      "See the docs (https://example.com/a) and <https://example.com/b>.",
      "chart (https://example.com/c.png) and https://x.test",
      "```md",
      "[keep](this) as is",
      "```",
      "- **bold** item",
    ].join("\n"),
  );
});

test("reply subjects get one Re:, references stay bounded, message ids follow the idempotency key", () => {
  assert.equal(replySubject("Question"), "Re: Question");
  assert.equal(replySubject("Re: Question"), "Re: Question");
  assert.equal(replySubject("RE:Question"), "Re: Question");
  assert.equal(replySubject("AW: Frage"), "Re: Frage");
  assert.equal(replySubject(""), "Re: your message");
  const ids = Array.from({ length: 40 }, (_, i) => `<m${i}@x.test>`);
  const kept = referencesFor(ids);
  assert.equal(kept.length, 20);
  assert.equal(kept[0], "<m0@x.test>");
  assert.equal(kept.at(-1), "<m39@x.test>");
  assert.equal(outgoingMessageId("hermes-abc", "agent@mail.example.test"), "<hermes-abc@mail.example.test>");
});

test("SMTP failures: 4xx and network errors are retryable; 5xx and a refused login are not", () => {
  const cases: Array<[unknown, boolean, RegExp]> = [
    [{ responseCode: 451, response: "451 4.3.0 try later" }, true, /try later/],
    [{ responseCode: 421, response: "421 too many connections" }, true, /421/],
    [{ responseCode: 550, response: "550 5.1.1 no such user" }, false, /refused the mail.*no such user/],
    [{ code: "EAUTH", responseCode: 535, response: "535 bad credentials" }, false, /app password/],
    [{ code: "ECONNECTION", message: "connect ECONNREFUSED 127.0.0.1:1" }, true, /could not reach/],
    [{ code: "ETIMEDOUT", message: "Greeting never received" }, true, /could not reach/],
  ];
  for (const [failure, retryable, message] of cases) {
    const error = smtpSendError(failure);
    assert.equal(error.options.retryable, retryable, JSON.stringify(failure));
    assert.match(error.message, message);
  }
});

test("an inbound mail: thread root from References, sender lower-cased, attachments over the cap noted, not saved", async () => {
  const home = tempDir("hermes-email-parse-");
  const { raw } = await buildMail({
    from: "Alice <Alice@Example.TEST>",
    subject: "Re: Plans",
    text: "New text\n\n> old text",
    messageId: "<3@x.test>",
    inReplyTo: "<2@x.test>",
    references: ["<1@x.test>", "<2@x.test>"],
    attachments: [
      { filename: "small.txt", content: Buffer.from("tiny"), contentType: "text/plain" },
      { filename: "big.bin", content: Buffer.alloc(4096, 1), contentType: "application/octet-stream" },
    ],
  });
  const parsed = await parseInbound(raw, {
    home,
    ownAddress: "agent@x.test",
    fallbackId: "<fallback@x.test>",
    maxAttachmentBytes: 1024,
  });
  assert.ok(parsed);
  assert.equal(parsed.threadRoot, "<1@x.test>");
  assert.equal(parsed.messageId, "<3@x.test>");
  assert.deepEqual(parsed.references, ["<1@x.test>", "<2@x.test>", "<3@x.test>"]);
  assert.equal(parsed.from, "alice@example.test");
  assert.equal(parsed.skipReason, undefined);
  assert.match(parsed.text, /^New text\n\[The attachment big\.bin \(4096 bytes\) is over the 1024 bytes limit/);
  assert.equal(parsed.attachments.length, 1);
  assert.equal(parsed.attachments[0]?.kind, "file");
  assert.equal(readFileSync(parsed.attachments[0]?.url ?? "", "utf8"), "tiny");
});

test("a first mail carries its subject as context; one without a Message-ID gets the fallback id", async () => {
  const { raw } = await buildMail({ from: "bob@x.test", subject: "Hello", text: "Body" });
  const withoutId = Buffer.from(raw.toString("utf8").replace(/^Message-ID:.*\r\n/im, ""));
  const parsed = await parseInbound(withoutId, { home: tempDir(), ownAddress: "a@x.test", fallbackId: "<uid-7@imap>" });
  assert.equal(parsed?.messageId, "<uid-7@imap>");
  assert.equal(parsed?.threadRoot, "<uid-7@imap>");
  assert.equal(parsed?.text, "Subject: Hello\n\nBody");
});

test("the seen ledger: a reply settles its mail and earlier ones of the thread; other sends settle only commands", () => {
  const ledger = new SeenLedger();
  ledger.add({ messageId: "a", chatId: "t", uid: 1, command: false });
  ledger.add({ messageId: "b", chatId: "t", uid: 2, command: true });
  ledger.add({ messageId: "other", chatId: "u", uid: 3, command: false });
  const prompt = ledger.settleBySend("t", null, ledger.horizon);
  assert.deepEqual(
    prompt.map((m) => m.messageId),
    ["b"],
  );
  const horizon = ledger.horizon;
  ledger.add({ messageId: "c", chatId: "t", uid: 4, command: true });
  const reply = ledger.settleBySend("t", "a", horizon);
  assert.deepEqual(
    reply.map((m) => m.messageId),
    ["a"],
    "a command that came after the send began waits",
  );
  assert.ok(ledger.isPending("c") && ledger.isPending("other"));
  assert.ok(ledger.isSettled("a") && ledger.isSettled("b"));
});
