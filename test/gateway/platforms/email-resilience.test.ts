import assert from "node:assert/strict";
import { test } from "node:test";
import { ALICE, startEmailGateway, until } from "../../fakes/email/gateway.js";
import { type MailWorld, startMailWorld } from "../../fakes/email/mail-world.js";
import type { ReceivedMail } from "../../fakes/email/smtp-server.js";
import { gated, modelRequests, untilModelRequests, userTexts } from "../harness.js";

const answersTo = (world: MailWorld, id: string) => world.smtp.received.filter((m) => m.mail.inReplyTo === id);
const replyTo = (id: string) => (m: ReceivedMail) => m.mail.inReplyTo === id;
const echo = {
  fallback: (req: Parameters<typeof userTexts>[0]) => ({ text: `answer to: ${userTexts(req).at(-1)}` }),
};

test("the IMAP connection dies mid-conversation: the adapter reconnects, nothing is lost or doubled, \\Seen follows the answers", async () => {
  const world = await startMailWorld();
  const slow = gated({ text: "answer to the first" });
  const { gw, email, logs } = await startEmailGateway(world, { provider: { script: [slow.step], ...echo } });
  try {
    await email().checkAlive();
    const first = await world.mail({ from: ALICE, subject: "First", text: "first question" });
    await untilModelRequests(gw.fake, 1);
    const connectionsBefore = world.imap.connectionCount;

    world.imap.dropConnections();
    await until(() => gw.logs.some((line) => /email: listener lost/.test(line)), "the lost listener to be reported");
    const second = await world.mail({ from: ALICE, subject: "Second", text: "second question" });
    await world.smtp.waitFor(replyTo(second), "the answer to the mail that came during the outage");
    assert.ok(world.imap.connectionCount > connectionsBefore, "the adapter opened a new IMAP connection");
    await email().checkAlive();
    await until(() => world.imap.seen(second), "the answered second mail to be marked seen");
    assert.equal(world.imap.seen(first), false, "the first mail is not answered yet, so it stays unseen");

    slow.open();
    await world.smtp.waitFor(replyTo(first), "the answer to the first mail");
    await until(() => world.imap.seen(first), "the first mail to be marked seen once answered");
    assert.equal(answersTo(world, first).length, 1);
    assert.equal(answersTo(world, second).length, 1);
    assert.equal(modelRequests(gw.fake).length, 2, "each mail ran once");
    assert.ok(!logs.some((line) => /could not be read/.test(line)));
  } finally {
    await gw.close();
    await world.close();
  }
});

test("a temporary SMTP failure (451) is retried and delivered; the mail is marked seen only after that", async () => {
  const world = await startMailWorld();
  const { gw } = await startEmailGateway(world, { provider: echo });
  try {
    world.smtp.failNext({ code: 451, message: "4.3.0 Mailbox busy, try again later" });
    const original = await world.mail({ from: ALICE, subject: "Retry", text: "hello" });
    const reply = await world.smtp.waitFor(replyTo(original), "the retried reply");
    assert.match(reply.mail.text ?? "", /answer to: Subject: Retry/);
    assert.ok(gw.logs.some((line) => /failed \(the SMTP server asked to try later .*451.*\); retrying/.test(line)));
    await until(() => world.imap.seen(original), "the mail to be marked seen after delivery");
    assert.equal(answersTo(world, original).length, 1);
  } finally {
    await gw.close();
    await world.close();
  }
});

test("a permanent SMTP refusal (550) is not retried, and the unanswered mail stays unseen", async () => {
  const world = await startMailWorld();
  const { gw } = await startEmailGateway(world, { provider: echo });
  try {
    world.smtp.failNext({ code: 550, message: "5.7.1 Relaying denied" });
    const original = await world.mail({ from: ALICE, subject: "Refused", text: "hello" });
    await until(
      () => gw.logs.some((line) => /gave up sending to email.*550 5\.7\.1 Relaying denied/.test(line)),
      "the refusal",
    );
    assert.ok(!gw.logs.some((line) => /retrying/.test(line)));
    assert.equal(world.smtp.received.length, 0);
    assert.equal(world.imap.seen(original), false);
  } finally {
    await gw.close();
    await world.close();
  }
});

test("after a restart, answered mail that shows up unseen again is marked seen, not answered twice", async () => {
  const world = await startMailWorld();
  const { gw, logs } = await startEmailGateway(world, { provider: echo });
  try {
    const original = await world.mail({ from: ALICE, subject: "Once", text: "only once" });
    await world.smtp.waitFor(replyTo(original), "the reply");
    await until(() => world.imap.seen(original), "the mail to be marked seen");
    world.imap.markUnseen(original);
    await gw.restart();
    await until(() => world.imap.seen(original), "the mail to be marked seen again after the restart");
    const later = await world.mail({ from: ALICE, subject: "Later", text: "a new one" });
    await world.smtp.waitFor(replyTo(later), "the reply to a new mail after the restart");
    assert.equal(answersTo(world, original).length, 1);
    assert.equal(modelRequests(gw.fake).length, 2);
    assert.ok(!logs.some((line) => /could not be read/.test(line)));
  } finally {
    await gw.close();
    await world.close();
  }
});

test("unanswered mail left unseen by a stopped gateway is answered after the restart", async () => {
  const world = await startMailWorld();
  const { gw } = await startEmailGateway(world, { provider: echo });
  try {
    await gw.runner.stop();
    const waiting = await world.mail({ from: ALICE, subject: "While down", text: "are you there?" });
    await gw.restart();
    const reply = await world.smtp.waitFor(replyTo(waiting), "the reply after the restart");
    assert.match(reply.mail.text ?? "", /are you there\?/);
    await until(() => world.imap.seen(waiting), "the mail to be marked seen");
  } finally {
    await gw.close();
    await world.close();
  }
});

test("a server without IDLE is polled every EMAIL_POLL_INTERVAL", async () => {
  const world = await startMailWorld({ idle: false });
  const { gw, email } = await startEmailGateway(world, { provider: echo, env: { EMAIL_POLL_INTERVAL: "0.2" } });
  try {
    assert.equal(email().watching, "polling");
    const original = await world.mail({ from: ALICE, subject: "Polled", text: "found by polling" });
    await world.smtp.waitFor(replyTo(original), "the reply");
    await until(() => world.imap.seen(original), "the mail to be marked seen");
  } finally {
    await gw.close();
    await world.close();
  }
});
