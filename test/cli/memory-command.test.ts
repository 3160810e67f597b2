import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { registerMemoryCommands } from "../../src/cli/commands/memory.js";
import { MemoryStore } from "../../src/state/memory-store.js";
import { openFactStore } from "../../src/state/sqlite-fact-store.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const memory = (home: string, ...args: string[]) => run(registerMemoryCommands, home, ["memory", ...args]);

test("memory setup turns on the local provider, status reports its facts, off turns it off and keeps them", async () => {
  const home = tempHome();
  const before = await memory(home);
  assert.match(before.out, /provider: none \(hermes memory setup turns on the local one\)/);

  const setup = await memory(home, "setup");
  assert.match(setup.out, /Memory provider: local \(0 facts in .*memories\/facts\.db\)\./);
  assert.match(readFileSync(join(home, "config.yaml"), "utf8"), /provider: local/);

  const facts = openFactStore(join(home, "memories", "facts.db"));
  facts.add({ text: "The user's editor is Helix", source: "user" }, Date.UTC(2026, 10, 20));
  facts.close();
  const status = await memory(home, "status");
  assert.match(status.out, /provider: local/);
  assert.match(status.out, /local facts: 1, newest 2026-11-20T00:00:00\.000Z/);
  assert.match(status.out, /embeddings: off \(words only\)/);

  const off = await memory(home, "off");
  assert.match(off.out, /Memory provider local is off\. Its facts stay in .*facts\.db/);
  assert.doesNotMatch(readFileSync(join(home, "config.yaml"), "utf8"), /provider: local/);
  assert.equal((await memory(home, "off")).out, "No memory provider is on.\n");
  assert.ok(existsSync(join(home, "memories", "facts.db")));
});

test("memory setup refuses an unknown provider, and an embeddings endpoint that does not answer, changing nothing", async () => {
  const home = tempHome();
  await assert.rejects(memory(home, "setup", "nonesuch"), /no memory provider "nonesuch" \(known: local\)/);
  const server = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    await assert.rejects(
      memory(home, "setup", "--embedding-url", url),
      /did not answer with an embedding \(HTTP 404\); nothing changed/,
    );
    assert.equal(existsSync(join(home, "config.yaml")), false, "config.yaml untouched");
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("memory setup with a working embeddings endpoint stores it", async () => {
  const home = tempHome();
  const server = createServer((_req, res) => {
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ data: [{ embedding: [0.1, 0.2] }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    const setup = await memory(home, "setup", "--embedding-url", url, "--embedding-model", "nomic-embed-text");
    assert.match(setup.out, /Embeddings from .* answering\./);
    const status = await memory(home);
    assert.match(status.out, new RegExp(`embeddings: ${url.replace(/[.]/g, "\\.")} \\(nomic-embed-text\\)`));
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("memory list and forget work by id; reset needs --yes without a terminal and can empty the files too", async () => {
  const home = tempHome();
  const path = join(home, "memories", "facts.db");
  const facts = openFactStore(path);
  const helix = facts.add({ text: "The user's editor is Helix", source: "user" }, 1).fact.id;
  facts.add({ text: "The user deploys with Fly.io", source: "user" }, 2);
  facts.close();
  const files = new MemoryStore({ dir: join(home, "memories") });
  files.add("user", "Prefers short answers");

  assert.equal(
    (await memory(home, "list")).out,
    `[2] The user deploys with Fly.io\n[${helix}] The user's editor is Helix\n`,
  );
  assert.equal((await memory(home, "forget", String(helix))).out, `Forgot fact ${helix}.\n`);
  await assert.rejects(memory(home, "forget", String(helix)), /no fact with id/);
  await assert.rejects(memory(home, "forget", "abc"), /a fact id is a number/);
  await assert.rejects(memory(home, "list", "--limit", "0"), /--limit must be a positive whole number/);

  await assert.rejects(memory(home, "reset"), /not deleting 1 stored fact without confirmation: pass --yes/);
  const reset = await memory(home, "reset", "--yes", "--files");
  assert.equal(reset.out, "Deleted 1 stored fact and the entries of MEMORY.md and USER.md.\n");
  assert.equal((await memory(home, "list")).out, "No stored facts.\n");
  assert.deepEqual(new MemoryStore({ dir: join(home, "memories") }).entries("user"), []);
});

test("a gateway user's scope has its own facts", async () => {
  const home = tempHome();
  const scoped = openFactStore(join(home, "memories", "scopes", "telegram_alice", "facts.db"));
  scoped.add({ text: "The user's dog is named Pixel", source: "user" }, 1);
  scoped.close();
  assert.equal((await memory(home, "list")).out, "No stored facts.\n");
  assert.match((await memory(home, "list", "--scope", "telegram:alice")).out, /Pixel/);
});
