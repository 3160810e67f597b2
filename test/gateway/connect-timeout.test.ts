import assert from "node:assert/strict";
import { EventEmitter, once } from "node:events";
import { test } from "node:test";
import type { AdapterEvents, OutboundText, PlatformAdapter, SentMessage } from "../../src/gateway/types.js";
import { startGateway } from "./harness.js";

/** A platform whose first connection attempt never answers (a black-holed network); the second one does. */
class StallingAdapter implements PlatformAdapter {
  readonly platform = "stalling";
  readonly maxMessageLength = 4096;
  readonly canEdit = false;
  attempts = 0;
  disconnects = 0;
  connect(_events: AdapterEvents): Promise<void> {
    this.attempts++;
    return this.attempts === 1 ? new Promise<void>(() => {}) : Promise.resolve();
  }
  async disconnect(): Promise<void> {
    this.disconnects++;
  }
  async send(_message: OutboundText): Promise<SentMessage> {
    return { messageId: "1" };
  }
}

test("gateway.platform_connect_timeout: a platform that never answers does not hold up the gateway, and is retried", async () => {
  const stalling = new StallingAdapter();
  const logs = new EventEmitter();
  const lines: string[] = [];
  const reconnected = once(logs, "reconnected");
  const gateway = await startGateway({
    config: "gateway:\n  platform_connect_timeout: 0.2\n",
    extraAdapters: () => [stalling],
    runner: {
      log: (line) => {
        lines.push(line);
        if (line.startsWith("stalling: reconnected")) logs.emit("reconnected");
      },
    },
  });
  try {
    // start() returned although the first attempt never will: the other platform is up.
    assert.equal(gateway.runner.health().test?.state, "connected");
    assert.ok(stalling.disconnects >= 1, "the abandoned attempt is closed");
    assert.ok(
      lines.some((line) =>
        line.includes("stalling: listener lost (not connected after 0.2 s (gateway.platform_connect_timeout))"),
      ),
      lines.join("\n"),
    );
    await reconnected;
    assert.equal(gateway.runner.health().stalling?.state, "connected");
    assert.equal(stalling.attempts, 2);
  } finally {
    await gateway.close();
  }
});
