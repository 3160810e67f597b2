import assert from "node:assert/strict";
import { test } from "node:test";
import { PgConnection } from "../../src/state/postgres/connection.js";
import { PG_SCHEMA_VERSION } from "../../src/state/postgres/schema.js";
import { openSessionStore } from "../../src/state/session-store.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { sessionStoreContract } from "./session-store-contract.js";

const pg = postgresOrSkip();

/** The same database through a pool of its own, as another process (replica) would have. */
const viaOtherPool = (url: string, name: string) => `${url}?application_name=${name}`;

if (pg) {
  sessionStoreContract("postgres", async () => openSessionStore(await pg.database()));

  test("postgres: replicas starting together apply each migration once", async () => {
    const url = await pg.database();
    const connections = await Promise.all(["a", "b", "c"].map((name) => PgConnection.open(viaOtherPool(url, name))));
    const versions = await connections[0]!.query<{ version: number }>("SELECT version FROM schema_version ORDER BY 1");
    assert.deepEqual(
      versions.map((row) => row.version),
      Array.from({ length: PG_SCHEMA_VERSION }, (_, i) => i + 1),
    );
    await Promise.all(connections.map((connection) => connection.close()));
  });

  test("postgres: a schema newer than this hermes is refused with what to do", async () => {
    const url = await pg.database();
    const store = await openSessionStore(url);
    const connection = await PgConnection.open(url);
    await connection.query("INSERT INTO schema_version (version, applied_at) VALUES ($1, 0)", [PG_SCHEMA_VERSION + 1]);
    await connection.close();
    store.close();
    await assert.rejects(
      openSessionStore(viaOtherPool(url, "newer")),
      /schema is version \d+, newer than this hermes knows \(\d+\); upgrade hermes/,
    );
  });

  test("postgres: two replicas appending to one session keep its count and every message", async () => {
    const url = await pg.database();
    const [a, b] = await Promise.all([
      openSessionStore(viaOtherPool(url, "a")),
      openSessionStore(viaOtherPool(url, "b")),
    ]);
    const session = await a.createSession({ source: "telegram" });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).appendMessage(session.id, { role: "user", content: `message ${i}` }),
      ),
    );
    const messages = await b.getMessages(session.id);
    assert.equal(messages.length, 20);
    assert.deepEqual(new Set(messages.map((m) => m.content)).size, 20);
    assert.equal((await a.getSession(session.id))?.messageCount, 20);
    a.close();
    b.close();
  });

  test("postgres: text with NUL characters and the escape character itself round-trips exactly", async () => {
    const store = await openSessionStore(await pg.database());
    const tricky = "binary\u0000output \uFDD0 and \uFDD00 literal";
    const session = await store.createSession({ title: tricky, systemPrompt: tricky });
    await store.appendMessage(session.id, { role: "tool", content: tricky, tool_call_id: "c", name: "terminal" });
    assert.equal((await store.getMessages(session.id))[0]?.content, tricky);
    const read = await store.getSession(session.id);
    assert.equal(read?.title, tricky);
    assert.equal(read?.systemPrompt, tricky);
    assert.match((await store.search("binary"))[0]?.snippet ?? "", /\*\*binary\*\*/);
    store.close();
  });

  test("postgres: a fragment of a word is found by substring when no whole word matches", async () => {
    const store = await openSessionStore(await pg.database());
    const session = await store.createSession({ source: "cli" });
    await store.appendMessages(session.id, [
      { role: "user", content: "Why does parseConfigurationFile throw on empty input?" },
      { role: "assistant", content: "It reads the tokenizer table first." },
    ]);
    const hits = await store.search("ConfigurationFi");
    assert.equal(hits.length, 1);
    assert.match(hits[0]!.snippet, /parse\*\*ConfigurationFi\*\*le/);
    assert.deepEqual(await store.search("ok"), [], "two characters are too few for a substring search");
    assert.equal((await store.search("okenize", { role: "assistant" })).length, 1);
    assert.deepEqual(await store.search("okenize", { role: "user" }), []);
    store.close();
  });
}
