import assert from "node:assert/strict";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { splitMessage } from "../../src/gateway/split-message.js";
import { gated, startGateway, untilModelRequests } from "./harness.js";

test("a streamed reply grows in one message by edits and ends as the full text", async () => {
  const text = "This reply arrives in many small pieces, so the chat should watch it grow in place.";
  const gw = await startGateway({
    config: "display:\n  platforms:\n    test:\n      streaming: true\n      edit_interval: 0.2\n",
    provider: { script: [{ text, chunkDelayMs: 15 }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "stream please" });
    await gw.adapter.waitForText(/watch it grow in place\.$/);
    assert.equal(gw.adapter.sent.length, 1, "one message, edited, not one per piece");
    const [message] = gw.adapter.sent;
    assert.equal(message?.current, text);
    assert.ok((message?.edits.length ?? 0) >= 1, "the preview was edited");
    assert.match(message?.text ?? "", / ▉$/, "the first version was a preview");
  } finally {
    await gw.close();
  }
});

test("past streaming.fresh_final_after_seconds the answer arrives as a new message and the preview goes", async () => {
  const text = "A long answer that takes a while to arrive, piece by piece, so the user may look away.";
  const gw = await startGateway({
    config:
      "display:\n  platforms:\n    test:\n      streaming: true\n      edit_interval: 0.2\n" +
      "streaming:\n  fresh_final_after_seconds: 0.05\n",
    provider: { script: [{ text, chunkDelayMs: 15 }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "take your time" });
    await gw.adapter.waitForText(/may look away\.$/);
    const [preview, final] = gw.adapter.sent;
    assert.equal(gw.adapter.sent.length, 2);
    assert.match(preview?.text ?? "", / ▉$/);
    assert.equal(preview?.deleted, true, "the preview was removed");
    assert.equal(final?.text, text, "the answer was sent fresh, not edited in");
    assert.deepEqual(final?.edits, []);
  } finally {
    await gw.close();
  }
});

test("no preview before streaming.buffer_threshold characters: a short reply is sent once", async () => {
  const gw = await startGateway({
    config:
      "display:\n  platforms:\n    test:\n      streaming: true\n      edit_interval: 0.2\n" +
      "streaming:\n  buffer_threshold: 500\n",
    provider: { script: [{ text: "A reply of some sixty characters, shorter than the threshold.", chunkDelayMs: 5 }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "hi" });
    await gw.adapter.waitForText(/shorter than the threshold\.$/);
    assert.equal(gw.adapter.sent.length, 1);
    assert.deepEqual(gw.adapter.sent[0]?.edits, []);
  } finally {
    await gw.close();
  }
});

test("with streaming off for the platform the reply is sent once, whole", async () => {
  const gw = await startGateway({
    config: "display:\n  platforms:\n    test:\n      streaming: false\n",
    provider: { script: [{ text: "a reply that would otherwise have been streamed to the chat", chunkDelayMs: 5 }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "hi" });
    await gw.adapter.waitForText(/streamed to the chat$/);
    assert.equal(gw.adapter.sent.length, 1);
    assert.deepEqual(gw.adapter.sent[0]?.edits, []);
  } finally {
    await gw.close();
  }
});

test("a reply longer than the platform's limit arrives in parts, in order, each within the limit", async () => {
  const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}: ${"words ".repeat(20).trim()}.`);
  const gw = await startGateway({
    adapter: () => new TestAdapter({ maxMessageLength: 400, canEdit: false }),
    provider: { script: [{ text: paragraphs.join("\n\n") }] },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "write a lot" });
    await gw.adapter.waitForText(/Paragraph 11/);
    const parts = gw.adapter.texts();
    assert.ok(parts.length > 1);
    assert.ok(parts.every((p) => p.length <= 400));
    assert.equal(parts.join("\n\n"), paragraphs.join("\n\n"), "cut only at paragraph breaks, nothing lost");
    assert.equal(gw.adapter.sent[0]?.replyTo, "1", "the first part replies to the message");
    assert.equal(gw.adapter.sent[1]?.replyTo, null);
  } finally {
    await gw.close();
  }
});

test("splitting closes a cut code block and reopens it with its language in the next part", () => {
  const code = Array.from({ length: 30 }, (_, i) => `    value_${i} = compute(${i})`).join("\n");
  const text = `Here is the script:\n\n\`\`\`python\n${code}\n\`\`\`\n\nThat is all.`;
  const parts = splitMessage(text, 300);
  assert.ok(parts.length > 2);
  for (const part of parts) {
    assert.ok(part.length <= 300, `${part.length} characters`);
    const fences = part.split("\n").filter((line) => line.startsWith("```")).length;
    assert.equal(fences % 2, 0, `every part has balanced fences:\n${part}`);
  }
  assert.ok(parts.slice(1, -1).every((p) => p.startsWith("```python\n")));
  const rejoined = parts.join("\n").replaceAll(/\n```\n```python\n/g, "\n");
  for (let i = 0; i < 30; i++)
    assert.ok(rejoined.includes(`    value_${i} = compute(${i})`), `line ${i} kept with its indent`);
});

test("splitting random text never exceeds the limit and never loses a word", () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let round = 0; round < 200; round++) {
    const words = Array.from({ length: 20 + Math.floor(random() * 400) }, (_, i) =>
      random() < 0.05 ? "\n\n" : random() < 0.1 ? "\n" : `w${i}${"x".repeat(Math.floor(random() * 30))}`,
    );
    const text = words.join(" ");
    const limit = 64 + Math.floor(random() * 500);
    const parts = splitMessage(text, limit);
    assert.ok(parts.every((p) => p.length <= limit));
    const tokens = (s: string) => s.split(/\s+/).filter(Boolean);
    assert.deepEqual(tokens(parts.join(" ")), tokens(text));
  }
});

test("tool progress shows each tool as it starts (display.tool_progress all)", async () => {
  const gw = await startGateway({
    provider: {
      script: [
        { toolCalls: [{ name: "todo", arguments: { todos: [] } }] },
        { toolCalls: [{ name: "todo", arguments: { todos: [] } }] },
        { text: "finished" },
      ],
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "plan it" });
    await gw.adapter.waitForText(/^finished$/);
    assert.ok(gw.adapter.texts().includes("⚙ todo\n⚙ todo"), gw.adapter.texts().join(" | "));
  } finally {
    await gw.close();
  }
});

test("a platform whose listener dies is reconnected and reported while it is down", async () => {
  const gw = await startGateway({ runner: { reconnectBaseMs: 20 } });
  try {
    assert.equal(gw.runner.health().test?.state, "connected");
    gw.adapter.loseListener("socket closed by peer");
    assert.deepEqual(gw.runner.health().test, {
      state: "reconnecting",
      attempt: 1,
      lastError: "socket closed by peer",
    });
    while (!gw.adapter.connected) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(gw.runner.health().test?.state, "connected");
    assert.equal(gw.adapter.connects, 2);
    gw.adapter.inject({ messageId: "1", text: "still there?" });
    await gw.adapter.waitForText(/^ok$/);
  } finally {
    await gw.close();
  }
});

test("stopping drains: a run in progress finishes and its reply is sent before stop returns", async () => {
  const first = gated({ text: "finished in time" });
  const gw = await startGateway({ provider: { script: [first.step] } });
  try {
    gw.adapter.inject({ messageId: "1", text: "work" });
    await untilModelRequests(gw.fake, 1);
    const stopped = gw.runner.stop(10_000);
    first.open();
    await stopped;
    assert.deepEqual(gw.adapter.texts(), ["finished in time"]);
    assert.deepEqual(await gw.store.unfinishedInbound(), []);
  } finally {
    await gw.close();
  }
});

test("a run still going at the drain timeout is interrupted and told; waiting turns run after the restart", async () => {
  const gw = await startGateway({
    config: "display:\n  busy_input_mode: queue\n",
    provider: {
      script: [{ text: "this will stall", fault: { kind: "stall", afterChunks: 1 } }],
      fallback: { text: "later" },
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "work" });
    await untilModelRequests(gw.fake, 1);
    gw.adapter.inject({ messageId: "2", text: "and this" });
    await gw.adapter.waitForText(/Queued/);
    await gw.runner.stop(50);
    assert.ok(gw.logs.some((line) => /interrupting them \(1 waiting turn\(s\) run after the restart\)/.test(line)));
    assert.ok(
      gw.adapter.texts().some((t) => /restarted while working on this/.test(t)),
      gw.adapter.texts().join(" | "),
    );
    assert.deepEqual(await gw.store.dueDeliveries(Number.MAX_SAFE_INTEGER, 10), []);
    assert.equal(gw.fake.requests.filter((r) => r.method === "POST").length, 1, "the waiting turn did not start");
    await gw.restart();
    await gw.adapter.waitForText(/^later$/);
  } finally {
    await gw.close();
  }
});

test("a listener that died without a word fails its health check and is reconnected", async () => {
  const gw = await startGateway({ runner: { reconnectBaseMs: 10, watchdogMs: 20 } });
  try {
    gw.adapter.silentFailure = new Error("no updates for 5 minutes");
    while (gw.adapter.connects < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(gw.logs.some((line) => /did not answer a health check \(no updates for 5 minutes\)/.test(line)));
    while (gw.runner.health().test?.state !== "connected") await new Promise((resolve) => setTimeout(resolve, 5));
    gw.adapter.inject({ messageId: "1", text: "back?" });
    await gw.adapter.waitForText(/^ok$/);
  } finally {
    await gw.close();
  }
});

test("an adapter with approval buttons shows them instead of the text prompt", async () => {
  const { mkdirSync, existsSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { tempDir } = await import("../state/temp-dir.js");
  const dir = join(tempDir("hermes-gw-buttons-"), "victim");
  mkdirSync(dir);
  const prompts: string[] = [];
  const gw = await startGateway({
    config: 'sandbox:\n  mode: "off"\n',
    adapter: () => {
      const adapter = new TestAdapter();
      Object.assign(adapter, {
        askApproval: async (prompt: { command: string; reason: string }) => {
          prompts.push(`${prompt.reason}: ${prompt.command}`);
          return { messageId: "buttons" };
        },
      });
      return adapter;
    },
    provider: {
      script: [{ toolCalls: [{ name: "terminal", arguments: { command: `rm -r ${dir}` } }] }, { text: "done" }],
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "clean" });
    while (prompts.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.match(prompts[0] ?? "", new RegExp(`rm -r ${dir}`));
    gw.adapter.inject({ messageId: "2", text: "/approve" });
    await gw.adapter.waitForText(/^done$/);
    assert.equal(existsSync(dir), false);
    assert.ok(!gw.adapter.texts().some((t) => /needs your approval/.test(t)), "no text prompt as well");
  } finally {
    await gw.close();
  }
});

test("a message that arrives while the gateway drains is recorded, and answered after the restart", async () => {
  const first = gated({ text: "first answer" });
  const gw = await startGateway({
    provider: {
      script: [first.step],
      fallback: (req) => ({
        text: `answer to ${JSON.stringify(req.body.messages).includes("during the drain") ? "the late one" : "?"}`,
      }),
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "work" });
    await untilModelRequests(gw.fake, 1);
    const stopping = gw.runner.stop(10_000);
    gw.adapter.inject({ chatId: "other", messageId: "2", text: "sent during the drain" });
    first.open();
    await stopping;
    assert.deepEqual(gw.adapter.texts(), ["first answer"], "nothing new starts while draining");
    await gw.restart();
    await gw.adapter.waitForText(/answer to the late one/, "other");
  } finally {
    await gw.close();
  }
});
