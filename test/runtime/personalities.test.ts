import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController } from "../../src/cli/tui/controller.js";
import { personalities } from "../../src/runtime/personalities.js";
import { RecordingView } from "../cli/recording-view.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { RecordedRequest } from "../fake-provider/types.js";
import { modelRequests, startGateway } from "../gateway/harness.js";

const systemOf = (request: RecordedRequest | undefined) =>
  String((request?.body.messages as Array<{ role: string; content: string }> | undefined)?.[0]?.content ?? "");

test("config.yaml's personalities join the built-in ones; unusable entries are reported", () => {
  const problems: string[] = [];
  const known = personalities(
    {
      pirate: "Talk like a pirate.",
      Concise: { system_prompt: "Be terse.", description: "short answers" },
      none: "x",
      empty: { description: "no prompt" },
    },
    (problem) => problems.push(problem),
  );
  const byName = Object.fromEntries(known.map((p) => [p.name, p]));
  assert.equal(byName.pirate?.prompt, "Talk like a pirate.");
  assert.equal(byName.concise?.prompt, "Be terse.", "a configured personality replaces a built-in one by name");
  assert.equal(byName.concise?.description, "short answers");
  assert.ok(byName.teacher, "built-in ones stay");
  assert.deepEqual(
    problems.map((p) => p.split(":")[0]),
    ["personalities.none", "personalities.empty"],
  );
});

test("/personality in a chat sets the conversation's instructions, and none takes them away", async () => {
  const gw = await startGateway({
    provider: { fallback: { text: "arr" } },
    config: 'personalities:\n  pirate: "Talk like a pirate, matey."\n',
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "/personality" });
    const listing = await gw.adapter.waitForText(/^Personalities/);
    assert.match(listing, /pirate — Talk like a pirate, matey\./);
    gw.adapter.inject({ messageId: "2", text: "/personality pirate" });
    await gw.adapter.waitForText(/Personality set to pirate/);
    gw.adapter.inject({ messageId: "3", text: "hello" });
    await gw.adapter.waitForText(/^arr$/);
    assert.match(systemOf(modelRequests(gw.fake).at(-1)), /Talk like a pirate, matey\./);
    gw.adapter.inject({ messageId: "4", text: "/personality none" });
    await gw.adapter.waitForText(/Personality cleared/);
    gw.adapter.inject({ messageId: "5", text: "again" });
    await gw.adapter.waitFor(() => gw.adapter.texts().filter((text) => text === "arr").length === 2);
    assert.doesNotMatch(systemOf(modelRequests(gw.fake).at(-1)), /pirate/);
    gw.adapter.inject({ messageId: "6", text: "/personality ninja" });
    await gw.adapter.waitForText(/No personality "ninja"/);
  } finally {
    await gw.close();
  }
});

test("/personality in the terminal applies from the next model call", async () => {
  const fake = await startFakeProvider({ fallback: { text: "ok" } });
  const view = new RecordingView();
  const chat = await ChatController.create(
    { provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "k", model: "m" },
    view,
    { localServers: false },
  );
  try {
    await chat.submit("/personality concise");
    assert.equal(view.printed.at(-1), "Personality: concise (from the next model call)");
    await chat.submit("hi");
    assert.match(systemOf(fake.requests.filter((r) => Array.isArray(r.body?.messages)).at(-1)), /Be concise/);
  } finally {
    await chat.close();
    await fake.close();
  }
});
