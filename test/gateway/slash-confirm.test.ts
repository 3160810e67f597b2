/**
 * /new and /undo in a chat ask before throwing a conversation away: buttons where the platform
 * has them, a text question otherwise; the answer is `/new confirm`, `/new always` or `/new cancel`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import type { QuestionPrompt } from "../../src/gateway/types.js";
import { loadConfigAsync } from "../../src/state/config-load.js";
import { type GatewayHarness, type GatewayHarnessOptions, startGateway } from "./harness.js";

const SESSION_KEY = "agent:main:test:dm:chat-1";
const replyCount = {
  fallback: (req: { body: { messages: unknown[] } }) => ({ text: `reply ${req.body.messages.length}` }),
};

/** A chat with a gateway: send a command and read the one message it answers with. */
async function chat(options: GatewayHarnessOptions = {}) {
  const gw = await startGateway({ provider: replyCount, ...options });
  let id = 0;
  const replies = () => gw.adapter.texts().filter((text) => text.startsWith("reply "));
  return {
    gw,
    /** Sends a message to the agent and waits for its answer. */
    async talk(text: string): Promise<void> {
      const before = replies().length;
      gw.adapter.inject({ messageId: String(++id), text });
      await gw.adapter.waitFor(() => replies().length > before);
    },
    /** Sends a command and returns the text it answers with. */
    async command(text: string): Promise<string> {
      const before = gw.adapter.sent.length;
      gw.adapter.inject({ messageId: String(++id), text });
      await gw.adapter.waitFor((sent) => sent.length > before);
      return gw.adapter.sent[before]!.current;
    },
    /** Sends a command that answers with buttons, and returns the prompt shown. */
    async buttons(text: string): Promise<QuestionPrompt> {
      const before = gw.adapter.prompts.length;
      gw.adapter.inject({ messageId: String(++id), text });
      await gw.adapter.waitFor(() => gw.adapter.prompts.length > before);
      return gw.adapter.prompts[before] as QuestionPrompt;
    },
    async sessionId(): Promise<string | undefined> {
      return (await gw.store.sessionRoute(SESSION_KEY))?.sessionId;
    },
  };
}

async function userMessages(gw: GatewayHarness, sessionId: string | undefined): Promise<unknown[]> {
  const messages = await gw.runtime.store.getMessages(sessionId ?? "");
  return messages.filter((m) => m.role === "user").map((m) => m.content);
}

test("in text: /new asks, /new cancel keeps the conversation, /new confirm starts a new one", async () => {
  const c = await chat();
  try {
    await c.talk("hello");
    const first = await c.sessionId();
    const question = await c.command("/new");
    assert.match(question, /^⚠ Start a new conversation\? This one \(2 messages\) stays saved/);
    assert.match(question, /Reply \/new confirm to go ahead, \/new always to go ahead and stop asking/);
    assert.match(question, /approvals\.destructive_slash_confirm: false/);
    assert.match(question, /No answer in 60 s means cancel\./);
    assert.equal(await c.command("/new cancel"), "Cancelled: nothing changed.");
    assert.equal(await c.sessionId(), first);
    assert.match(await c.command("/new confirm"), /^Nothing is waiting for \/new to be confirmed/, "cancel closed it");
    await c.command("/new");
    assert.equal(await c.command("/new confirm"), "Started a new conversation.");
    assert.notEqual(await c.sessionId(), first);
    assert.deepEqual(await userMessages(c.gw, first), ["hello"], "the old conversation stays saved");
  } finally {
    await c.gw.close();
  }
});

test("with buttons: the question shows three buttons and a press (the button's text) answers it", async () => {
  const c = await chat({ adapter: () => new TestAdapter({ buttons: true }) });
  try {
    await c.talk("one");
    await c.talk("two");
    const prompt = await c.buttons("/undo");
    assert.match(
      prompt.question,
      /^Forget the last exchange \("two"\)\? It is removed from the saved conversation too\./,
    );
    assert.match(prompt.question, /no answer in 60 s means cancel/);
    assert.deepEqual(prompt.choices, ["/undo confirm", "/undo always", "/undo cancel"]);
    assert.equal(await c.command(prompt.choices[0]!), 'Forgot the last exchange ("two").');
    assert.deepEqual(await userMessages(c.gw, await c.sessionId()), ["one"]);
  } finally {
    await c.gw.close();
  }
});

test("a platform whose buttons fail gets the question in text", async () => {
  const adapter = new TestAdapter({ buttons: true });
  adapter.askQuestion = async () => {
    throw new Error("keyboard rejected");
  };
  const c = await chat({ adapter: () => adapter });
  try {
    await c.talk("hello");
    assert.match(await c.command("/new"), /Reply \/new confirm to go ahead/);
    assert.ok(c.gw.logs.some((line) => /question buttons failed \(keyboard rejected\)/.test(line)));
  } finally {
    await c.gw.close();
  }
});

test("/new always goes ahead, saves approvals.destructive_slash_confirm: false, and /new and /undo stop asking", async () => {
  const c = await chat();
  try {
    await c.talk("hello");
    await c.command("/new");
    const answer = await c.command("/new always");
    assert.equal(
      answer,
      "Started a new conversation.\nSaved approvals.destructive_slash_confirm: false to config.yaml; this is not asked again.",
    );
    assert.match(readFileSync(join(c.gw.home, "config.yaml"), "utf8"), /destructive_slash_confirm: false/);
    assert.equal((await loadConfigAsync({ home: c.gw.home })).config.approvals.destructive_slash_confirm, false);
    await c.talk("again");
    assert.equal(await c.command("/undo"), 'Forgot the last exchange ("again").');
    await c.talk("more");
    assert.equal(await c.command("/new"), "Started a new conversation.");
  } finally {
    await c.gw.close();
  }
});

test("once there is an admin, only the admin may answer always; confirm still goes ahead", async () => {
  const c = await chat();
  try {
    await c.gw.store.approveUser({ platform: "test", userId: "someone-else", userName: null, admin: true });
    await c.talk("hello");
    await c.command("/new");
    assert.match(await c.command("/new always"), /^Only the admin can turn this question off for good/);
    assert.equal((await loadConfigAsync({ home: c.gw.home })).config.approvals.destructive_slash_confirm, true);
    assert.equal(await c.command("/new confirm"), "Started a new conversation.", "the question stayed open");
  } finally {
    await c.gw.close();
  }
});

test("-y, --yes and now skip the question; an empty conversation and nothing to undo are not asked about", async () => {
  const c = await chat();
  try {
    assert.equal(await c.command("/new"), "Started a new conversation.");
    assert.equal(await c.command("/undo"), "Nothing to undo.");
    await c.talk("one");
    await c.talk("two");
    assert.equal(await c.command("/undo --yes"), 'Forgot the last exchange ("two").');
    assert.equal(await c.command("/undo -y"), 'Forgot the last exchange ("one").');
    await c.talk("three");
    assert.equal(await c.command("/new now"), "Started a new conversation.");
    await c.talk("four");
    assert.match(await c.command("/new"), /^⚠ Start a new conversation\?/, "the next plain /new asks again");
  } finally {
    await c.gw.close();
  }
});

test("no answer within approvals.timeout is a cancel: a late confirm is refused and nothing changes", async () => {
  let skew = 0;
  const c = await chat({ runner: { now: () => Date.now() + skew } });
  try {
    await c.talk("keep me");
    const first = await c.sessionId();
    await c.command("/new");
    skew = 61_000;
    assert.match(
      await c.command("/new confirm"),
      /^Nothing is waiting for \/new to be confirmed \(an unanswered question expires after 60 s\): send \/new again\.$/,
    );
    assert.equal(await c.sessionId(), first);
  } finally {
    await c.gw.close();
  }
});

test("an answer after the conversation moved on is refused: /undo would remove another exchange", async () => {
  const c = await chat();
  try {
    await c.talk("one");
    assert.match(await c.command("/undo"), /Forget the last exchange \("one"\)/);
    await c.talk("two");
    assert.match(await c.command("/undo confirm"), /^The conversation changed since I asked, so nothing was done/);
    assert.deepEqual(await userMessages(c.gw, await c.sessionId()), ["one", "two"]);
  } finally {
    await c.gw.close();
  }
});

test("with approvals.destructive_slash_confirm: false, /new and /undo act at once as before", async () => {
  const c = await chat({ config: "approvals:\n  destructive_slash_confirm: false\n" });
  try {
    await c.talk("one");
    await c.talk("two");
    assert.equal(await c.command("/undo"), 'Forgot the last exchange ("two").');
    assert.equal(await c.command("/new"), "Started a new conversation.");
  } finally {
    await c.gw.close();
  }
});
