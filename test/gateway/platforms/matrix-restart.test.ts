import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SyncPositionStore } from "../../../src/gateway/adapters/matrix/sync-position.js";
import { bodyOf, dm, finished, startMatrixGateway, until, waitForPoll } from "../../fakes/matrix/gateway.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests, userTexts } from "../harness.js";

const echo = { fallback: (req: Parameters<typeof userTexts>[0]) => ({ text: `heard ${userTexts(req).join(" + ")}` }) };

function savedPosition(home: string): { owner: string; nextBatch: string; savedAt: number } {
  return JSON.parse(readFileSync(join(home, "gateway", "matrix-sync.json"), "utf8"));
}

test("a message sent while the gateway was stopped is answered after the restart; none is answered twice", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({ provider: echo, adapter: { pollTimeoutMs: 200 } });
  try {
    dm(mx, world, "one");
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the first answer");
    await until(() => {
      try {
        return Number(savedPosition(gw.home).nextBatch) >= mx.state.stream.length - 1;
      } catch {
        return false;
      }
    }, "the position saved past the first message");
    assert.equal(savedPosition(gw.home).owner, `${mx.url} ${mx.state.bot.userId}`);

    await gw.restart(() => {
      dm(mx, world, "two, while stopped");
    });
    await mx.waitFor(() => finished(mx, world.dm).length === 2, "the answer to the message sent while stopped");
    assert.equal(bodyOf(finished(mx, world.dm)[1]!), "heard one + two, while stopped");

    dm(mx, world, "three");
    await mx.waitFor(() => finished(mx, world.dm).length === 3, "the next answer");
    const asked = modelRequests(gw.fake).map((r) => userTexts(r).at(-1));
    assert.deepEqual(asked, ["one", "two, while stopped", "three"], "each message reached the model once");
  } finally {
    await close();
  }
});

test("the position is saved at the first sync, so a restart before any long poll ends misses nothing", async () => {
  const { gw, mx, world, close } = await startMatrixGateway({ provider: echo, adapter: { pollTimeoutMs: 60_000 } });
  try {
    const before = mx.state.stream.length;
    await until(() => {
      try {
        return savedPosition(gw.home).nextBatch === String(before);
      } catch {
        return false;
      }
    }, "the first sync's position saved while the first long poll waits");
    await gw.restart(() => {
      dm(mx, world, "sent while stopped");
    });
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the answer after the restart");
    assert.equal(bodyOf(finished(mx, world.dm)[0]!), "heard sent while stopped");
  } finally {
    await close();
  }
});

test("a saved position the homeserver refuses is logged and dropped; the bot goes on from now", async () => {
  const { gw, mx, world, adapterLogs, close } = await startMatrixGateway({
    provider: echo,
    adapter: { pollTimeoutMs: 200 },
  });
  try {
    dm(mx, world, "one");
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the first answer");
    await until(() => {
      try {
        return savedPosition(gw.home).nextBatch !== "";
      } catch {
        return false;
      }
    }, "a saved position");
    await gw.restart(() => {
      const saved = savedPosition(gw.home);
      writeFileSync(join(gw.home, "gateway", "matrix-sync.json"), JSON.stringify({ ...saved, nextBatch: "999999" }));
    });
    await until(() => adapterLogs.some((l) => /refused the saved sync position/.test(l)), "the refusal logged");
    await waitForPoll(mx);
    dm(mx, world, "two");
    await mx.waitFor(() => finished(mx, world.dm).length === 2, "the answer after the refusal");
    assert.equal(bodyOf(finished(mx, world.dm)[1]!), "heard one + two");
  } finally {
    await close();
  }
});

test("a saved position counts only for the same account and homeserver, and for a day", () => {
  const home = tempDir("hermes-matrix-position-");
  let owner = "https://hs.example @bot:example";
  const store = new SyncPositionStore(
    home,
    () => owner,
    () => {},
  );
  store.saveAfter(Promise.resolve(true), "s72_1");
  return store.settled().then(async () => {
    assert.equal(store.load(), "s72_1");
    owner = "https://hs.example @other:example";
    assert.equal(store.load(), undefined, "another account's position is not used");
    owner = "https://hs.example @bot:example";
    const saved = JSON.parse(readFileSync(store.path, "utf8"));
    writeFileSync(store.path, JSON.stringify({ ...saved, savedAt: Date.now() - 25 * 3_600_000 }));
    assert.equal(store.load(), undefined, "a day-old position is dropped");

    const logs: string[] = [];
    const held = new SyncPositionStore(
      home,
      () => owner,
      (line) => logs.push(line),
    );
    held.saveAfter(Promise.resolve(true), "s80_1");
    held.saveAfter(Promise.resolve(false), "s81_1");
    held.saveAfter(Promise.resolve(true), "s82_1");
    await held.settled();
    assert.equal(held.load(), "s80_1", "no position is saved past a batch whose messages were not stored");
    assert.equal(logs.length, 1);
  });
});
