import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { MattermostAdapter } from "../../../src/gateway/adapters/mattermost/adapter.js";
import { retryAfterMs } from "../../../src/gateway/adapters/mattermost/errors.js";
import { plainText } from "../../../src/gateway/adapters/mattermost/inbound.js";
import { channelRules, probe, serverAddress } from "../../../src/gateway/adapters/mattermost/platform.js";
import { type PlatformContext, platformEnabled } from "../../../src/gateway/platform-catalog.js";
import { enabledPlatforms } from "../../../src/gateway/platforms.js";
import { PlatformSendError } from "../../../src/gateway/types.js";
import { loadConfig } from "../../../src/state/config.js";
import { buildWorld, dm, startMattermostGateway, until } from "../../fakes/mattermost/gateway.js";
import { routeOf, startFakeMattermost } from "../../fakes/mattermost/server.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests, userTexts } from "../harness.js";

function contextWith(yaml: string, env: Record<string, string>): PlatformContext {
  const home = tempDir("hermes-mm-config-");
  writeFileSync(join(home, "config.yaml"), yaml);
  return { config: loadConfig({ home }).config, env, home, log: () => undefined };
}

const rules = {
  requireMention: true,
  freeResponseChannels: new Set<string>(),
  allowedChannels: new Set<string>(),
  replyInThreads: true,
};

test("the mattermost section's keys are read from config.yaml, and MATTERMOST_* variables override them", () => {
  const yaml =
    'mattermost:\n  require_mention: false\n  free_response_channels: "aaa, bbb"\n  allowed_channels: [ccc]\n  channel_prompts:\n    ccc: Be brief.\n';
  const fromConfig = contextWith(yaml, {});
  assert.deepEqual(fromConfig.config.mattermost.channel_prompts, { ccc: "Be brief." });
  assert.deepEqual(channelRules(fromConfig), {
    requireMention: false,
    freeResponseChannels: new Set(["aaa", "bbb"]),
    allowedChannels: new Set(["ccc"]),
    replyInThreads: true,
  });
  const overridden = contextWith(yaml, {
    MATTERMOST_REQUIRE_MENTION: "true",
    MATTERMOST_FREE_RESPONSE_CHANNELS: "xxx",
    MATTERMOST_ALLOWED_CHANNELS: "yyy,zzz",
    MATTERMOST_REPLY_MODE: "off",
  });
  assert.deepEqual(channelRules(overridden), {
    requireMention: true,
    freeResponseChannels: new Set(["xxx"]),
    allowedChannels: new Set(["yyy", "zzz"]),
    replyInThreads: false,
  });
  const defaults = contextWith("", {});
  assert.deepEqual(defaults.config.mattermost, {
    require_mention: true,
    free_response_channels: [],
    allowed_channels: [],
    channel_prompts: {},
  });
  assert.throws(() => channelRules(contextWith("", { MATTERMOST_REQUIRE_MENTION: "maybe" })), /not true or false/);
  assert.throws(() => channelRules(contextWith("", { MATTERMOST_REPLY_MODE: "nested" })), /neither thread nor off/);
});

test("the server address is checked and tidied, and a missing token says where to get one", async () => {
  assert.deepEqual(serverAddress("https://mm.example.com/"), { url: "https://mm.example.com" });
  assert.deepEqual(serverAddress("https://example.com/chat/api/v4/"), { url: "https://example.com/chat" });
  assert.match((serverAddress("mm.example.com") as { problem: string }).problem, /not a URL; write it with its scheme/);
  assert.match((serverAddress("ftp://mm.example.com") as { problem: string }).problem, /must start with https:\/\//);
  assert.match((serverAddress("https://u:p@mm.example.com") as { problem: string }).problem, /user name or password/);
  const { createAdapter } = await import("../../../src/gateway/adapters/mattermost/platform.js");
  assert.throws(
    () => createAdapter(contextWith("", { MATTERMOST_URL: "https://mm.example.com" })),
    /mattermost: no token; set MATTERMOST_TOKEN to a bot account's token/,
  );
  assert.throws(
    () => createAdapter(contextWith("", { MATTERMOST_TOKEN: "t" })),
    /no server address; set MATTERMOST_URL/,
  );
});

test("MATTERMOST_URL and MATTERMOST_TOKEN turn the platform on and start its adapter; MATTERMOST_ENABLED=false wins", async () => {
  const env = { MATTERMOST_URL: "https://mm.example.com", MATTERMOST_TOKEN: "tok" };
  const context = contextWith("", env);
  assert.equal(platformEnabled(context.config, env, "mattermost"), true);
  assert.equal(platformEnabled(context.config, { MATTERMOST_URL: "https://mm.example.com" }, "mattermost"), false);
  assert.equal(platformEnabled(context.config, { ...env, MATTERMOST_ENABLED: "false" }, "mattermost"), false);
  const started = await enabledPlatforms(context.config, { home: context.home, env, log: () => undefined });
  assert.ok(started.adapters.some((a) => a instanceof MattermostAdapter && a.platform === "mattermost"));
  const fromConfig = contextWith(
    "platforms:\n  mattermost:\n    enabled: true\n    token: tok\n    extra:\n      url: https://mm.example.com\n",
    {},
  );
  const viaConfig = await enabledPlatforms(fromConfig.config, { home: fromConfig.home, env: {}, log: () => undefined });
  assert.ok(viaConfig.adapters.some((a) => a.platform === "mattermost"));
});

test("the doctor's probe names the bot, or says the token was rejected and what to do", async () => {
  const mm = await startFakeMattermost();
  try {
    const good = await probe(contextWith("", { MATTERMOST_URL: mm.url, MATTERMOST_TOKEN: mm.state.token }), 5_000);
    assert.deepEqual(good, { ok: true, detail: `@hermes on ${mm.url}` });
    const bad = await probe(contextWith("", { MATTERMOST_URL: mm.url, MATTERMOST_TOKEN: "nope" }), 5_000);
    assert.equal(bad.ok, false);
    assert.match(bad.detail, /rejected the token \(HTTP 401\)/);
    assert.match(bad.hint ?? "", /MATTERMOST_TOKEN/);
  } finally {
    await mm.close();
  }
});

test("send failures are classified: 429 waits as told, 5xx and network errors retry, other 4xx do not", async () => {
  const mm = await startFakeMattermost();
  const world = buildWorld(mm);
  const adapter = new MattermostAdapter({
    serverUrl: mm.url,
    token: mm.state.token,
    home: "/nonexistent",
    log: () => undefined,
    rules,
  });
  const failure = async (action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (error) {
      assert.ok(error instanceof PlatformSendError, `a PlatformSendError, not ${String(error)}`);
      return error;
    }
    throw new Error("expected a failure");
  };
  try {
    mm.state.fail("POST /posts", { rateLimitSeconds: 7, onlyReset: true });
    const limited = await failure(() => adapter.send({ chatId: world.dm.id, text: "x" }));
    assert.deepEqual(limited.options, { retryable: true, retryAfterMs: 7_000 }, "X-RateLimit-Reset alone is enough");

    mm.state.fail("PUT /posts/:id/patch", { status: 503 });
    const post = await adapter.send({ chatId: world.dm.id, text: "x" });
    assert.equal(
      (await failure(() => adapter.edit({ chatId: world.dm.id }, post.messageId!, "y"))).options.retryable,
      true,
    );

    const forbidden = await failure(() => adapter.send({ chatId: "zzzzzzzzzzzzzzzzzzzzzzzzzz", text: "x" }));
    assert.equal(forbidden.options.retryable, false);
    assert.match(
      forbidden.message,
      /HTTP 403: You do not have the appropriate permissions\. \(the bot lacks permission here; add it/,
    );

    const badRoot = await failure(() =>
      adapter.send({ chatId: world.dm.id, threadId: "zzzzzzzzzzzzzzzzzzzzzzzzzz", text: "x" }),
    );
    assert.match(badRoot.message, /HTTP 400: Invalid RootId parameter/);
    assert.equal(badRoot.options.retryable, false);

    const notAnId = await failure(() => adapter.delete({ chatId: world.dm.id }, "../users/me"));
    assert.equal(notAnId.options.retryable, false);
    assert.ok(!mm.calls.some((c) => c.path.includes("users/me")), "a bad id never reaches a URL");

    await mm.close();
    const offline = await failure(() => adapter.send({ chatId: world.dm.id, text: "x" }));
    assert.equal(offline.options.retryable, true);
    assert.match(offline.message, /could not be reached for POST \/posts/);
  } finally {
    await mm.close().catch(() => undefined);
  }
  assert.equal(retryAfterMs(new Headers({ "x-ratelimit-reset": "1700000010" }), 1_700_000_000_000), 10_000);
  assert.equal(retryAfterMs(new Headers({ "retry-after": "3", "x-ratelimit-reset": "9" })), 3_000);
  assert.equal(retryAfterMs(new Headers()), undefined);
});

test("a mention is the bot's name as a word of its own", () => {
  assert.equal(plainText("@hermes what now?", "hermes"), "what now?");
  assert.equal(plainText("thanks @Hermes.", "hermes"), "thanks .");
  assert.equal(
    plainText("ask @hermes-bot or mail hermes@example.com", "hermes"),
    "ask @hermes-bot or mail hermes@example.com",
  );
});

test("a file the agent sends is uploaded through /files and attached to a post in the thread", async () => {
  const mm = await startFakeMattermost();
  const world = buildWorld(mm);
  const adapter = new MattermostAdapter({
    serverUrl: mm.url,
    token: mm.state.token,
    home: "/nonexistent",
    log: () => undefined,
    rules,
  });
  const path = join(tempDir("hermes-mm-file-"), "report.txt");
  writeFileSync(path, "the numbers");
  try {
    const root = mm.userPost(world.alice, world.town, "@hermes report please");
    const sent = await adapter.sendFile({ chatId: world.town.id, threadId: root.id }, path, "Here it is");
    const upload = mm.calls.find((c) => routeOf(c) === "POST /files")!;
    assert.deepEqual(upload.body, { channel_id: world.town.id, files: [{ name: "report.txt", bytes: 11 }] });
    const post = mm.state.posts.find((p) => p.id === sent.messageId)!;
    assert.equal(post.message, "Here it is");
    assert.equal(post.root_id, root.id);
    assert.equal(mm.state.files.get(post.file_ids[0]!)?.data.toString(), "the numbers");
    const missing = await adapter.sendFile({ chatId: world.town.id }, join(path, "..", "gone.txt")).catch((e) => e);
    assert.ok(missing instanceof PlatformSendError && !missing.options.retryable);
  } finally {
    await mm.close();
  }
});

test("a file a user attaches is downloaded with the token and reaches the model", async () => {
  const { gw, mm, world, close } = await startMattermostGateway({ provider: { fallback: { text: "got it" } } });
  try {
    const file = mm.state.storeFile("notes.txt", "text/plain", Buffer.from("buy milk"), world.dm.id);
    mm.userPost(world.alice, world.dm, "see attached", { file_ids: [file.id] });
    await mm.waitFor(() => mm.state.visible(world.dm.id).length === 1, "the answer");
    const [text] = userTexts(modelRequests(gw.fake)[0]!);
    assert.match(text!, /see attached/);
    const saved = /saved at (\S+)\]/.exec(text!)?.[1];
    assert.ok(saved?.startsWith(join(gw.home, "cache", "mattermost")), text);
    assert.equal(readFileSync(saved!, "utf8"), "buy milk");
  } finally {
    await close();
  }
});

test("a socket whose pings go unanswered is reported lost, and the core reconnects it", async () => {
  const { gw, mm, world, close, adapters } = await startMattermostGateway({
    provider: { fallback: { text: "still here" } },
    adapter: { pingIntervalMs: 40 },
  });
  try {
    const before = mm.connections;
    mm.mutePongs = true;
    await until(() => gw.logs.some((l) => /did not answer a ping within 40 ms/.test(l)), "the lost listener");
    mm.mutePongs = false;
    await mm.waitFor(() => mm.connections > before && mm.connected, "the reconnect");
    dm(mm, world, "are you there?");
    await mm.waitFor(() => mm.state.visible(world.dm.id).length === 1, "the answer");
    await adapters.at(-1)!.checkAlive();
  } finally {
    await close();
  }
});
