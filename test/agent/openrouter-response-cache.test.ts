import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ChatController } from "../../src/cli/tui/controller.js";
import { type HermesRuntime, openRuntime } from "../../src/runtime/runtime.js";
import { RecordingView } from "../cli/recording-view.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, RecordedRequest } from "../fake-provider/types.js";
import { modelRequests, startGateway } from "../gateway/harness.js";
import { useTitleEndpoint } from "../helpers/title-endpoint.js";
import { tempDir } from "../state/temp-dir.js";

let fake: FakeProvider;
const opened: HermesRuntime[] = [];
const savedKey = process.env.OPENROUTER_API_KEY;

before(async () => {
  fake = await startFakeProvider({ fallback: { text: "an answer" } });
  process.env.OPENROUTER_API_KEY = "sk-or-test-key";
});
after(async () => {
  for (const runtime of opened) await runtime.close();
  await fake.close();
  if (savedKey === undefined) delete process.env.OPENROUTER_API_KEY;
  else process.env.OPENROUTER_API_KEY = savedKey;
});

function cacheHeaders(req: RecordedRequest | undefined): [string | undefined, string | undefined] {
  return [req?.headers["x-openrouter-cache"], req?.headers["x-openrouter-cache-ttl"]];
}

async function askOnce(provider: string, config = "", platform?: string): Promise<RecordedRequest> {
  const home = tempDir("hermes-or-cache-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: some/model\n  provider: ${provider}\n  base_url: ${fake.url}/v1\n${config}`,
  );
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true, ...(platform ? { platform } : {}) });
  opened.push(runtime);
  fake.requests.length = 0;
  const result = await runtime.createAgent(platform ? { platform } : {}).runConversation("hello");
  assert.equal(result.finalResponse, "an answer");
  return modelRequests(fake).at(-1)!;
}

test("requests to OpenRouter ask for its response cache, for openrouter.response_cache_ttl seconds", async () => {
  assert.deepEqual(cacheHeaders(await askOnce("openrouter")), ["true", "300"], "on by default, 300 s");
  assert.deepEqual(cacheHeaders(await askOnce("openrouter", "openrouter:\n  response_cache_ttl: 3600\n")), [
    "true",
    "3600",
  ]);
});

test("no response cache when it is turned off, for other providers, or for API server requests", async () => {
  assert.deepEqual(cacheHeaders(await askOnce("openrouter", "openrouter:\n  response_cache: false\n")), [
    undefined,
    undefined,
  ]);
  assert.deepEqual(cacheHeaders(await askOnce("custom")), [undefined, undefined], "only OpenRouter takes it");
  assert.deepEqual(
    cacheHeaders(await askOnce("openrouter", "", "api_server")),
    [undefined, undefined],
    "a front end's regenerate resends the same request and expects a new answer",
  );
});

test("a TTL outside 1-86400 seconds is a config error naming the key", async () => {
  await assert.rejects(askOnce("openrouter", "openrouter:\n  response_cache_ttl: 0\n"), /response_cache_ttl/);
});

test("/retry in the terminal asks OpenRouter for a new reply, not the cached one", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-or-retry-"));
  const savedHome = process.env.HERMES_HOME;
  process.env.HERMES_HOME = home;
  const titles = await startFakeProvider({ fallback: { text: "A title" } });
  useTitleEndpoint(home, titles.url);
  const view = new RecordingView();
  const chat = await ChatController.create(
    { provider: "openrouter", baseUrl: `${fake.url}/v1`, apiKey: "k", model: "some/model" },
    view,
    { localServers: false },
  );
  try {
    fake.requests.length = 0;
    await chat.submit("one");
    assert.deepEqual(cacheHeaders(modelRequests(fake).at(-1)), ["true", "300"]);
    await chat.submit("/retry");
    assert.deepEqual(cacheHeaders(modelRequests(fake).at(-1)), [undefined, undefined], "the retry is fresh");
    await chat.submit("two");
    assert.deepEqual(cacheHeaders(modelRequests(fake).at(-1)), ["true", "300"], "only that one turn");
  } finally {
    await chat.close();
    await titles.close();
    if (savedHome === undefined) delete process.env.HERMES_HOME;
    else process.env.HERMES_HOME = savedHome;
    rmSync(home, { recursive: true, force: true });
  }
});

test("/retry in a chat asks OpenRouter for a new reply, not the cached one", async () => {
  const gw = await startGateway({ modelProvider: "openrouter", provider: { fallback: { text: "chat answer" } } });
  try {
    gw.adapter.inject({ messageId: "1", text: "first" });
    await gw.adapter.waitFor((sent) => sent.length === 1);
    gw.adapter.inject({ messageId: "2", text: "/retry" });
    await gw.adapter.waitFor((sent) => sent.length === 2);
    const [asked, retried] = modelRequests(gw.fake);
    assert.deepEqual(cacheHeaders(asked), ["true", "300"]);
    assert.deepEqual(cacheHeaders(retried), [undefined, undefined]);
  } finally {
    await gw.close();
  }
});
