import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { computeNextRun, parseSchedule } from "../../src/cron/schedule.js";
import { nextRunAfter } from "../../src/cron/timing.js";
import { resolveGatewaySettings } from "../../src/gateway/settings.js";
import { registerNamedProviders } from "../../src/llm/providers.js";
import { type HermesRuntime, openRuntime, type RuntimeOverrides } from "../../src/runtime/runtime.js";
import { loadConfigAsync } from "../../src/state/config-load.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, RecordedRequest } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";

let fake: FakeProvider;
let failing: FakeProvider;
const opened: HermesRuntime[] = [];
const savedTz = process.env.TZ;

before(async () => {
  fake = await startFakeProvider({ fallback: { text: "ok" } });
  failing = await startFakeProvider({ fallback: { fault: { kind: "status", status: 500, message: "overloaded" } } });
});
afterEach(async () => {
  for (const runtime of opened.splice(0)) await runtime.close();
  registerNamedProviders([]);
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});
after(async () => {
  await fake.close();
  await failing.close();
});

function homeWith(config: string): string {
  const home = tempDir("hermes-original-config-");
  writeFileSync(join(home, "config.yaml"), config);
  return home;
}

async function open(config: string, overrides: RuntimeOverrides = {}): Promise<HermesRuntime> {
  const runtime = await openRuntime({ home: homeWith(config), localServers: false, skipDotEnv: true, overrides });
  opened.push(runtime);
  return runtime;
}

const customModel = (server: FakeProvider) =>
  `model:\n  default: fake-model\n  provider: custom\n  base_url: ${server.url}/v1\n`;

const modelRequests = (server: FakeProvider): RecordedRequest[] =>
  server.requests.filter((req) => req.path.endsWith("/chat/completions"));

function toolNames(req: RecordedRequest): string[] {
  return ((req.body.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
}

function systemPrompt(req: RecordedRequest): string {
  return (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === "system")!.content;
}

/** Requests one failing run makes with `agent.api_max_retries` set to `retries`. */
async function callsWithRetries(retries: number): Promise<number> {
  const runtime = await open(`${customModel(failing)}agent:\n  api_max_retries: ${retries}\n`);
  const agent = runtime.createAgent();
  agent.options.retry = { ...agent.options.retry, baseMs: 1, capMs: 2 };
  const before = modelRequests(failing).length;
  await agent.runConversation("hello").catch(() => undefined);
  return modelRequests(failing).length - before;
}

test("agent.api_max_retries sets how many times a failed provider call is retried", async () => {
  assert.equal(await callsWithRetries(0), 1);
  assert.equal(await callsWithRetries(2), 3);
});

test("agent.disabled_toolsets takes toolsets away from the enabled ones", async () => {
  const plain = await open(customModel(fake));
  await plain.createAgent().runConversation("hi");
  assert.ok(toolNames(modelRequests(fake).at(-1)!).includes("read_file"));

  const runtime = await open(`${customModel(fake)}agent:\n  disabled_toolsets: [file, terminal]\n`);
  await runtime.createAgent().runConversation("hi");
  const names = toolNames(modelRequests(fake).at(-1)!);
  for (const gone of ["read_file", "write_file", "patch", "search_files", "terminal", "process"]) {
    assert.ok(!names.includes(gone), `${gone} is disabled`);
  }
  assert.ok(names.includes("todo"), "other toolsets stay");
  await runtime.createAgent({ toolsets: ["file", "todo"] }).runConversation("hi");
  assert.deepEqual(toolNames(modelRequests(fake).at(-1)!), ["todo"]);
});

test("timezone: the system prompt states the local time there", async () => {
  const tokyoHour = () =>
    new Intl.DateTimeFormat("en-GB", { timeZone: "Asia/Tokyo", hour: "2-digit", hourCycle: "h23" }).format(new Date());
  const hours = [tokyoHour()];
  const runtime = await open(`${customModel(fake)}timezone: Asia/Tokyo\n`);
  await runtime.createAgent().runConversation("what time is it?");
  hours.push(tokyoHour());
  const prompt = systemPrompt(modelRequests(fake).at(-1)!);
  assert.match(prompt, /Session started: \w+day \d{4}-\d\d-\d\d \d\d:\d\d \(time zone Asia\/Tokyo\)/);
  const [, hour] = /(\d\d):\d\d \(time zone/.exec(prompt)!;
  assert.ok(hours.includes(hour!), `${hour} is the hour in Tokyo (${hours.join(" or ")})`);

  const without = await open(customModel(fake));
  await without.createAgent().runConversation("and now?");
  assert.match(
    systemPrompt(modelRequests(fake).at(-1)!),
    /Session started: \d{4}-\d\d-\d\d\n|Session started: \d{4}-\d\d-\d\d$/m,
  );
});

test("timezone: the scheduler runs cron schedules without a zone of their own in it", async () => {
  process.env.TZ = "UTC";
  const job = { schedule: parseSchedule("0 9 * * *"), lastRunAt: null };
  const now = Date.parse("2026-03-09T12:00:00Z");
  assert.equal(nextRunAfter(job, now), Date.parse("2026-03-10T09:00:00Z"));
  await open(`${customModel(fake)}timezone: Asia/Tokyo\n`);
  assert.equal(nextRunAfter(job, now), Date.parse("2026-03-10T09:00:00+09:00"));
  // The library function reads a zone-less expression at the offset of the time it is given.
  assert.equal(computeNextRun(job, "2026-03-09T21:00:00+09:00"), "2026-03-10T09:00:00+09:00");
});

test("providers: a named endpoint is usable as model.provider, with its key variable and default model", async () => {
  process.env.HERMES_TEST_LAB_KEY = "lab-secret-key";
  try {
    const runtime = await open(
      `model:\n  provider: lab\nproviders:\n  lab:\n    base_url: ${fake.url}/v1\n    key_env: HERMES_TEST_LAB_KEY\n    models: [lab-model, other-model]\n`,
    );
    assert.equal(runtime.provider, "lab");
    assert.equal(runtime.model, "lab-model");
    await runtime.createAgent().runConversation("hi");
    const req = modelRequests(fake).at(-1)!;
    assert.equal(req.body.model, "lab-model");
    assert.equal(req.headers.authorization, "Bearer lab-secret-key");
  } finally {
    delete process.env.HERMES_TEST_LAB_KEY;
  }
});

test("custom_providers: an entry is usable as --provider custom:NAME with its literal key", async () => {
  const runtime = await open(
    `custom_providers:\n  - name: My Box\n    base_url: ${fake.url}/v1\n    api_key: box-literal-key\n    model: box-model\n`,
    { provider: "custom:my-box" },
  );
  assert.equal(runtime.provider, "my-box");
  await runtime.createAgent().runConversation("hi");
  const req = modelRequests(fake).at(-1)!;
  assert.equal(req.body.model, "box-model");
  assert.equal(req.headers.authorization, "Bearer box-literal-key");
});

test("fallback_providers may name a configured endpoint", async () => {
  const runtime = await open(
    `${customModel(failing)}agent:\n  api_max_retries: 0\nfallback_providers:\n  - provider: lab\n    model: lab-model\n` +
      `providers:\n  lab:\n    base_url: ${fake.url}/v1\n`,
  );
  const result = await runtime.createAgent().runConversation("hi");
  assert.equal(result.finalResponse, "ok");
  assert.equal(modelRequests(fake).at(-1)!.body.model, "lab-model");
});

test("a provider name that is neither built in nor configured is an error that says where names come from", async () => {
  await assert.rejects(
    open("model:\n  provider: nowhere\n  default: m\n"),
    /unknown provider "nowhere": not a built-in provider .* nor a name under providers: or custom_providers:/,
  );
});

test("streaming.enabled and streaming.edit_interval set the gateway's defaults; display.platforms still wins", async () => {
  const settings = async (config: string) =>
    resolveGatewaySettings((await loadConfigAsync({ home: homeWith(config) })).config, {});
  const plain = await settings("");
  assert.equal(plain.display("slack").streaming, true);
  assert.equal(plain.display("slack").editIntervalMs, 1000);
  const original = await settings(
    "streaming:\n  enabled: false\n  edit_interval: 0.5\ndisplay:\n  platforms:\n    mattermost:\n      streaming: true\n",
  );
  assert.equal(original.display("slack").streaming, false);
  assert.equal(original.display("slack").editIntervalMs, 500);
  assert.equal(original.display("mattermost").streaming, true);
});
