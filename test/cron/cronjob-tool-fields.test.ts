import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cronToolBackend } from "../../src/cron/tool-backend.js";
import { openCronStore } from "../../src/state/cron-store.js";
import { cronjobTool } from "../../src/tools/builtin/cronjob.js";
import { modelRequests } from "../gateway/harness.js";
import { tempDir } from "../state/temp-dir.js";
import { T0, world } from "./world.js";

const chat = { platform: "test", chatId: "chat-1" };

/** A Hermes home with a script, a skill and a project directory, and the tool bound to a chat. */
async function setup(options: { configuredHosts?: string[] } = {}) {
  const home = tempDir("hermes-cron-fields-");
  mkdirSync(join(home, "scripts"), { recursive: true });
  writeFileSync(join(home, "scripts", "disk.sh"), "df -h /\n");
  mkdirSync(join(home, "skills", "inbox-triage"), { recursive: true });
  writeFileSync(
    join(home, "skills", "inbox-triage", "SKILL.md"),
    "---\nname: inbox-triage\ndescription: sort mail\n---\nSort it.\n",
  );
  const project = tempDir("hermes-cron-project-");
  const store = await openCronStore(join(home, "state.db"));
  const backend = cronToolBackend(store, {
    home,
    now: () => T0,
    configuredHosts: new Set(options.configuredHosts ?? []),
  });
  const call = async (args: Record<string, unknown>, origin: typeof chat | null = chat) =>
    JSON.parse(
      await cronjobTool(args as Parameters<typeof cronjobTool>[0], {
        services: { cron: backend, ...(origin ? { cronOrigin: origin } : {}) },
      }),
    ) as { success: boolean; error?: string; job?: Record<string, unknown> };
  const create = (extra: Record<string, unknown>, origin: typeof chat | null = chat) =>
    call({ action: "create", schedule: "every 1h", prompt: "check the disk", ...extra }, origin);
  return { home, project, store, call, create };
}

test("the cronjob tool sets a job's skills, script, context, toolsets, directory and model, and shows them", async () => {
  const s = await setup();
  try {
    const first = await s.create({ name: "first" });
    const made = await s.create({
      skills: ["inbox-triage", " inbox-triage "],
      script: "disk.sh",
      context_from: ["self", first.job?.id],
      enabled_toolsets: ["terminal", "file"],
      workdir: s.project,
      model: "local-model",
      provider: "custom",
      base_url: "http://127.0.0.1:11434/v1/",
    });
    assert.equal(made.success, true, made.error);
    const stored = await s.store.getJob(made.job?.id as string);
    assert.deepEqual(stored?.skills, ["inbox-triage"], "names are trimmed and repeats dropped");
    assert.equal(stored?.script, "disk.sh");
    assert.deepEqual(stored?.contextFrom, ["self", first.job?.id]);
    assert.deepEqual(stored?.enabledToolsets, ["terminal", "file"]);
    assert.equal(stored?.workdir, s.project);
    assert.deepEqual(
      [stored?.model, stored?.provider, stored?.baseUrl],
      ["local-model", "custom", "http://127.0.0.1:11434/v1"],
    );
    assert.deepEqual(made.job?.skills, ["inbox-triage"]);
    assert.equal(made.job?.workdir, s.project);
    assert.equal(made.job?.base_url, "http://127.0.0.1:11434/v1");

    const scriptOnly = await s.create({ script: "disk.sh", no_agent: true });
    assert.equal((await s.store.getJob(scriptOnly.job?.id as string))?.noAgent, true);
  } finally {
    s.store.close();
  }
});

test("the cronjob tool refuses scripts, directories, skills, jobs and toolsets a chat must not reach", async () => {
  const s = await setup();
  try {
    const other = await s.create({ name: "theirs" }, { platform: "test", chatId: "other-chat" });
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ script: "/etc/passwd" }, /must be a file name under .*scripts/],
      [{ script: "~/x.sh" }, /must be a file name under/],
      [{ script: "../config.yaml" }, /outside/],
      [{ script: "missing.sh" }, /does not exist/],
      [{ no_agent: true }, /no_agent needs a script/],
      [{ workdir: "relative/dir" }, /must be an absolute path/],
      [{ workdir: s.home }, /inside the Hermes home/],
      [{ workdir: join(s.home, "skills") }, /inside the Hermes home/],
      [{ workdir: join(s.project, "gone") }, /not an existing directory/],
      [{ skills: ["no-such-skill"] }, /skill not installed: no-such-skill/],
      [{ context_from: [other.job?.id] }, /context_from: no job/],
      [{ context_from: ["../../etc"] }, /context_from: no job/],
      [{ enabled_toolsets: ["terminal", "root-shell"] }, /unknown toolset: root-shell/],
      [{ model: "m", provider: "no-such-provider" }, /unknown provider/],
      [{ provider: "openrouter" }, /provider goes with model/],
    ];
    for (const [extra, expected] of refusals) {
      const result = await s.create(extra);
      assert.equal(result.success, false, JSON.stringify(extra));
      assert.match(result.error ?? "", expected, JSON.stringify(extra));
    }
    assert.equal((await s.store.listJobs()).length, 1, "nothing refused was stored");
  } finally {
    s.store.close();
  }
});

test("a job's base URL may only be one its key already goes to", async () => {
  const s = await setup({ configuredHosts: ["models.internal.example"] });
  try {
    const refused = await s.create({ model: "gpt-x", base_url: "https://collector.example/v1" });
    assert.match(refused.error ?? "", /refused: a scheduled job may send its key only to/);
    const named = await s.create({ model: "x", provider: "openrouter", base_url: "https://collector.example/api/v1" });
    assert.match(named.error ?? "", /refused/);
    assert.match((await s.create({ base_url: "http://localhost:8080/v1" })).error ?? "", /base_url goes with model/);
    assert.match((await s.create({ model: "m", base_url: "ftp://x" })).error ?? "", /not usable/);

    const own = await s.create({ model: "x", provider: "openrouter", base_url: "https://openrouter.ai/api/v1" });
    assert.equal(own.success, true, own.error);
    const configured = await s.create({ model: "m", base_url: "https://models.internal.example/v1" });
    assert.equal(configured.success, true, configured.error);
    assert.equal(configured.job?.provider, "custom", "a bare base URL is a custom endpoint");
    const local = await s.create({ model: "m", base_url: "http://[::1]:8080/v1" });
    assert.equal(local.success, true, local.error);

    // A URL set from the terminal cannot later be paired with another provider's key.
    const fromTerminal = await s.store.createJob({
      name: "terminal job",
      prompt: "p",
      schedule: { kind: "interval", minutes: 60 },
      scheduleDisplay: "every 1h",
      origin: chat,
      model: "m",
      provider: "custom",
      baseUrl: "https://gpu-box.example/v1",
    });
    const swapped = await s.call({ action: "update", job_id: fromTerminal.id, provider: "anthropic" });
    assert.match(swapped.error ?? "", /refused/);
    const renamed = await s.call({ action: "update", job_id: fromTerminal.id, name: "still fine" });
    assert.equal(renamed.success, true, "other fields of such a job stay editable");
  } finally {
    s.store.close();
  }
});

test("updating a job through the tool changes, clears and counts what it names", async () => {
  const s = await setup();
  try {
    const made = await s.create({ skills: ["inbox-triage"], workdir: s.project, script: "disk.sh" });
    const id = made.job?.id as string;
    const updated = await s.call({ action: "update", job_id: id, repeat: 3, skills: [], workdir: "", script: "" });
    assert.equal(updated.success, true, updated.error);
    const job = await s.store.getJob(id);
    assert.deepEqual(job?.repeat, { times: 3, completed: 0 });
    assert.deepEqual(job?.skills, []);
    assert.equal(job?.workdir, null);
    assert.equal(job?.script, null);
    assert.equal(updated.job?.repeat, "0/3");
    assert.match((await s.call({ action: "update", job_id: id })).error ?? "", /at least one field/);
    const noScript = await s.call({ action: "update", job_id: id, no_agent: true });
    assert.match(noScript.error ?? "", /no_agent needs a script/);
  } finally {
    s.store.close();
  }
});

test("context_from 'self' gives a recurring job its own previous output", async () => {
  let reports = 0;
  const w = await world({ fallback: () => ({ text: `report ${++reports}` }) });
  try {
    const scheduler = cronToolBackend(w.cron, { now: () => w.clock.now, home: w.gw.home });
    const job = (await scheduler.create(
      { schedule: "every 1h", prompt: "report what changed", context_from: ["self"], deliver: "local" },
      null,
    )) as { id: string };
    w.clock.now = T0 + 3_600_000 + 1000;
    await w.ticker().tick();
    w.clock.now = T0 + 2 * 3_600_000 + 1000;
    await w.ticker().tick();
    const prompts = modelRequests(w.gw.fake).map((request) => JSON.stringify(request.body.messages));
    assert.equal(prompts.length, 2);
    assert.doesNotMatch(prompts[0] ?? "", /previous output/, "the first run has nothing before it");
    assert.match(prompts[1] ?? "", /This job's previous output:\\nreport 1/);
    assert.equal((await w.cron.runs(job.id)).length, 2);
  } finally {
    await w.close();
  }
});
