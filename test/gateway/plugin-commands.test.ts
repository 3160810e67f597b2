import assert from "node:assert/strict";
import { test } from "node:test";
import { installDocsExample, writePlugin } from "../runtime/plugin-fixtures.js";
import { tempDir } from "../state/temp-dir.js";
import { startGateway } from "./harness.js";

test("a plugin's slash command answers in a chat, shows in /help, and a failing one says so", async () => {
  const home = tempDir("hermes-gw-plugins-");
  installDocsExample(home);
  writePlugin(
    home,
    "session-watch",
    `export function register(api) {
  api.registerCommand({ name: "explode", description: "always fails", run: () => { throw new Error("fuse lit"); } });
  api.on("on_session_end", (p) => { (globalThis.__hermesEndedSessions ??= []).push(p.reason + ":" + p.sessionId); });
}`,
  );
  const gw = await startGateway({ home, provider: { fallback: { text: "hello" } } });
  try {
    gw.adapter.inject({ messageId: "1", text: "/wordcount the quick brown fox" });
    await gw.adapter.waitForText(/^4 words$/);
    gw.adapter.inject({ messageId: "2", text: "/help" });
    const help = await gw.adapter.waitForText(/^Commands:/);
    assert.match(help, /\/wordcount — Count the words in TEXT/);
    gw.adapter.inject({ messageId: "3", text: "/explode" });
    await gw.adapter.waitForText(/\/explode \(plugin session-watch\) failed: fuse lit/);

    gw.adapter.inject({ messageId: "4", text: "hi" });
    await gw.adapter.waitForText(/^hello$/);
    const first = await gw.store.sessionRoute("agent:main:test:dm:chat-1");
    gw.adapter.inject({ messageId: "5", text: "/new -y" });
    await gw.adapter.waitForText(/Started a new conversation/);
    const ended = (globalThis as { __hermesEndedSessions?: string[] }).__hermesEndedSessions ?? [];
    assert.deepEqual(ended, [`ended:${first?.sessionId}`], "on_session_end heard of the old session");
  } finally {
    await gw.close();
  }
});

const ECHO_PLATFORM = `export function register(api) {
  api.registerPlatform({
    name: "pigeon",
    label: "Pigeon post",
    enablingEnv: ["PIGEON_TOKEN"],
    createAdapter: () => {
      const sent = (globalThis.__pigeonSent ??= []);
      let events;
      return {
        platform: "pigeon",
        maxMessageLength: 4000,
        canEdit: false,
        async connect(handlers) {
          events = handlers;
          queueMicrotask(() => events.inbound({ platform: "pigeon", chatId: "loft-1", chatType: "dm", userId: "bird-7", text: "coo", messageId: "m1" }));
        },
        async disconnect() {},
        async send(message) {
          sent.push(message.chatId + ": " + message.text);
          globalThis.__pigeonOnSend?.();
          return { messageId: String(sent.length) };
        },
      };
    },
  });
  api.registerPlatform({ name: "broken-post", enablingEnv: ["BROKEN_POST_TOKEN"], createAdapter: () => ({}) });
}`;

test("a platform a plugin registers turns on like a built-in one and carries a conversation through the gateway", async () => {
  const { loadPlugins } = await import("../../src/runtime/plugins/loader.js");
  const { enabledPlatforms } = await import("../../src/gateway/platforms.js");
  const { DEFAULT_CONFIG } = await import("../../src/state/config-defaults.js");
  const home = tempDir("hermes-gw-plugin-platform-");
  writePlugin(home, "pigeon", ECHO_PLATFORM);
  const set = await loadPlugins({ home, config: DEFAULT_CONFIG });
  const log = () => {};
  const off = await enabledPlatforms(DEFAULT_CONFIG, { home, env: {}, log, plugins: set.platforms });
  assert.deepEqual(off.adapters, [], "without its variable the platform stays off");
  await assert.rejects(
    enabledPlatforms(DEFAULT_CONFIG, { home, env: { BROKEN_POST_TOKEN: "x" }, log, plugins: set.platforms }),
    /the broken-post platform of plugin pigeon did not return an adapter/,
  );
  const on = await enabledPlatforms(DEFAULT_CONFIG, { home, env: { PIGEON_TOKEN: "t" }, log, plugins: set.platforms });
  assert.deepEqual(
    on.adapters.map((a) => a.platform),
    ["pigeon"],
  );

  const delivered = new Promise<void>((resolve) => {
    (globalThis as { __pigeonOnSend?: () => void }).__pigeonOnSend = resolve;
  });
  const gw = await startGateway({
    home,
    provider: { fallback: { text: "coo to you" } },
    env: { TEST_ALLOWED_USERS: "user-1", PIGEON_ALLOWED_USERS: "bird-7" },
    extraAdapters: () => on.adapters,
  });
  try {
    await delivered;
    assert.deepEqual((globalThis as { __pigeonSent?: string[] }).__pigeonSent, ["loft-1: coo to you"]);
  } finally {
    await gw.close();
  }
});
