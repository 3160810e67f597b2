import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { createAuxiliaryClient } from "../../src/agent/auxiliary.js";
import { cleanTitle, titleWithAuxiliary } from "../../src/agent/session-title.js";
import { SessionTitler } from "../../src/cli/session-titles.js";
import { openSessionStore, type SessionStore } from "../../src/state/session-store.js";
import { startFakeProvider } from "../fake-provider/server.js";

test("a model's title reply is cleaned to one short line", () => {
  assert.equal(cleanTitle('"Fixing the flaky login test."'), "Fixing the flaky login test");
  assert.equal(cleanTitle("Title: **Refactor tokenizer**\nbecause the user asked"), "Refactor tokenizer");
  assert.equal(cleanTitle("## Deploy notes"), "Deploy notes");
  assert.equal(cleanTitle("   "), "");
  assert.equal(cleanTitle("word ".repeat(30)).length, 60);
});

async function withStore(run: (store: SessionStore) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-titles-"));
  const store = await openSessionStore(join(dir, "state.db"));
  try {
    await run(store);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test("an untitled session is named by the title model, or by its first message without one", async () => {
  await withStore(async (store) => {
    const a = await store.createSession({ source: "cli" });
    const titler = new SessionTitler(async (user, reply) => `About ${user} and ${reply}`);
    titler.afterTurn(store, a.id, "cats", "dogs");
    await titler.settled();
    assert.equal((await store.getSession(a.id))?.title, "About cats and dogs");

    const b = await store.createSession({ source: "cli" });
    const plain = new SessionTitler();
    plain.afterTurn(store, b.id, "  Why does   the build fail on CI?  ", "Because.");
    await plain.settled();
    assert.equal((await store.getSession(b.id))?.title, "Why does the build fail on CI?");

    const failing = new SessionTitler(async () => {
      throw new Error("402 payment required");
    });
    const c = await store.createSession({ source: "cli" });
    failing.afterTurn(store, c.id, "first question", "answer");
    await failing.settled();
    assert.equal((await store.getSession(c.id))?.title, "first question");
  });
});

test("a secret in the first message does not reach the title", async () => {
  await withStore(async (store) => {
    const session = await store.createSession({ source: "cli" });
    const titler = new SessionTitler();
    titler.afterTurn(store, session.id, "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 fails", "ok");
    await titler.settled();
    const title = (await store.getSession(session.id))?.title ?? "";
    assert.doesNotMatch(title, /abcdefghijklmnopqrstuvwxyz/);
    assert.match(title, /^key sk-ant\.\.\.6789 fails$/);
  });
});

test("the title model gets the first exchange with secrets masked, and its reply is cleaned", async () => {
  const fake = await startFakeProvider({ fallback: { text: '"Debugging the login flow."' } });
  try {
    const client = createAuxiliaryClient({
      config: { auxiliary: { title: { provider: "auto", base_url: `${fake.url}/v1`, model: "titler" } } },
      env: {},
    });
    const generate = titleWithAuxiliary(async () => client);
    const title = await generate(
      "login fails with token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "Let us look at it.",
      new AbortController().signal,
    );
    assert.equal(title, "Debugging the login flow");
    const sent = String(fake.requests.at(-1)?.body.messages[1].content);
    assert.match(sent, /^User: login fails with token ghp_/);
    assert.doesNotMatch(sent, /abcdefghijklmnopqrstuvwxyz/);
    assert.match(sent, /Assistant: Let us look at it\.$/);
  } finally {
    await fake.close();
  }
});

test("auxiliary.title.language asks the title model for that language; unset, nothing is said about it", async () => {
  const fake = await startFakeProvider({ fallback: { text: "Anmeldefehler beheben" } });
  try {
    const client = createAuxiliaryClient({
      config: { auxiliary: { title: { provider: "auto", base_url: `${fake.url}/v1`, model: "titler" } } },
      env: {},
    });
    let language = "German";
    const generate = titleWithAuxiliary(
      async () => client,
      () => language,
    );
    assert.equal(await generate("login fails", "Let us look.", new AbortController().signal), "Anmeldefehler beheben");
    assert.match(String(fake.requests.at(-1)?.body.messages[0].content), /Write the title in German\.$/);
    language = "";
    await generate("login fails", "Let us look.", new AbortController().signal);
    assert.doesNotMatch(String(fake.requests.at(-1)?.body.messages[0].content), /Write the title in/);
  } finally {
    await fake.close();
  }
});

test("a title the user set, before or while the model thinks, is kept", async () => {
  await withStore(async (store) => {
    const named = await store.createSession({ source: "cli", title: "Mine" });
    const titler = new SessionTitler(async () => "Model title");
    titler.afterTurn(store, named.id, "hello", "hi");
    await titler.settled();
    assert.equal((await store.getSession(named.id))?.title, "Mine");

    const racing = await store.createSession({ source: "cli" });
    const slow = new SessionTitler(async () => {
      await store.rename(racing.id, "Named meanwhile");
      return "Model title";
    });
    slow.afterTurn(store, racing.id, "hello", "hi");
    await slow.settled();
    assert.equal((await store.getSession(racing.id))?.title, "Named meanwhile");
  });
});

test("closing stops waiting for the title model and falls back to the first message", async () => {
  await withStore(async (store) => {
    const session = await store.createSession({ source: "cli" });
    const titler = new SessionTitler(
      (_user, _reply, signal) =>
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))),
    );
    titler.afterTurn(store, session.id, "the first message", "reply");
    await titler.close();
    assert.equal((await store.getSession(session.id))?.title, "the first message");
  });
});

test("a one-shot run names its session after the prompt, without a second model call", async () => {
  const fake = await startFakeProvider({ fallback: { text: "done" } });
  const home = mkdtempSync(join(tmpdir(), "hermes-titles-cli-"));
  try {
    const args = ["dist/cli/main.js", "chat", "-q", "Summarise the release notes", "--provider", "custom"];
    await promisify(execFile)(process.execPath, [...args, "--base-url", `${fake.url}/v1`, "--model", "m", "--json"], {
      env: { ...process.env, HERMES_HOME: home },
    });
    assert.equal(fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length, 1);
    const store = await openSessionStore(join(home, "state.db"));
    try {
      const [session] = await store.listSessions({ limit: 1 });
      assert.equal(session?.title, "Summarise the release notes");
    } finally {
      store.close();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
    await fake.close();
  }
});
