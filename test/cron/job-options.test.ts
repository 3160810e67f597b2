import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RecordedRequest } from "../fake-provider/types.js";
import { modelRequests, untilModelRequests } from "../gateway/harness.js";
import { tempDir } from "../state/temp-dir.js";
import { hourly, T0, world } from "./world.js";

const systemPrompt = (request: RecordedRequest) =>
  JSON.stringify((request.body.messages as Array<{ role: string }>).filter((m) => m.role === "system"));

test("a job reads project context files only from its own working directory, and never memory", async () => {
  const w = await world({ fallback: { text: "done" } });
  try {
    const project = tempDir("hermes-cron-project-");
    writeFileSync(join(project, "AGENTS.md"), "Project rule: marker-project-rule.");
    mkdirSync(join(w.gw.home, "memories"), { recursive: true });
    writeFileSync(join(w.gw.home, "memories", "MEMORY.md"), "marker-memory-entry");
    await w.cron.createJob(hourly({ name: "in project", workdir: project }));
    await w.cron.createJob(hourly({ name: "plain", nextRunAt: T0 + 1 }));
    w.clock.now = T0 + 5_000;
    await w.ticker().tick();
    const requests = modelRequests(w.gw.fake);
    assert.equal(requests.length, 2);
    const prompts = requests.map(systemPrompt);
    assert.equal(prompts.filter((p) => p.includes("marker-project-rule")).length, 1, "only the job with a workdir");
    assert.ok(
      prompts.every((p) => !p.includes("marker-memory-entry")),
      "no memory in cron runs",
    );
  } finally {
    await w.close();
  }
});

test("a job's skills are loaded into its prompt at fire time; a missing skill blocks it without a model call", async () => {
  const w = await world({ fallback: { text: "done" } });
  try {
    const dir = join(w.gw.home, "skills", "inbox-triage");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "SKILL.md"),
      "---\nname: inbox-triage\ndescription: sort mail\n---\nStep one: marker-skill-step.\n",
    );
    const good = await w.cron.createJob(hourly({ skills: ["inbox-triage"] }));
    const missing = await w.cron.createJob(hourly({ name: "broken", skills: ["no-such-skill"], nextRunAt: T0 + 1 }));
    w.clock.now = T0 + 5_000;
    await w.ticker().tick();
    assert.equal(modelRequests(w.gw.fake).length, 1);
    assert.match(JSON.stringify(modelRequests(w.gw.fake)[0]?.body.messages), /marker-skill-step/);
    assert.equal((await w.cron.runs(good.id))[0]?.status, "ok");
    const [blocked] = await w.cron.runs(missing.id);
    assert.equal(blocked?.status, "skipped");
    assert.match(blocked?.reason ?? "", /blocked: skill not installed: no-such-skill/);
    assert.equal((await w.cron.getJob(missing.id))?.state, "blocked");
  } finally {
    await w.close();
  }
});

test("a job runs on the model it was created with; one whose provider has no key is blocked before any call", async () => {
  const w = await world({ fallback: { text: "done" } });
  const saved = process.env.ANTHROPIC_API_KEY;
  delete process.env.ANTHROPIC_API_KEY;
  try {
    const own = await w.cron.createJob(hourly({ model: "snapshot-model", provider: "custom" }));
    const keyless = await w.cron.createJob(
      hourly({ name: "keyless", model: "claude-x", provider: "anthropic", nextRunAt: T0 + 1 }),
    );
    w.clock.now = T0 + 5_000;
    await w.ticker().tick();
    assert.deepEqual(
      modelRequests(w.gw.fake).map((r) => r.body.model),
      ["snapshot-model"],
    );
    assert.equal((await w.cron.runs(own.id))[0]?.status, "ok");
    const [blocked] = await w.cron.runs(keyless.id);
    assert.match(blocked?.reason ?? "", /blocked: no API key for Anthropic/);
  } finally {
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    await w.close();
  }
});

test("a job whose working directory is gone is blocked", async () => {
  const w = await world({ fallback: { text: "done" } });
  try {
    const job = await w.cron.createJob(hourly({ workdir: join(tempDir("hermes-cron-"), "gone") }));
    await w.ticker().tick();
    assert.match((await w.cron.runs(job.id))[0]?.reason ?? "", /working directory .*gone does not exist/);
    assert.equal(modelRequests(w.gw.fake).length, 0);
  } finally {
    await w.close();
  }
});

test("jobs with a working directory run one at a time, even when both are due together", async () => {
  const project = tempDir("hermes-cron-project-");
  const seen = { overlapped: undefined as boolean | undefined, firstFinished: async () => false };
  let releaseFirst!: () => void;
  const firstGate = new Promise<void>((resolve) => {
    releaseFirst = resolve;
  });
  const w = await world({
    fallback: async (request) => {
      if (JSON.stringify(request.body.messages).includes("first job")) {
        await firstGate;
        return { text: "first done" };
      }
      seen.overlapped = !(await seen.firstFinished());
      releaseFirst();
      return { text: "second done" };
    },
  });
  try {
    const first = await w.cron.createJob(hourly({ prompt: "first job", workdir: project }));
    const second = await w.cron.createJob(hourly({ prompt: "second job", workdir: project, nextRunAt: T0 + 1 }));
    seen.firstFinished = async () => Boolean((await w.cron.runs(first.id))[0]?.finishedAt);
    w.clock.now = T0 + 5_000;
    const ticked = w.ticker().tick();
    // Run together, the second would reach the model while the first waits; one at a time, the
    // first must be let go for the second to start.
    while ((await w.cron.runs(second.id)).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await untilModelRequests(w.gw.fake, 1);
    if (seen.overlapped === undefined) releaseFirst();
    await ticked;
    assert.equal(seen.overlapped, false);
  } finally {
    await w.close();
  }
});
