/**
 * A chat's answers keep their order when another replica's delivery sweep claims an answer a turn
 * has just recorded (between the turn's insert and its own claim) and then dies before sending
 * it, or is slow to send it: the turn waits for that send, or takes it over once it is stale,
 * before it goes on to the chat's next message.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { DeliveryQueue, POSSIBLE_DUPLICATE_NOTE } from "../../src/gateway/delivery.js";
import type { OutboundText, SentMessage } from "../../src/gateway/types.js";
import { type GatewayStore, openGatewayStore } from "../../src/state/gateway-store.js";
import { postgresOrSkip } from "../helpers/postgres.js";

/** The other replica's platform connection: a send starts and finishes only when the test says. */
class HeldAdapter extends TestAdapter {
  private started!: () => void;
  readonly sendStarted = new Promise<void>((resolve) => {
    this.started = resolve;
  });
  private finish: (() => void) | undefined;
  private readonly finished = new Promise<void>((resolve) => {
    this.finish = resolve;
  });

  override async send(message: OutboundText): Promise<SentMessage> {
    this.started();
    await this.finished;
    return super.send(message);
  }

  /** Lets the held send reach the platform (a replica that is slow, not dead). */
  release(): void {
    this.finish?.();
  }
}

/** Two replicas on one ledger; the other's sweep claims the first answer the turn records. */
async function twoReplicas(url: string, other: { staleSendingMs: number; dies: boolean }) {
  const { staleSendingMs } = other;
  const [turnStore, otherStore] = await Promise.all([openGatewayStore(url), openGatewayStore(url)]);
  const held = new HeldAdapter({ platform: "bus" });
  const otherQueue = new DeliveryQueue({
    store: otherStore,
    adapter: () => held,
    staleSendingMs,
    sweepIntervalMs: 3_600_000,
  });
  const record = turnStore.recordDelivery.bind(turnStore);
  let raced = false;
  turnStore.recordDelivery = async (...args: Parameters<GatewayStore["recordDelivery"]>) => {
    const recorded = await record(...args);
    if (!raced) {
      raced = true;
      // The other replica's periodic sweep runs now and claims the answer before the turn does.
      void otherQueue.sweep();
      await held.sendStarted;
    }
    return recorded;
  };
  const own = new TestAdapter({ platform: "bus" });
  const waiting: string[] = [];
  const turnQueue = new DeliveryQueue({
    store: turnStore,
    adapter: () => own,
    staleSendingMs,
    log: (line) => {
      if (line.includes("waiting for it")) {
        waiting.push(line);
        if (!other.dies) held.release();
      }
    },
  });
  const close = async () => {
    await turnQueue.stop();
    turnStore.close();
    otherStore.close();
  };
  return { own, other: held, waiting, turnQueue, close };
}

const answer = (index: number) => ({
  platform: "bus",
  chatId: "chat-16",
  text: `answer c16-m${index}`,
  idempotencyKey: `reply-c16-m${index}-0`,
  reclaimInFlight: true,
});

const pg = postgresOrSkip();

if (pg) {
  test("postgres: an answer another replica claimed and died sending goes out before the chat's next answer", async () => {
    // The other replica never finishes its send: it was SIGKILLed.
    const { own, turnQueue, close } = await twoReplicas(await pg.database(), { staleSendingMs: 400, dies: true });
    try {
      await turnQueue.deliver(answer(11));
      await turnQueue.deliver(answer(12));
      assert.deepEqual(
        own.sent.map((message) => message.text),
        [`${POSSIBLE_DUPLICATE_NOTE}\nanswer c16-m11`, "answer c16-m12"],
        "the dead replica's claim is taken over once stale, flagged, and before the next answer",
      );
    } finally {
      await close();
    }
  });

  test("postgres: an answer another live replica is sending is waited for, not repeated, before the next answer", async () => {
    // Its send reaches the platform once the turn waits for it: long before it would count as stale.
    const { own, other, waiting, turnQueue, close } = await twoReplicas(await pg.database(), {
      staleSendingMs: 60_000,
      dies: false,
    });
    try {
      const outcome = await turnQueue.deliver(answer(11));
      assert.equal(waiting.length, 1, "the turn waited for the other replica's send");
      assert.equal(outcome.state, "sent", "the turn hears that its answer went out");
      await turnQueue.deliver(answer(12));
      assert.deepEqual(
        other.sent.map((message) => message.text),
        ["answer c16-m11"],
      );
      assert.deepEqual(
        own.sent.map((message) => message.text),
        ["answer c16-m12"],
        "nothing sent twice",
      );
    } finally {
      await close();
    }
  });
  test("postgres: an answer whose send failed on a replica that died is retried when due, before the chat's next answer", async () => {
    const url = await pg.database();
    const [turnStore, deadStore] = await Promise.all([openGatewayStore(url), openGatewayStore(url)]);
    const own = new TestAdapter({ platform: "bus" });
    const turnQueue = new DeliveryQueue({ store: turnStore, adapter: () => own, staleSendingMs: 60_000 });
    try {
      // The dead replica's turn recorded the answer, its first attempt failed, and it died before the retry.
      const now = Date.now();
      const first = answer(11);
      await deadStore.recordDelivery(
        { id: "m11", ...first, body: { text: first.text }, idempotencyKey: first.idempotencyKey },
        now,
      );
      await deadStore.claimSending("m11", now);
      await deadStore.markRetry("m11", "HTTP 502", now + 300, now);
      const outcome = await turnQueue.deliver(first);
      assert.equal(outcome.state, "sent", "the turn run again waits for the retry rather than going on");
      await turnQueue.deliver(answer(12));
      assert.deepEqual(
        own.sent.map((message) => message.text),
        ["answer c16-m11", "answer c16-m12"],
      );
    } finally {
      await turnQueue.stop();
      turnStore.close();
      deadStore.close();
    }
  });
}
