import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { runNode } from "../helpers/run-node.js";
import { tempDir } from "../state/temp-dir.js";

let fake: FakeProvider;
before(async () => {
  fake = await startFakeProvider({ fallback: { text: "Nothing new in the inbox." } });
});
after(() => fake.close());

function setup() {
  const home = tempDir("hermes-cron-cli-");
  writeFileSync(join(home, "config.yaml"), `model:\n  default: m\n  provider: custom\n  base_url: ${fake.url}/v1\n`);
  const env = { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "", API_SERVER_ENABLED: "" };
  return { home, hermes: (...args: string[]) => runNode(["dist/cli/main.js", ...args], { env }) };
}

test("hermes cron create, list, run and runs: the run is recorded with its output and queued delivery", async () => {
  const { home, hermes } = setup();
  const created = await hermes(
    "cron",
    "create",
    "every 2h",
    "check the inbox",
    "--name",
    "inbox",
    "--deliver",
    "telegram:42",
  );
  assert.equal(created.code, 0, created.stderr);
  const id = /Created ([0-9a-f]{12})/.exec(created.stdout)?.[1];
  assert.ok(id, created.stdout);
  assert.match(
    (await hermes("cron", "list")).stdout,
    new RegExp(`${id} {2}inbox {2}\\[every 2h\\] {2}→ telegram:42 {2}next `),
  );

  const ran = await hermes("cron", "run", id);
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /^#\d+ ok/);
  assert.match(ran.stdout, /Deliveries are queued in the gateway's ledger/);
  const output = /output: (\S+)/.exec(ran.stdout)?.[1];
  assert.ok(output && existsSync(output));
  assert.equal(readFileSync(output, "utf8"), "Nothing new in the inbox.");
  assert.ok(output.startsWith(join(home, "cron", "output", id)));

  const status = await hermes("cron", "status");
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /No gateway is running: .*deliveries wait in the ledger until a gateway starts/);
  assert.match(status.stdout, /1 job\(s\); next fire: inbox at /);
  assert.match(status.stdout, /1 cron delivery waiting in the ledger/);

  const runs = await hermes("cron", "runs", id);
  assert.match(runs.stdout, /ok {2}→ telegram:42:queued/);
  assert.match((await hermes("cron", "list")).stdout, /last ok/);
});

test("hermes cron refuses a bad schedule, an unknown job, and --no-agent without a script", async () => {
  const { hermes } = setup();
  const bad = await hermes("cron", "create", "every fortnight-ish", "x");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /not a (duration|schedule)|fortnight/);
  const unknown = await hermes("cron", "run", "0123456789ab");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no cron job 0123456789ab/);
  const noAgent = await hermes("cron", "create", "every 1h", "x", "--no-agent");
  assert.equal(noAgent.code, 2);
  assert.match(noAgent.stderr, /--no-agent needs --script/);
});

test("hermes cron pause and resume, remove, and tick when nothing is due", async () => {
  const { hermes } = setup();
  const created = await hermes("cron", "create", "every 1h", "x", "--name", "p");
  const id = /Created ([0-9a-f]{12})/.exec(created.stdout)?.[1] ?? assert.fail(created.stdout + created.stderr);
  assert.match((await hermes("cron", "pause", id)).stdout, /paused \(paused with hermes cron pause\)/);
  const edited = await hermes(
    "cron",
    "edit",
    id,
    "--schedule",
    "every 3h",
    "--deliver",
    "telegram",
    "--name",
    "renamed",
  );
  assert.equal(edited.code, 0, edited.stderr);
  assert.match(edited.stdout, /renamed {2}\[every 3h\] {2}→ telegram/);
  assert.equal((await hermes("cron", "edit", id)).code, 2, "an edit with nothing to change is refused");
  assert.match((await hermes("cron", "resume", id)).stdout, /next /);
  const tick = await hermes("cron", "tick");
  assert.equal(tick.code, 0, tick.stderr);
  assert.match(tick.stdout, /Fired 0, skipped 0\./);
  assert.equal((await hermes("cron", "remove", id)).code, 0);
  assert.match((await hermes("cron", "list")).stdout, /No cron jobs/);
});

test("hermes cron create records the job's model, skills, working directory and inputs, and checks them", async () => {
  const { home, hermes } = setup();
  const project = tempDir("hermes-cron-project-");
  const upstream = /Created ([0-9a-f]{12})/.exec((await hermes("cron", "create", "every 1h", "collect")).stdout)?.[1];
  const created = await hermes(
    "cron",
    "create",
    "every 1h",
    "triage",
    "--model",
    "anthropic/claude-x",
    "--skills",
    "inbox-triage, summarise",
    "--workdir",
    project,
    "--context-from",
    `${upstream},self`,
  );
  assert.equal(created.code, 0, created.stderr);
  const id = /Created ([0-9a-f]{12})/.exec(created.stdout)?.[1] as string;
  const { openCronStore } = await import("../../src/state/cron-store.js");
  const store = await openCronStore(join(home, "state.db"));
  const job = await store.getJob(id);
  store.close();
  assert.deepEqual(
    [job?.model, job?.provider, job?.skills, job?.workdir, job?.contextFrom],
    ["claude-x", "anthropic", ["inbox-triage", "summarise"], project, [upstream, "self"]],
  );
  const strayJob = await hermes("cron", "create", "every 1h", "x", "--context-from", "bbbbbbbbbbbb");
  assert.equal(strayJob.code, 2);
  assert.match(strayJob.stderr, /--context-from: no job bbbbbbbbbbbb/);
  const missingDir = await hermes("cron", "create", "every 1h", "x", "--workdir", join(project, "nope"));
  assert.equal(missingDir.code, 2);
  assert.match(missingDir.stderr, /--workdir .*nope is not a directory/);
  const strayUrl = await hermes("cron", "create", "every 1h", "x", "--base-url", "http://127.0.0.1:9/v1");
  assert.match(strayUrl.stderr, /--base-url goes with --model/);
});
