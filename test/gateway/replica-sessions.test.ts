import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { GatewayRunner } from "../../src/gateway/runner.js";
import { buildSessionKey } from "../../src/gateway/session-key.js";
import { resolveGatewaySettings } from "../../src/gateway/settings.js";
import type { InboundMessage } from "../../src/gateway/types.js";
import { openRuntime } from "../../src/runtime/runtime.js";
import { DEFAULT_CONFIG } from "../../src/state/config-defaults.js";
import type { Coordination } from "../../src/state/coordination.js";
import { openGatewayStore } from "../../src/state/gateway-store.js";
import { PgCoordination } from "../../src/state/postgres/coordination.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { until } from "../fakes/slack/gateway.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { tempDir } from "../state/temp-dir.js";
import { modelRequests, userTexts } from "./harness.js";

const pg = postgresOrSkip();

/** One gateway replica: its own home, runtime and connections, the shared database. */
async function replica(url: string, fake: FakeProvider, name: string) {
  const home = tempDir(`hermes-replica-${name}-`);
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: fake-model\n  provider: custom\n  base_url: ${fake.url}/v1\nstore:\n  backend: postgres\n  postgres_url: ${url}\n`,
  );
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true, platform: "test" });
  const store = await openGatewayStore(url);
  const pgCoordination = await PgCoordination.open(url);
  const leaseAttempts = { count: 0 };
  // The real coordination, counting the session leases this replica asks for.
  const coordination: Coordination = {
    shared: true,
    tryOwn: (name) => pgCoordination.tryOwn(name),
    release: (name) => pgCoordination.release(name),
    leaseSession: (...args) => {
      leaseAttempts.count += 1;
      return pgCoordination.leaseSession(...args);
    },
    releaseSession: (key, holder) => pgCoordination.releaseSession(key, holder),
    close: () => pgCoordination.close(),
  };
  const adapter = new TestAdapter();
  const logs: string[] = [];
  const runner = new GatewayRunner({
    runtime,
    store,
    coordination,
    settings: resolveGatewaySettings(runtime.config, { TEST_ALLOWED_USERS: "user-1" }),
    adapters: [adapter],
    log: (line) => logs.push(line),
    retryBaseMs: 5,
    leaseRetryMs: 10,
    // A lease request unanswered for a second counts as refused and is asked again.
    leaseAttemptMs: 1_000,
    orphanSweepMs: 50,
    // A message stored a moment ago belongs to the replica that stored it: with no grace, the
    // other replica's sweep could lease the session before that replica's own turn does and
    // answer the message itself (which the first test would then see as a different order).
    orphanGraceMs: 5_000,
  });
  await runner.start();
  return {
    adapter,
    runner,
    logs,
    store,
    leaseAttempts,
    async close() {
      await runner.stop();
      store.close();
      await coordination.close();
      await runtime.close();
    },
  };
}

if (pg) {
  test("postgres: two replicas take turns on one session, each with the whole transcript", async () => {
    const url = await pg.database();
    let release!: () => void;
    const firstHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    let held = false;
    let overlapped = false;
    const fake = await startFakeProvider({
      fallback: async (req) => {
        calls += 1;
        if (held) overlapped = true;
        const users = userTexts(req);
        if (calls === 1) {
          held = true;
          await firstHeld;
          held = false;
        }
        return { text: `answer to ${users.at(-1)}` };
      },
    });
    const [a, b] = [await replica(url, fake, "a"), await replica(url, fake, "b")];
    try {
      a.adapter.inject({ messageId: "m1", chatId: "chat-1", userId: "user-1", text: "first question" });
      await until(() => held, "the first turn to reach the model", 60_000);
      const before = b.leaseAttempts.count;
      b.adapter.inject({ messageId: "m2", chatId: "chat-1", userId: "user-1", text: "second question" });
      // B asks for the session again and again while A's turn runs, and never reaches the model.
      await until(
        () => b.leaseAttempts.count >= before + 5,
        "the second replica to wait for the session",
        60_000,
      ).catch((error: Error) => {
        const attempts = b.leaseAttempts.count - before;
        throw new Error(
          `${error.message} (${attempts} lease requests)\nA: ${a.logs.join("\nA: ")}\nB: ${b.logs.join("\nB: ")}`,
        );
      });
      assert.equal(calls, 1, "the session's second turn waits for the first, on another replica");
      release();
      // The second message is answered by B once A's turn ends (or by A, should A's sweep find it
      // after the grace period): either way once, after the first, with the first in its transcript.
      const answers = () => [...a.adapter.texts("chat-1"), ...b.adapter.texts("chat-1")];
      await until(
        () => answers().includes("answer to second question") && answers().includes("answer to first question"),
        "both questions to be answered",
        60_000,
      );
      const requests = modelRequests(fake);
      assert.equal(requests.length, 2);
      assert.equal(overlapped, false, "no model call while the first turn was held");
      assert.deepEqual(
        userTexts(requests[1]!),
        ["first question", "second question"],
        "the second turn read the first from the store",
      );
      assert.deepEqual(answers().sort(), ["answer to first question", "answer to second question"], "each once");
      assert.deepEqual(a.adapter.texts("chat-1")[0], "answer to first question", "A answered its own message");
    } finally {
      // Whatever failed above, the held turn ends, so both replicas can stop.
      release();
      await a.close();
      await b.close();
      await fake.close();
    }
  });

  test("postgres: a message stored by a replica that died is answered by another, once", async () => {
    const url = await pg.database();
    const fake = await startFakeProvider({ fallback: (req) => ({ text: `answer to ${userTexts(req).at(-1)}` }) });
    // A replica stored the message and died before answering it.
    const dead = await openGatewayStore(url);
    const message: InboundMessage = {
      platform: "test",
      chatId: "chat-9",
      chatType: "dm",
      messageId: "m9",
      userId: "user-1",
      text: "are you there",
    };
    const sessionKey = buildSessionKey(message, resolveGatewaySettings(DEFAULT_CONFIG, {}).keys);
    await dead.claimInbound(
      { platform: "test", chatId: "chat-9", messageId: "m9" },
      sessionKey,
      message,
      Date.now() - 60_000,
    );
    dead.close();
    const [a, b] = [await replica(url, fake, "a"), await replica(url, fake, "b")];
    try {
      await Promise.race([
        a.adapter.waitForText(/answer to are you there/),
        b.adapter.waitForText(/answer to are you there/),
      ]);
      await Promise.all([a.runner.idle(), b.runner.idle()]);
      const answers = [...a.adapter.texts("chat-9"), ...b.adapter.texts("chat-9")];
      assert.deepEqual(answers, ["answer to are you there"], "answered exactly once across the replicas");
      assert.equal(modelRequests(fake).length, 1);
      assert.equal(
        (await a.store.inboundRecord({ platform: "test", chatId: "chat-9", messageId: "m9" }))?.state,
        "done",
      );
    } finally {
      await a.close();
      await b.close();
      await fake.close();
    }
  });
  test("postgres: turns that commands start (/queue, /retry) run across replicas too", async () => {
    const url = await pg.database();
    const fake = await startFakeProvider({ fallback: (req) => ({ text: `answer to ${userTexts(req).at(-1)}` }) });
    const a = await replica(url, fake, "a");
    try {
      a.adapter.inject({ messageId: "q1", chatId: "chat-5", userId: "user-1", text: "/queue what time is it" });
      await a.adapter.waitForText(/^answer to what time is it$/);
      a.adapter.inject({ messageId: "r1", chatId: "chat-5", userId: "user-1", text: "/retry" });
      await a.adapter.waitFor((sent) => sent.filter((s) => s.current === "answer to what time is it").length === 2);
      assert.equal(modelRequests(fake).length, 2);
    } finally {
      await a.close();
      await fake.close();
    }
  });
}
