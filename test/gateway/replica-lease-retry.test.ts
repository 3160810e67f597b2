import assert from "node:assert/strict";
import { test } from "node:test";
import { type Coordination, LocalCoordination } from "../../src/state/coordination.js";
import { startGateway } from "./harness.js";

/** Shared coordination kept in memory, whose first lease requests misbehave as `first` says. */
function flakyCoordination(first: Array<"throw" | "hang">): Coordination & { requests: number } {
  const inner = new LocalCoordination();
  const coordination = {
    shared: true,
    requests: 0,
    tryOwn: (name: string) => inner.tryOwn(name),
    release: (name: string) => inner.release(name),
    leaseSession(sessionKey: string, holder: string, ttlMs: number, now?: number): Promise<boolean> {
      const misbehave = first[coordination.requests];
      coordination.requests += 1;
      if (misbehave === "throw") return Promise.reject(new Error("connection terminated unexpectedly"));
      if (misbehave === "hang") return new Promise<boolean>(() => {});
      return inner.leaseSession(sessionKey, holder, ttlMs, now);
    },
    releaseSession: (key: string, holder: string) => inner.releaseSession(key, holder),
    close: () => inner.close(),
  };
  return coordination;
}

for (const fault of ["throw", "hang"] as const) {
  test(`a session lease request that ${fault === "throw" ? "fails" : "never answers"} is asked again and the message answered`, async () => {
    const coordination = flakyCoordination([fault]);
    const gateway = await startGateway({
      provider: { fallback: () => ({ text: "answered" }) },
      runner: { coordination, leaseRetryMs: 5, leaseAttemptMs: 50 },
    });
    try {
      gateway.adapter.inject({ messageId: "m1", chatId: "chat-1", userId: "user-1", text: "hello" });
      await gateway.adapter.waitForText(/^answered$/);
      assert.ok(coordination.requests >= 2, "the turn asked for the lease again");
      const expected =
        fault === "throw"
          ? /failed \(connection terminated unexpectedly\); asking again/
          : /took over 50 ms; asking again/;
      assert.ok(
        gateway.logs.some((line) => expected.test(line)),
        `the failed request is logged: ${gateway.logs.join(" | ")}`,
      );
      assert.ok(!gateway.logs.some((line) => /a run for .* failed/.test(line)), "the turn itself did not fail");
    } finally {
      await gateway.close();
    }
  });
}
