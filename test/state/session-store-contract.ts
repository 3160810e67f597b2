/** The behaviour every SessionStore backend must have; each backend's test file registers it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type SessionStore, SessionStoreError, type StoredMessage } from "../../src/state/session-store.js";

export const TURN: StoredMessage[] = [
  { role: "user", content: "Please refactor the tokenizer module" },
  {
    role: "assistant",
    content: null,
    reasoning: "I should read the file first.",
    reasoningContinuity: {
      anthropicThinking: [{ type: "thinking", thinking: "read first", signature: "sig==" }],
      openrouterDetails: [{ type: "reasoning.text", text: "x" }],
    },
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"src/tokenizer.ts"}' } },
      {
        id: "call_2",
        type: "function",
        function: { name: "terminal", arguments: '{"command":"npm test"}' },
        responseItemId: "fc_2",
      },
    ],
    finish_reason: "tool_calls",
  },
  { role: "tool", content: "export function tokenize() {}", tool_call_id: "call_1", name: "read_file" },
  { role: "tool", content: '{"exit_code":0}', tool_call_id: "call_2", name: "terminal" },
  {
    role: "user",
    content: [
      { type: "text", text: "Here is a screenshot of the failing widget" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" } },
    ],
  },
  { role: "assistant", content: "The tokenizer is refactored.", finish_reason: "stop" },
];

export function sessionStoreContract(backend: string, freshStore: () => Promise<SessionStore>): void {
  test(`${backend}: messages round-trip exactly in the internal shape, in order`, async () => {
    const store = await freshStore();
    const session = await store.createSession({ source: "cli", model: "anthropic/claude-opus-4.6" });
    const first = await store.appendMessage(session.id, TURN[0]!);
    const rest = await store.appendMessages(session.id, TURN.slice(1));
    assert.equal(rest.length, TURN.length - 1);
    assert.ok(rest.every((id) => id > first));
    assert.deepEqual(await store.getMessages(session.id), TURN);
    const after = await store.getSession(session.id);
    assert.equal(after?.messageCount, TURN.length);
    assert.ok((after?.lastActive ?? 0) >= session.startedAt);
    store.close();
  });

  test(`${backend}: the system prompt is stored and returned byte for byte`, async () => {
    const store = await freshStore();
    const prompt = "You are Hermes.\r\n\tTrailing spaces   \n🦉 ünïcödé\u0000end\n\n";
    const session = await store.createSession({ systemPrompt: prompt });
    assert.equal((await store.getSession(session.id))?.systemPrompt, prompt);
    const changed = await store.updateSession(session.id, { systemPrompt: `${prompt}more` });
    assert.equal(changed.systemPrompt, `${prompt}more`);
    store.close();
  });

  test(`${backend}: session CRUD: create, get, update, usage, rename, delete`, async () => {
    const store = await freshStore();
    const created = await store.createSession({ id: "20250101_000000_abcdef", source: "telegram", title: "t" });
    assert.equal(created.id, "20250101_000000_abcdef");
    assert.equal(created.source, "telegram");
    await assert.rejects(store.createSession({ id: created.id }), SessionStoreError);
    assert.equal(await store.getSession("nope"), null);

    const updated = await store.updateSession(created.id, {
      model: "m",
      endedAt: 1234,
      promptTokens: 10,
      estimatedCost: 0.5,
      parentSessionId: "parent",
    });
    assert.equal(updated.model, "m");
    assert.equal(updated.endedAt, 1234);
    assert.equal(updated.promptTokens, 10);
    assert.equal(updated.parentSessionId, "parent");
    await store.recordUsage(created.id, {
      promptTokens: 5,
      completionTokens: 7,
      cacheReadTokens: 3,
      cacheWriteTokens: 2,
      estimatedCost: 0.25,
    });
    await store.recordUsage(created.id, { promptTokens: 1 });
    const usage = await store.getSession(created.id);
    assert.equal(usage?.promptTokens, 16);
    assert.equal(usage?.completionTokens, 7);
    assert.equal(usage?.cacheReadTokens, 3);
    assert.equal(usage?.cacheWriteTokens, 2);
    assert.equal(usage?.totalTokens, 13);
    assert.equal(usage?.estimatedCost, 0.75);

    await store.rename(created.id, "New title");
    assert.equal((await store.getSession(created.id))?.title, "New title");
    await assert.rejects(store.rename("missing", "x"), /no session with id "missing"/);
    await assert.rejects(store.updateSession("missing", { title: "x" }), SessionStoreError);
    await assert.rejects(store.recordUsage("missing", { promptTokens: 1 }), SessionStoreError);
    await assert.rejects(
      store.appendMessage("missing", { role: "user", content: "x" }),
      /no session with id "missing"/,
    );

    await store.appendMessage(created.id, { role: "user", content: "cascade me please" });
    assert.equal(await store.deleteSession(created.id), true);
    assert.equal(await store.deleteSession(created.id), false);
    assert.deepEqual(await store.getMessages(created.id), []);
    assert.deepEqual(await store.search("cascade"), []);
    assert.equal((await store.stats()).messages, 0);
    store.close();
  });

  test(`${backend}: listSessions is newest first, with limit, source and since filters and a preview`, async () => {
    const store = await freshStore();
    const old = await store.createSession({ id: "a", source: "cli", startedAt: 1_000 });
    const mid = await store.createSession({ id: "b", source: "telegram", startedAt: 2_000 });
    const recent = await store.createSession({ id: "c", source: "cli" });
    await store.appendMessage(recent.id, { role: "system", content: "sys" });
    await store.appendMessage(recent.id, { role: "user", content: "first question here" });
    assert.deepEqual(
      (await store.listSessions()).map((s) => s.id),
      [recent.id, mid.id, old.id],
    );
    assert.equal((await store.listSessions())[0]?.preview, "first question here");
    assert.deepEqual(
      (await store.listSessions({ limit: 2 })).map((s) => s.id),
      [recent.id, mid.id],
    );
    assert.deepEqual(
      (await store.listSessions({ source: "cli" })).map((s) => s.id),
      [recent.id, old.id],
    );
    assert.deepEqual(
      (await store.listSessions({ since: 1_500 })).map((s) => s.id),
      [recent.id, mid.id],
    );
    store.close();
  });

  test(`${backend}: search ranks by relevance, highlights matches in a snippet, and filters by role and source`, async () => {
    const store = await freshStore();
    const cli = await store.createSession({ source: "cli", title: "Parser work" });
    const tg = await store.createSession({ source: "telegram" });
    await store.appendMessages(cli.id, [
      { role: "user", content: "The parser crashes on nested brackets. Fix the parser, the parser is important." },
      { role: "assistant", content: "I looked at the lexer and the parser." },
      { role: "tool", content: "grep: 3 matches for lexer", tool_call_id: "c", name: "search_files" },
    ]);
    await store.appendMessage(tg.id, { role: "user", content: "Weather in Paris and a note about one parser" });
    const hits = await store.search("parser");
    assert.equal(hits.length, 3);
    assert.equal(hits[0]?.sessionId, cli.id, "the message that repeats the term ranks first");
    assert.ok(hits[0]!.rank <= hits[1]!.rank && hits[1]!.rank <= hits[2]!.rank);
    assert.match(hits[0]!.snippet, /\*\*parser\*\*/);
    assert.equal(hits[0]?.sessionTitle, "Parser work");
    assert.equal(hits[0]?.sessionSource, "cli");

    assert.deepEqual(
      (await store.search("parser", { source: "telegram" })).map((h) => h.sessionId),
      [tg.id],
    );
    assert.deepEqual(
      (await store.search("parser", { role: "assistant" })).map((h) => h.role),
      ["assistant"],
    );
    assert.equal((await store.search("parser", { limit: 1 })).length, 1);
    const custom = await store.search("lexer", { highlight: ["<b>", "</b>"], role: "tool" });
    assert.match(custom[0]!.snippet, /<b>lexer<\/b>/);
    assert.equal((await store.search("parser OR weather")).length, 3);
    assert.equal((await store.search('"nested brackets"')).length, 1);
    assert.equal((await store.search("lex*")).length, 2);
    store.close();
  });

  test(`${backend}: hostile search queries never surface FTS syntax errors`, async () => {
    const store = await freshStore();
    const s = await store.createSession();
    await store.appendMessage(s.id, { role: "user", content: "foo and bar (baz)" });
    const hostile = [
      '"foo AND (',
      "foo AND (",
      "*",
      "NEAR(",
      "a:b",
      "^foo",
      '""',
      ")",
      "-foo",
      'foo"bar',
      "OR",
      "AND OR NOT",
      "'",
      "foo*bar*",
    ];
    for (const query of hostile) {
      const hits = await store.search(query);
      assert.ok(Array.isArray(hits), query);
    }
    assert.equal((await store.search('"foo AND (')).length, 1);
    assert.deepEqual(await store.search("   "), []);
    store.close();
  });

  test(`${backend}: text inside content-part arrays is searchable; image data is not`, async () => {
    const store = await freshStore();
    const s = await store.createSession();
    await store.appendMessage(s.id, TURN[4]!);
    assert.equal((await store.search("screenshot widget")).length, 1);
    assert.deepEqual(await store.search("iVBORw0KGgo"), []);
    assert.deepEqual(await store.search("image_url"), []);
    store.close();
  });

  test(`${backend}: prune deletes sessions (and their messages) idle for longer than the given days`, async () => {
    const store = await freshStore();
    const day = 86_400_000;
    const old = await store.createSession({ source: "cli", startedAt: Date.now() - 40 * day });
    const oldCron = await store.createSession({ source: "cron", startedAt: Date.now() - 40 * day });
    const fresh = await store.createSession({ source: "cli", startedAt: Date.now() - 2 * day });
    await store.appendMessage(fresh.id, { role: "user", content: "keep" });
    assert.equal(await store.prune({ olderThanDays: 30, source: "cron" }), 1);
    assert.equal(await store.getSession(oldCron.id), null);
    assert.equal(await store.prune({ olderThanDays: 30 }), 1);
    assert.equal(await store.getSession(old.id), null);
    assert.ok(await store.getSession(fresh.id));
    assert.equal(await store.prune({ olderThanDays: 30 }), 0);
    await assert.rejects(async () => store.prune({ olderThanDays: Number.NaN }), SessionStoreError);
    store.close();
  });

  test(`${backend}: stats counts sessions, messages, sources, tokens and bytes`, async () => {
    const store = await freshStore();
    const a = await store.createSession({ source: "cli" });
    await store.createSession({ source: "discord" });
    await store.appendMessages(a.id, TURN);
    await store.recordUsage(a.id, { promptTokens: 100, completionTokens: 20, estimatedCost: 0.01 });
    const stats = await store.stats();
    assert.equal(stats.sessions, 2);
    assert.equal(stats.messages, TURN.length);
    assert.deepEqual(stats.bySource, { cli: 1, discord: 1 });
    assert.equal(stats.totalTokens, 120);
    assert.equal(stats.estimatedCost, 0.01);
    assert.equal(stats.unpricedSessions, 1, "the discord session has no known cost");
    assert.ok((stats.bytes ?? 0) > 0);
    assert.ok(stats.newestActivity !== null);
    store.close();
  });

  test(`${backend}: export then import reproduces the session exactly, in the same or another store`, async () => {
    const store = await freshStore();
    const s = await store.createSession({ source: "slack", title: "Export me", systemPrompt: "sys\n", model: "m" });
    await store.appendMessages(s.id, TURN);
    await store.recordUsage(s.id, { promptTokens: 9, completionTokens: 1 });
    const exported = await store.exportSession(s.id);
    assert.equal(exported.format, "hermes-session");
    assert.equal(exported.messages.length, TURN.length);
    const roundTripped = JSON.parse(JSON.stringify(exported));

    await assert.rejects(store.importSession(roundTripped), /already exists/);
    const replaced = await store.importSession(roundTripped, { replace: true });
    assert.deepEqual(replaced, exported.session);
    assert.deepEqual(await store.exportSession(s.id), exported);

    const other = await freshStore();
    await other.importSession(roundTripped);
    assert.deepEqual(await other.exportSession(s.id), exported);
    assert.deepEqual(await other.getMessages(s.id), TURN);
    assert.equal((await other.search("tokenizer")).length > 0, true, "imported messages are indexed");

    await assert.rejects(other.importSession({ format: "something-else" }), /not a hermes session export/);
    await assert.rejects(other.exportSession("missing"), SessionStoreError);
    store.close();
    other.close();
  });

  test(`${backend}: truncateMessages keeps the first messages, deletes the rest from the transcript and the index`, async () => {
    const store = await freshStore();
    const session = await store.createSession({ source: "cli" });
    await store.appendMessages(session.id, [
      { role: "system", content: "a system note" },
      { role: "user", content: "keep this question" },
      { role: "assistant", content: "kept answer" },
      { role: "user", content: "undone zebra question" },
      { role: "assistant", content: "undone zebra answer" },
    ]);
    assert.equal(await store.truncateMessages(session.id, 2), 2);
    assert.deepEqual(
      (await store.getMessages(session.id)).map((m) => m.content),
      ["a system note", "keep this question", "kept answer"],
    );
    assert.equal((await store.getSession(session.id))?.messageCount, 3);
    assert.deepEqual(await store.search("zebra"), []);
    assert.equal(await store.truncateMessages(session.id, 5), 0, "nothing beyond the end to delete");
    await assert.rejects(store.truncateMessages("no-such-session", 0), SessionStoreError);
    store.close();
  });

  test(`${backend}: compactInPlace archives the conversation under the same id; archived messages stay searchable, exported, and out of reach of truncation`, async () => {
    const store = await freshStore();
    const session = await store.createSession({ source: "cli", systemPrompt: "first prompt" });
    await store.appendMessages(session.id, TURN);
    const compacted: StoredMessage[] = [
      { role: "user", content: "[summary] the tokenizer was refactored" },
      { role: "assistant", content: "Noted." },
    ];
    await store.compactInPlace(session.id, "rebuilt prompt", compacted);
    assert.deepEqual(await store.getMessages(session.id), compacted);
    const record = await store.getSession(session.id);
    assert.equal(record?.systemPrompt, "rebuilt prompt");
    assert.equal(record?.messageCount, TURN.length + compacted.length, "archived messages are still stored");
    assert.ok(
      (await store.search("screenshot")).some((hit) => hit.sessionId === session.id),
      "an archived message is still found",
    );

    await store.appendMessage(session.id, { role: "user", content: "next question" });
    assert.equal(await store.truncateMessages(session.id, 2), 1, "only the conversation is truncated");
    assert.deepEqual(await store.getMessages(session.id), compacted);

    const exported = await store.exportSession(session.id);
    assert.deepEqual(
      exported.messages.map((m) => Boolean(m.archived)),
      [...TURN.map(() => true), false, false],
    );
    const other = await freshStore();
    await other.importSession(JSON.parse(JSON.stringify(exported)));
    assert.deepEqual(await other.getMessages(session.id), compacted, "an import keeps what was archived archived");
    assert.deepEqual(await other.exportSession(session.id), exported);

    await assert.rejects(store.compactInPlace("no-such-session", "p", compacted), SessionStoreError);
    store.close();
    other.close();
  });

  test(`${backend}: many sessions of one process appending at once all commit, each session in its own order`, async () => {
    const store = await freshStore();
    try {
      const sessions = await Promise.all(
        Array.from({ length: 5 }, () => store.createSession({ source: "api_server" })),
      );
      const appends = sessions.flatMap((session, s) =>
        Array.from({ length: 8 }, (_, i) =>
          store.appendMessage(session.id, { role: i % 2 ? "assistant" : "user", content: `s${s} m${i}` }),
        ),
      );
      const ids = await Promise.all(appends);
      assert.equal(new Set(ids).size, 40);
      for (const [s, session] of sessions.entries()) {
        const messages = await store.getMessages(session.id);
        assert.deepEqual(
          messages.map((m) => m.content),
          Array.from({ length: 8 }, (_, i) => `s${s} m${i}`),
        );
        assert.equal((await store.getSession(session.id))?.messageCount, 8);
      }
    } finally {
      store.close();
    }
  });
}
