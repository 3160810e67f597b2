import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { DeliveryQueue, POSSIBLE_DUPLICATE_NOTE } from "../../src/gateway/delivery.js";
import { type GatewayStore, openGatewayStore } from "../../src/state/gateway-store.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { tempDir } from "../state/temp-dir.js";

const STALE_MS = 60_000;

/** A replica's delivery queue on a shared ledger, with a clock the test moves. */
function replica(store: GatewayStore, clock: { now: number }) {
  const adapter = new TestAdapter({ platform: "slack" });
  const queue = new DeliveryQueue({
    store,
    adapter: () => adapter,
    staleSendingMs: STALE_MS,
    sweepIntervalMs: 3_600_000,
    now: () => clock.now,
  });
  return { adapter, queue };
}

const pg = postgresOrSkip();

if (pg) {
  test("postgres: replicas sweeping one ledger send each delivery once", async () => {
    const url = await pg.database();
    const stores = await Promise.all([openGatewayStore(url), openGatewayStore(url), openGatewayStore(url)]);
    const clock = { now: 1000 };
    const replicas = stores.map((store) => replica(store, clock));
    for (let i = 0; i < 40; i++) {
      await stores[0]!.recordDelivery(
        { id: `d${i}`, platform: "slack", chatId: `c${i % 4}`, body: { text: `reply ${i}` }, idempotencyKey: `k${i}` },
        1000,
      );
    }
    await Promise.all(replicas.map(({ queue }) => queue.sweep()));
    const sent = replicas.flatMap(({ adapter }) => adapter.sent.map((message) => message.text));
    assert.equal(sent.length, 40, "every delivery sent once across the replicas");
    assert.equal(new Set(sent).size, 40);
    for (const store of stores) store.close();
  });

  test("postgres: a replica starting up leaves another's send in flight alone, and takes over a dead one's", async () => {
    const url = await pg.database();
    const [busy, starting] = await Promise.all([openGatewayStore(url), openGatewayStore(url)]);
    const clock = { now: 10_000 };
    await busy.recordDelivery(
      { id: "mid-send", platform: "slack", chatId: "c", body: { text: "the answer" }, idempotencyKey: "k" },
      10_000,
    );
    // The first replica has started sending and not finished yet (or died doing so).
    await busy.markSending("mid-send", 10_000);
    const { adapter, queue } = replica(starting, clock);
    await queue.start();
    assert.equal(adapter.sent.length, 0, "a send another replica is making is not repeated");
    assert.equal((await starting.getDelivery("mid-send"))?.state, "sending");
    clock.now += STALE_MS + 1;
    await queue.sweep();
    assert.deepEqual(
      adapter.sent.map((message) => message.text),
      [`${POSSIBLE_DUPLICATE_NOTE}\nthe answer`],
      "in flight for longer than a send takes: its sender died, so it goes out again, flagged",
    );
    assert.equal((await starting.getDelivery("mid-send"))?.state, "sent");
    await queue.stop();
    busy.close();
    starting.close();
  });
}

test("a message delivered again under the same key is sent once: a turn run again after a crash repeats nothing", async () => {
  const store = await openGatewayStore(join(tempDir("hermes-delivery-"), "state.db"));
  const clock = { now: 1000 };
  const { adapter, queue } = replica(store, clock);
  const answer = { platform: "slack", chatId: "c", text: "the answer", idempotencyKey: "reply-abc-0" };
  const first = await queue.deliver(answer);
  const again = await queue.deliver({ ...answer, text: "the answer, worded differently" });
  assert.equal(first.state, "sent");
  assert.equal(again.state, "sent");
  assert.equal(again.record.id, first.record.id, "the ledger's record for that key");
  assert.deepEqual(
    adapter.sent.map((message) => message.text),
    ["the answer"],
  );
  await queue.deliver({ platform: "slack", chatId: "c", text: "unkeyed" });
  await queue.deliver({ platform: "slack", chatId: "c", text: "unkeyed" });
  assert.equal(adapter.sent.length, 3, "without a key every delivery is new");
  store.close();
});
