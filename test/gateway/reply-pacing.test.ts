/**
 * How a reply is paced and marked in the chat: `streaming.cursor` on growing previews, and
 * `human_delay` between the parts of a reply too long for one message.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import type { OutboundText, SentMessage } from "../../src/gateway/types.js";
import { loadConfig } from "../../src/state/config.js";
import { tempDir } from "../state/temp-dir.js";
import { startGateway } from "./harness.js";

/** Remembers when each message was sent and how often typing was shown before it. */
class TimedAdapter extends TestAdapter {
  readonly sentAt: number[] = [];
  readonly typingBefore: number[] = [];

  private typedAfterSend: (() => void) | undefined;
  /** Resolves at the first typing shown after a message was sent (a pause between parts began). */
  readonly typingAfterSend = new Promise<void>((resolve) => {
    this.typedAfterSend = resolve;
  });

  override async send(message: OutboundText): Promise<SentMessage> {
    this.sentAt.push(performance.now());
    this.typingBefore.push(this.typingCount);
    return super.send(message);
  }

  override async typing(): Promise<void> {
    await super.typing();
    if (this.sentAt.length > 0) this.typedAfterSend?.();
  }
}

function loadConfigText(text: string) {
  const home = tempDir("hermes-pacing-");
  writeFileSync(join(home, "config.yaml"), text);
  return loadConfig({ home }).config;
}

const paragraphs = Array.from({ length: 6 }, (_, i) => `Paragraph ${i}: ${"words ".repeat(20).trim()}.`);

test("streaming.cursor marks a growing preview; the final text carries no cursor", async () => {
  const text = "This reply arrives in many small pieces, so the chat should watch it grow in place.";
  const gw = await startGateway({
    config:
      'display:\n  platforms:\n    test:\n      streaming: true\n      edit_interval: 0.2\nstreaming:\n  cursor: " …"\n',
    provider: { script: [{ text, chunkDelayMs: 15 }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "stream please" });
    await gw.adapter.waitForText(/watch it grow in place\.$/);
    const [message] = gw.adapter.sent;
    assert.match(message?.text ?? "", / …$/, "the preview ends with the configured cursor");
    assert.doesNotMatch(message?.text ?? "", /▉/);
    assert.equal(message?.current, text);
  } finally {
    await gw.close();
  }
});

test('streaming.cursor "" shows previews without a mark, still told apart from the final reply', async () => {
  const text = "Another reply that grows piece by piece, long enough to be previewed before it ends.";
  const gw = await startGateway({
    config:
      'display:\n  platforms:\n    test:\n      streaming: true\n      edit_interval: 0.2\nstreaming:\n  cursor: ""\n',
    provider: { script: [{ text, chunkDelayMs: 15 }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "stream please" });
    await gw.adapter.waitForText(/before it ends\.$/);
    const [message] = gw.adapter.sent;
    assert.ok(text.startsWith(message?.text ?? "-"), "the preview is the reply so far, with nothing appended");
    assert.notEqual(message?.text, text);
    assert.deepEqual(gw.adapter.texts(), [text]);
  } finally {
    await gw.close();
  }
});

test("human_delay custom: each further part of a long reply waits at least min_ms, with typing shown", async () => {
  const adapter = new TimedAdapter({ maxMessageLength: 400, canEdit: false });
  const gw = await startGateway({
    adapter: () => adapter,
    config: "human_delay:\n  mode: custom\n  min_ms: 150\n  max_ms: 200\n",
    provider: { script: [{ text: paragraphs.join("\n\n") }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "write a lot" });
    await gw.adapter.waitForText(/Paragraph 5/);
    assert.ok(adapter.sentAt.length > 1, "the reply came in parts");
    for (let i = 1; i < adapter.sentAt.length; i++) {
      const gap = (adapter.sentAt[i] ?? 0) - (adapter.sentAt[i - 1] ?? 0);
      assert.ok(gap >= 149, `part ${i} followed the one before after ${gap.toFixed(1)} ms`);
      assert.ok(
        (adapter.typingBefore[i] ?? 0) > (adapter.typingBefore[i - 1] ?? 0),
        `typing was shown before part ${i}`,
      );
    }
    assert.equal(gw.adapter.texts().join("\n\n"), paragraphs.join("\n\n"), "nothing lost or reordered");
  } finally {
    await gw.close();
  }
});

test("a stopping gateway does not wait out human_delay before the rest of a reply", async () => {
  const adapter = new TimedAdapter({ maxMessageLength: 400, canEdit: false });
  const gw = await startGateway({
    adapter: () => adapter,
    config: "human_delay:\n  mode: custom\n  min_ms: 60000\n  max_ms: 60000\n",
    provider: { script: [{ text: paragraphs.join("\n\n") }] },
  });
  gw.adapter.inject({ messageId: "1", text: "write a lot" });
  await adapter.typingAfterSend;
  // The pause is a minute long: a stop that waited it out would lose this race by far.
  let deadline: NodeJS.Timeout | undefined;
  const closedInTime = await Promise.race([
    gw.close().then(() => true),
    new Promise<boolean>((resolve) => {
      deadline = setTimeout(() => resolve(false), 10_000);
    }),
  ]);
  clearTimeout(deadline);
  assert.ok(closedInTime, "stopping ended the pause");
  assert.equal(gw.adapter.texts().join("\n\n"), paragraphs.join("\n\n"), "the whole reply went out while stopping");
});

test("human_delay settings are checked: modes, whole milliseconds, min_ms not above max_ms", () => {
  assert.deepEqual(loadConfigText("human_delay:\n  mode: natural\n").human_delay, {
    mode: "natural",
    min_ms: 800,
    max_ms: 2500,
  });
  assert.throws(
    () => loadConfigText("human_delay:\n  mode: sometimes\n"),
    /human_delay\.mode.*"off", "natural" or "custom"/s,
  );
  assert.throws(
    () => loadConfigText("human_delay:\n  mode: custom\n  min_ms: 3000\n  max_ms: 1000\n"),
    /min_ms must not be larger than max_ms/,
  );
  assert.throws(() => loadConfigText("human_delay:\n  min_ms: 1.5\n"), /human_delay\.min_ms.*whole number/s);
  assert.throws(() => loadConfigText("streaming:\n  cursor: 42\n"), /streaming\.cursor/);
});
