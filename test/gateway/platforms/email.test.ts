import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  ALICE,
  type EmailGateway,
  type EmailGatewayOptions,
  startEmailGateway,
  until,
} from "../../fakes/email/gateway.js";
import { AGENT_ADDRESS, type MailWorld, startMailWorld } from "../../fakes/email/mail-world.js";
import type { ReceivedMail } from "../../fakes/email/smtp-server.js";
import { lastToolResults } from "../../helpers/agent-harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests, userTexts } from "../harness.js";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

async function withEmail(
  options: EmailGatewayOptions,
  body: (world: MailWorld, gateway: EmailGateway) => Promise<void>,
): Promise<void> {
  const world = await startMailWorld();
  const gateway = await startEmailGateway(world, options);
  try {
    await body(world, gateway);
  } finally {
    await gateway.gw.close();
    await world.close();
  }
}

const replyTo = (id: string, pattern: RegExp) => (m: ReceivedMail) =>
  m.mail.inReplyTo === id && pattern.test(m.mail.text ?? "");

const referencesOf = (m: ReceivedMail) => [m.mail.references ?? []].flat();

test("a mail gets a threaded reply by SMTP after a turn with a tool call, and is then marked seen", async () => {
  const todo = { todos: [{ id: "1", content: "reply", status: "pending" }] };
  const provider = {
    script: [
      { toolCalls: [{ name: "todo", arguments: todo }] },
      { text: "The answer is **42**. See [the docs](https://example.com/docs).\n\n```\ncode stays\n```" },
    ],
  };
  await withEmail({ provider }, async (world, { gw }) => {
    const original = await world.mail({ from: `Alice <${ALICE}>`, subject: "Question", text: "What is the answer?" });
    const reply = await world.smtp.waitFor(replyTo(original, /42/), "the reply");
    assert.equal(reply.mail.subject, "Re: Question");
    assert.deepEqual(reply.to, [ALICE]);
    assert.equal(reply.from, AGENT_ADDRESS);
    assert.deepEqual(referencesOf(reply), [original]);
    assert.match(reply.mail.text ?? "", /The answer is \*\*42\*\*\. See the docs \(https:\/\/example\.com\/docs\)\./);
    assert.match(reply.mail.text ?? "", /```\ncode stays\n```/);
    const requests = modelRequests(gw.fake);
    assert.equal(requests.length, 2);
    assert.match(userTexts(requests[0]!).at(-1) ?? "", /^Subject: Question\n\nWhat is the answer\?$/);
    assert.ok(lastToolResults(requests[1]!).length > 0, "the tool ran and its result went back to the model");
    await until(() => world.imap.seen(original), "the answered mail to be marked seen");
  });
});

test("a reply in the thread continues the same session; quoted history does not reach the model", async () => {
  const provider = { script: [{ text: "First answer." }, { text: "Second answer." }] };
  await withEmail({ provider }, async (world, { gw }) => {
    const first = await world.mail({ from: ALICE, subject: "Plans", text: "Remember the word pineapple." });
    const answer = await world.smtp.waitFor(replyTo(first, /First answer/), "the first reply");
    const followUp = await world.mail({
      from: ALICE,
      subject: "Re: Plans",
      text: `What was the word?\n\nOn Tue, 3 Mar 2026 at 10:00, Agent <${AGENT_ADDRESS}> wrote:\n> First answer.\n`,
      inReplyTo: answer.mail.messageId as string,
      references: [first, answer.mail.messageId as string],
    });
    const second = await world.smtp.waitFor(replyTo(followUp, /Second answer/), "the second reply");
    assert.equal(second.mail.subject, "Re: Plans");
    assert.deepEqual(referencesOf(second), [first, answer.mail.messageId, followUp]);
    const request = modelRequests(gw.fake)[1]!;
    const texts = userTexts(request);
    assert.equal(texts.at(-1), "What was the word?");
    assert.ok(
      texts.some((t) => t.includes("pineapple")),
      "the earlier mail of the thread is in the same session",
    );
    const routes = await gw.store.sessionRoute(`agent:main:email:dm:${first.replaceAll(":", "%3A")}`);
    assert.ok(routes, "one session key for the whole thread");
  });
});

test("an approval is answered by replying /approve above the quoted prompt", async () => {
  const victim = join(tempDir("hermes-email-victim-"), "victim");
  mkdirSync(victim);
  const provider = {
    script: [{ toolCalls: [{ name: "terminal", arguments: { command: `rm -r ${victim}` } }] }],
    fallback: (req: Parameters<typeof lastToolResults>[0]) => ({ text: `result: ${lastToolResults(req)[0] ?? ""}` }),
  };
  await withEmail({ provider, config: 'sandbox:\n  mode: "off"\n' }, async (world) => {
    const original = await world.mail({ from: ALICE, subject: "Cleanup", text: "Please clean up." });
    const prompt = await world.smtp.waitFor(
      (m) => /needs your approval/.test(m.mail.text ?? ""),
      "the approval prompt",
    );
    assert.match(prompt.mail.text ?? "", /Reply \/approve/);
    assert.equal(prompt.mail.subject, "Re: Cleanup");
    const quoted = (prompt.mail.text ?? "").split("\n").map((line) => `> ${line}`);
    const approval = await world.mail({
      from: ALICE,
      subject: "Re: Cleanup",
      text: ["/approve", "", `On Wed, 4 Mar 2026, Agent <${AGENT_ADDRESS}> wrote:`, ...quoted].join("\n"),
      inReplyTo: prompt.mail.messageId as string,
      references: [original, prompt.mail.messageId as string],
    });
    await world.smtp.waitFor(replyTo(original, /^result:/), "the result after the approval");
    assert.equal(existsSync(victim), false, "the approved command ran");
    await until(() => world.imap.seen(original) && world.imap.seen(approval), "both mails to be marked seen");
  });
});

test("a reply longer than one mail holds goes out as several mails in the thread, in order", async () => {
  const lines = Array.from({ length: 800 }, (_, i) => `line ${String(i).padStart(4, "0")} ${"x".repeat(60)}`);
  const long = lines.join("\n");
  await withEmail({ provider: { script: [{ text: long }] } }, async (world, { email }) => {
    assert.ok(long.length > email().maxMessageLength);
    const original = await world.mail({ from: ALICE, subject: "Long", text: "Write a lot." });
    await until(
      () =>
        world.smtp.received
          .map((m) => m.mail.text ?? "")
          .join("")
          .includes("line 0799"),
      "every part of the reply",
    );
    const parts = world.smtp.received;
    assert.equal(parts.length, 2);
    assert.equal(parts[0]?.mail.inReplyTo, original);
    assert.equal(parts[1]?.mail.inReplyTo, parts[0]?.mail.messageId, "the second part answers the first");
    const joined = parts.map((m) => (m.mail.text ?? "").trim()).join("\n");
    assert.equal(joined.replaceAll(/\s+/g, " "), long.replaceAll(/\s+/g, " "));
  });
});

test("an unknown sender gets a pairing code once; an allowed sender is answered", async () => {
  await withEmail({ provider: { fallback: () => ({ text: "Hello Alice." }) } }, async (world, { gw }) => {
    const stranger = await world.mail({ from: "mallory@example.test", subject: "Hi", text: "Let me in." });
    const pairing = await world.smtp.waitFor(replyTo(stranger, /pairing code/), "the pairing reply");
    assert.deepEqual(pairing.to, ["mallory@example.test"]);
    const again = await world.mail({ from: "mallory@example.test", subject: "Hi?", text: "Let me in!" });
    const refusals = () => gw.logs.filter((line) => /refused email user mallory@example\.test/.test(line)).length;
    await until(() => refusals() === 2, "the second mail to be refused");
    assert.equal(world.smtp.received.filter((m) => /pairing code/.test(m.mail.text ?? "")).length, 1);
    await until(() => world.imap.seen(again), "the second refused mail to be marked seen");
    const allowed = await world.mail({ from: ALICE, subject: "Hi", text: "Hello?" });
    await world.smtp.waitFor(replyTo(allowed, /Hello Alice/), "the answer to Alice");
    assert.equal(modelRequests(gw.fake).length, 1, "only Alice's mail reached the model");
    await until(() => world.imap.seen(stranger) && world.imap.seen(allowed), "both mails marked seen");
  });
});

test("with unauthorized_dm_behavior: ignore, an unknown sender gets nothing and a spoofed display name does not help", async () => {
  const options = { config: "unauthorized_dm_behavior: ignore\n", provider: { fallback: () => ({ text: "hi" }) } };
  await withEmail(options, async (world, { gw }) => {
    const stranger = await world.mail({ from: `"${ALICE}" <mallory@example.test>`, text: "Let me in." });
    await until(() => gw.logs.some((l) => /refused email user mallory@example\.test/.test(l)), "the refusal");
    await until(() => world.imap.seen(stranger), "the refused mail to be marked seen");
    assert.equal(world.smtp.received.length, 0);
    assert.equal(modelRequests(gw.fake).length, 0);
  });
});

test("auto-replies, bounces, list mail and our own mail are not answered, and are marked seen", async () => {
  await withEmail({ provider: { fallback: () => ({ text: "answered" }) } }, async (world, { gw, logs }) => {
    const skipped = [
      await world.mail({ from: ALICE, subject: "Out of office", headers: { "Auto-Submitted": "auto-replied" } }),
      await world.mail({ from: ALICE, subject: "Newsletter", headers: { Precedence: "bulk" } }),
      await world.mail({ from: "MAILER-DAEMON@example.test", subject: "Undelivered Mail Returned to Sender" }),
      await world.mail({ from: AGENT_ADDRESS, subject: "Re: something", text: "our own" }),
    ];
    await until(() => skipped.every((id) => world.imap.seen(id)), "the skipped mails to be marked seen");
    const real = await world.mail({ from: ALICE, subject: "Real", text: "A real question" });
    await world.smtp.waitFor(replyTo(real, /answered/), "the answer to the real mail");
    assert.equal(world.smtp.received.length, 1);
    assert.equal(modelRequests(gw.fake).length, 1);
    assert.equal(logs.filter((line) => /not answering/.test(line)).length, 4);
  });
});

test("attachments in are saved to the cache (an image reaches the model); a file out is mailed in the thread", async () => {
  const outDir = tempDir("hermes-email-out-");
  const report = join(outDir, "report.txt");
  writeFileSync(report, "quarterly numbers\n");
  const provider = { script: [{ text: `Here is the report.\nMEDIA:${report}` }] };
  await withEmail({ provider, config: "agent:\n  image_input_mode: native\n" }, async (world, { gw }) => {
    const original = await world.mail({
      from: ALICE,
      subject: "Files",
      text: "What is in these?",
      attachments: [
        { filename: "cat.png", content: PNG, contentType: "image/png" },
        { filename: "../../notes.txt", content: Buffer.from("hello"), contentType: "text/plain" },
      ],
    });
    const withFile = await world.smtp.waitFor((m) => m.mail.attachments.length > 0, "the mail carrying the file");
    const text = await world.smtp.waitFor(replyTo(original, /Here is the report/), "the text reply");
    assert.doesNotMatch(text.mail.text ?? "", /MEDIA:/);
    assert.equal(withFile.mail.attachments[0]?.filename, "report.txt");
    assert.equal(withFile.mail.attachments[0]?.content.toString(), "quarterly numbers\n");
    assert.equal(withFile.mail.subject, "Re: Files");
    assert.ok(referencesOf(withFile).includes(original), "the file mail is in the same thread");

    const messages = modelRequests(gw.fake)[0]?.body?.messages as Array<{ role: string; content: unknown }>;
    const parts = messages.filter((m) => m.role === "user").at(-1)?.content as Array<{
      type: string;
      text?: string;
      image_url?: { url: string };
    }>;
    assert.ok(Array.isArray(parts), "the user turn is a list of parts");
    assert.match(parts[0]?.text ?? "", /What is in these\?/);
    const cache = join(gw.home, "cache", "email");
    assert.match(parts[0]?.text ?? "", new RegExp(`notes\\.txt.*saved at ${cache}/[^/\\s]*notes\\.txt`));
    assert.equal(parts[1]?.image_url?.url, `data:image/png;base64,${PNG.toString("base64")}`);
  });
});

test("someone else writing into a thread gets a conversation of their own; the thread's replies still go to its owner", async () => {
  const provider = {
    fallback: (req: Parameters<typeof userTexts>[0]) => ({ text: `seen ${userTexts(req).length} message(s)` }),
  };
  const options = { provider, env: { EMAIL_ALLOWED_USERS: `${ALICE},bob@example.test` } };
  await withEmail(options, async (world) => {
    const first = await world.mail({ from: ALICE, subject: "Private", text: "my secret plan" });
    const answer = await world.smtp.waitFor(replyTo(first, /seen 1 message/), "the answer to Alice");
    const references = [first, answer.mail.messageId as string];
    const intruder = await world.mail({
      from: "bob@example.test",
      subject: "Re: Private",
      text: "what was the plan?",
      inReplyTo: answer.mail.messageId as string,
      references,
    });
    const toBob = await world.smtp.waitFor(replyTo(intruder, /seen 1 message/), "a fresh session for Bob");
    assert.deepEqual(toBob.to, ["bob@example.test"]);
    const followUp = await world.mail({
      from: ALICE,
      subject: "Re: Private",
      text: "and now?",
      inReplyTo: answer.mail.messageId as string,
      references,
    });
    const toAlice = await world.smtp.waitFor(replyTo(followUp, /seen 2 message/), "Alice's session, continued");
    assert.deepEqual(toAlice.to, [ALICE]);
  });
});

test("a message to a plain address (home channel, scheduled job) starts a thread; the answer to it continues that chat", async () => {
  const provider = {
    fallback: (req: Parameters<typeof userTexts>[0]) => ({ text: `got: ${userTexts(req).at(-1)}` }),
  };
  await withEmail({ provider }, async (world, { gw }) => {
    const outcome = await gw.runner.deliveries.deliver({
      platform: "email",
      chatId: ALICE,
      sessionKey: null,
      text: "Daily report\nEverything is fine.",
    });
    assert.equal(outcome.state, "sent");
    const report = await world.smtp.waitFor((m) => m.mail.subject === "Daily report", "the report mail");
    assert.deepEqual(report.to, [ALICE]);
    assert.equal(report.mail.inReplyTo, undefined);
    const answer = await world.mail({
      from: ALICE,
      subject: "Re: Daily report",
      html: "<p>Thanks, <b>noted</b>.</p><blockquote>Everything is fine.</blockquote>",
      inReplyTo: report.mail.messageId as string,
      references: [report.mail.messageId as string],
    });
    const reply = await world.smtp.waitFor(
      replyTo(answer, /^got: Thanks, noted\.\s*$/),
      "the answer, without the quoted HTML",
    );
    assert.equal(reply.mail.subject, "Re: Daily report");
    assert.ok(await gw.store.sessionRoute(`agent:main:email:dm:${ALICE}`), "the chat is the address itself");
  });
});
