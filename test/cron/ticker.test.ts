import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { executeRun } from "../../src/cron/run-job.js";
import { modelRequests } from "../gateway/harness.js";
import { hourly, T0, world } from "./world.js";

test("a due job runs the agent, keeps its output and delivers it through the ledger to the home channel", async () => {
  const w = await world({ fallback: { text: "3 new messages, none urgent." } });
  try {
    const job = await w.cron.createJob(hourly());
    w.clock.now = T0 + 5_000;
    const report = await w.ticker().tick();
    assert.deepEqual(report.fired, [job.id]);
    const [run] = await w.cron.runs(job.id);
    assert.equal(run?.status, "ok");
    assert.deepEqual(run?.deliveries, [{ target: "test:home", state: "queued" }]);
    assert.equal(readFileSync(run!.outputPath!, "utf8"), "3 new messages, none urgent.");
    assert.equal((await w.cron.getJob(job.id))?.nextRunAt, T0 + 3_600_000, "the next fire is an hour after this one");
    const request = modelRequests(w.gw.fake)[0]!;
    assert.match(JSON.stringify(request.body.messages), /summarise the inbox/);
    await w.gw.runner.deliveries.sweep();
    assert.equal(
      await w.gw.adapter.waitForText(/none urgent/, "home"),
      "⏰ hourly digest\n\n3 new messages, none urgent.",
    );
    const again = await w.ticker().tick();
    assert.equal(again.leader, true);
    assert.deepEqual(again.fired, [], "not due again yet");
  } finally {
    await w.close();
  }
});

test("a fire missed beyond its grace is recorded as skipped and the job moves on, without a model call", async () => {
  const w = await world();
  try {
    const job = await w.cron.createJob(hourly());
    w.clock.now = T0 + 5 * 3_600_000 + 60_000;
    const report = await w.ticker().tick();
    assert.deepEqual(report.skipped, [job.id]);
    const [run] = await w.cron.runs(job.id);
    assert.equal(run?.status, "skipped");
    assert.match(run?.reason ?? "", /missed by 18060 s \(grace 1800 s\); moved on to the next time/);
    assert.equal((await w.cron.getJob(job.id))?.nextRunAt, T0 + 6 * 3_600_000);
    assert.equal(modelRequests(w.gw.fake).length, 0);
  } finally {
    await w.close();
  }
});

test("a silent reply is kept but not delivered, and recorded as silent", async () => {
  const w = await world({ fallback: { text: "[SILENT]" } });
  try {
    const job = await w.cron.createJob(hourly());
    await w.ticker().tick();
    const [run] = await w.cron.runs(job.id);
    assert.equal(run?.status, "silent");
    assert.deepEqual(run?.deliveries, []);
    assert.deepEqual(await w.gw.store.dueDeliveries(Number.MAX_SAFE_INTEGER, 10), []);
  } finally {
    await w.close();
  }
});

test("a failing model call is recorded as an error and the error goes to failure_deliver", async () => {
  const w = await world({ fallback: { fault: { kind: "status", status: 401, message: "bad key" } } });
  try {
    const job = await w.cron.createJob(hourly({ failureDeliver: "test:alerts" }));
    await w.ticker().tick();
    const [run] = await w.cron.runs(job.id);
    assert.equal(run?.status, "error");
    assert.match(run?.reason ?? "", /rejected the credentials/);
    assert.equal((await w.cron.getJob(job.id))?.lastStatus, "error");
    await w.gw.runner.deliveries.sweep();
    assert.match(await w.gw.adapter.waitForText(/failed/, "alerts"), /Cron job "hourly digest" failed: .*credentials/);
  } finally {
    await w.close();
  }
});

test("a script-only job delivers its output verbatim, reading .env fresh at fire time", async () => {
  const w = await world();
  try {
    mkdirSync(join(w.gw.home, "scripts"));
    const script = join(w.gw.home, "scripts", "weather.sh");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell parameter expansion
    writeFileSync(script, '#!/bin/sh\necho "forecast with key ${WEATHER_KEY:-none}"\n');
    chmodSync(script, 0o755);
    writeFileSync(join(w.gw.home, ".env"), "WEATHER_KEY=changed-after-start\n");
    const job = await w.cron.createJob(hourly({ script: "weather.sh", noAgent: true, prompt: "" }));
    await w.ticker().tick();
    const [run] = await w.cron.runs(job.id);
    assert.equal(run?.status, "ok", run?.reason ?? "");
    await w.gw.runner.deliveries.sweep();
    assert.match(await w.gw.adapter.waitForText(/forecast/, "home"), /forecast with key changed-after-start$/);
    assert.equal(modelRequests(w.gw.fake).length, 0);
  } finally {
    await w.close();
  }
});

test("a job whose script is missing is blocked before any model call, and the skip says why", async () => {
  const w = await world();
  try {
    const job = await w.cron.createJob(hourly({ script: "gone.sh" }));
    await w.ticker().tick();
    const [run] = await w.cron.runs(job.id);
    assert.equal(run?.status, "skipped");
    assert.match(run?.reason ?? "", /blocked: script gone\.sh does not exist/);
    assert.equal((await w.cron.getJob(job.id))?.state, "blocked");
    assert.equal(modelRequests(w.gw.fake).length, 0);
    await w.cron.createJob(hourly({ name: "escape", script: "../../etc/passwd" }));
    await w.ticker().tick();
    const escaped = (await w.cron.listJobs()).find((j) => j.name === "escape");
    assert.match(escaped?.pausedReason ?? "", /outside/);
  } finally {
    await w.close();
  }
});

test("only the ticker holding the lease fires; runs a crash left open are closed as interrupted", async () => {
  const w = await world();
  try {
    const job = await w.cron.createJob(hourly());
    const first = w.ticker();
    const second = w.ticker(true);
    const [a, b] = await Promise.all([first.tick(), second.tick()]);
    assert.equal([a, b].filter((r) => r.leader).length, 1);
    assert.deepEqual([...a.fired, ...b.fired], [job.id]);
    assert.equal(modelRequests(w.gw.fake).length, 1);

    // A run left "running" by a process that died.
    const orphan = await w.cron.claimFire(job.id, null, null);
    assert.equal(await w.ticker().closeInterrupted(), 1);
    assert.equal((await w.cron.getRun(orphan!.id))?.status, "error");
    assert.match((await w.cron.getRun(orphan!.id))?.reason ?? "", /interrupted/);
  } finally {
    await w.close();
  }
});

test("outputs beyond cron.output_retention are removed, oldest first", async () => {
  const w = await world({ fallback: { text: "report" } }, "cron:\n  output_retention: 2\n");
  try {
    const job = await w.cron.createJob(hourly({ deliver: "local" }));
    const deps = { runtime: w.gw.runtime, cron: w.cron, gateway: w.gw.store, home: w.gw.home, timeoutMs: 0 };
    for (let i = 0; i < 3; i++) {
      const run = await w.cron.claimFire(job.id, null, null);
      await executeRun({ ...deps, now: () => T0 + i * 1000 }, job, run!);
    }
    const dir = join(w.gw.home, "cron", "output", job.id);
    assert.ok(existsSync(dir));
    assert.equal(readdirSync(dir).length, 2);
  } finally {
    await w.close();
  }
});

test("a cron script runs in the OS sandbox: the agent's own secrets are out of its reach", async (t) => {
  if (!["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some((p) => existsSync(p))) {
    return t.diagnostic("bubblewrap is not installed; the sandbox case is checked where it is (CI installs it)");
  }
  const w = await world({}, 'sandbox:\n  mode: "workspace-write"\n');
  try {
    assert.equal(w.gw.runtime.sandbox.mode, "workspace-write");
    writeFileSync(join(w.gw.home, "auth.json"), '{"token":"sk-should-stay-hidden"}\n');
    mkdirSync(join(w.gw.home, "scripts"));
    const script = join(w.gw.home, "scripts", "peek.sh");
    writeFileSync(script, '#!/bin/sh\ncat "$HERMES_HOME/auth.json" 2>/dev/null || echo "auth.json: not readable"\n');
    chmodSync(script, 0o755);
    const job = await w.cron.createJob(hourly({ script: "peek.sh", noAgent: true, prompt: "" }));
    await w.ticker().tick();
    const [run] = await w.cron.runs(job.id);
    assert.equal(run?.status, "ok", run?.reason ?? "");
    assert.equal(readFileSync(run!.outputPath!, "utf8"), "auth.json: not readable");
  } finally {
    await w.close();
  }
});

test("a job the agent schedules from a chat with the cronjob tool delivers back to that chat", async () => {
  const { registerCronjobTool } = await import("../../src/tools/builtin/cronjob.js");
  const { cronToolBackend } = await import("../../src/cron/tool-backend.js");
  const { lastToolResults } = await import("../helpers/agent-harness.js");
  const w = await world({
    script: [
      {
        toolCalls: [
          {
            name: "cronjob",
            arguments: { action: "create", schedule: "every 1h", prompt: "check the build status", name: "build" },
          },
        ],
      },
      (req) => ({ text: `scheduled: ${lastToolResults(req)[0]}` }),
      { text: "The build is green." },
    ],
  });
  try {
    registerCronjobTool(w.gw.runtime.registry, cronToolBackend(w.cron, { now: () => w.clock.now, home: w.gw.home }));
    w.gw.adapter.inject({ chatId: "dev-chat", messageId: "1", text: "tell me every hour how the build is" });
    const confirmation = await w.gw.adapter.waitForText(/^scheduled:/, "dev-chat");
    assert.match(confirmation, /"success":true/);
    const [job] = await w.cron.listJobs();
    assert.equal(job?.deliver, "origin");
    assert.deepEqual(job?.origin, {
      platform: "test",
      chatId: "dev-chat",
      threadId: null,
      userId: "user-1",
      sessionKey: "agent:main:test:dm:dev-chat",
    });
    assert.equal(job?.nextRunAt, T0 + 3_600_000);

    w.clock.now = T0 + 3_600_000 + 1000;
    assert.deepEqual((await w.ticker().tick()).fired, [job?.id]);
    await w.gw.runner.deliveries.sweep();
    assert.equal(await w.gw.adapter.waitForText(/green/, "dev-chat"), "⏰ build\n\nThe build is green.");
  } finally {
    await w.close();
  }
});

async function scheduledFromChat(config: string) {
  const { registerCronjobTool } = await import("../../src/tools/builtin/cronjob.js");
  const { cronToolBackend } = await import("../../src/cron/tool-backend.js");
  const w = await world(
    {
      script: [
        {
          toolCalls: [
            {
              name: "cronjob",
              arguments: { action: "create", schedule: "every 1h", prompt: "check the build", name: "build" },
            },
          ],
        },
        { text: "scheduled" },
        { text: "The build is green." },
        { text: "It was the nightly one." },
      ],
    },
    config,
  );
  registerCronjobTool(w.gw.runtime.registry, cronToolBackend(w.cron, { now: () => w.clock.now, home: w.gw.home }));
  w.gw.adapter.inject({ chatId: "dev-chat", messageId: "1", text: "tell me every hour how the build is" });
  await w.gw.adapter.waitForText(/^scheduled/, "dev-chat");
  w.clock.now = T0 + 3_600_000 + 1000;
  await w.ticker().tick();
  await w.gw.runner.deliveries.sweep();
  await w.gw.adapter.waitForText(/green/, "dev-chat");
  w.gw.adapter.inject({ chatId: "dev-chat", messageId: "2", text: "which build was that?" });
  await w.gw.adapter.waitForText(/nightly/, "dev-chat");
  const followUp = w.gw.fake.requests.filter((r) => r.method === "POST").at(-1)!;
  const assistantTexts = (followUp.body.messages as Array<{ role: string; content: unknown }>)
    .filter((m) => m.role === "assistant" && typeof m.content === "string")
    .map((m) => m.content as string);
  return { w, assistantTexts };
}

test("cron.mirror_delivery: the chat a job was made in keeps what the job sent, so a reply has it in context", async () => {
  const { w, assistantTexts } = await scheduledFromChat("cron:\n  mirror_delivery: true\n");
  try {
    assert.ok(
      assistantTexts.includes('[Sent to this chat by the scheduled job "build":]\nThe build is green.'),
      assistantTexts.join("\n---\n"),
    );
  } finally {
    await w.close();
  }
});

test("cron.mirror_delivery off (the default): a reply to a job's message does not see it", async () => {
  const { w, assistantTexts } = await scheduledFromChat("");
  try {
    assert.ok(!assistantTexts.some((text) => text.includes("The build is green.")), assistantTexts.join("\n---\n"));
  } finally {
    await w.close();
  }
});

test("the cronjob tool explains what is missing instead of failing", async () => {
  const { cronjobTool } = await import("../../src/tools/builtin/cronjob.js");
  const { cronToolBackend } = await import("../../src/cron/tool-backend.js");
  const none = JSON.parse(await cronjobTool({ action: "list" }, {}));
  assert.match(none.error, /not available here/);
  const w = await world();
  try {
    const services = { cron: cronToolBackend(w.cron, { home: w.gw.home }) };
    assert.match(JSON.parse(await cronjobTool({ action: "pause" }, { services })).error, /pause needs job_id/);
    assert.match(
      JSON.parse(await cronjobTool({ action: "create", prompt: "x" }, { services })).error,
      /needs schedule and prompt/,
    );
    assert.match(
      JSON.parse(await cronjobTool({ action: "create", prompt: "x", schedule: "whenever" }, { services })).error,
      /not a schedule/,
    );
    assert.match(
      JSON.parse(await cronjobTool({ action: "remove", job_id: "0123456789ab" }, { services })).error,
      /no job/,
    );
    const made = JSON.parse(await cronjobTool({ action: "create", prompt: "x", schedule: "every 1h" }, { services }));
    assert.equal(made.job.deliver, "local", "without a chat, output stays local");
    const paused = JSON.parse(await cronjobTool({ action: "pause", job_id: made.job.id }, { services }));
    assert.equal(paused.job.state, "paused");
    const soon = JSON.parse(await cronjobTool({ action: "run", job_id: made.job.id }, { services }));
    assert.equal(soon.job.state, "scheduled");
  } finally {
    await w.close();
  }
});

test("HERMES_CRON_TIMEOUT limits inactivity: a stalled run is stopped and recorded, a slow steady one finishes", async () => {
  const steady = "word ".repeat(30).trim();
  const w = await world({
    script: [
      { text: "starting and then nothing", fault: { kind: "stall", afterChunks: 1 } },
      { text: steady, chunkDelayMs: 50 },
    ],
  });
  try {
    // Gaps of 50 ms stay far below the 1 s limit even on a loaded machine; the whole run takes longer.
    const deps = { runtime: w.gw.runtime, cron: w.cron, gateway: w.gw.store, home: w.gw.home, timeoutMs: 1000 };
    const job = await w.cron.createJob(hourly({ deliver: "local" }));
    const stalled = await executeRun(deps, job, (await w.cron.claimFire(job.id, null, null))!);
    assert.equal(stalled.status, "timed_out");
    assert.match(stalled.reason ?? "", /without progress/);
    const slow = await executeRun(deps, job, (await w.cron.claimFire(job.id, null, null))!);
    assert.equal(slow.status, "ok", "30 chunks 50 ms apart take longer than the limit, but never pause that long");
    assert.equal(readFileSync(slow.outputPath!, "utf8"), steady);
  } finally {
    await w.close();
  }
});

test("/cron lists and manages this chat's jobs only; another chat's job looks like no job", async () => {
  const { cronToolBackend } = await import("../../src/cron/tool-backend.js");
  const { GatewayRunner } = await import("../../src/gateway/runner.js");
  const w = await world();
  try {
    const scheduler = cronToolBackend(w.cron, { now: () => w.clock.now, home: w.gw.home });
    const mine = (await scheduler.create(
      { schedule: "every 1h", prompt: "x", name: "mine" },
      { platform: "test", chatId: "chat-1" },
    )) as { id: string };
    const theirs = (await scheduler.create(
      { schedule: "every 1h", prompt: "y", name: "theirs" },
      { platform: "test", chatId: "other-chat" },
    )) as { id: string };
    // The harness's runner has no scheduler: /cron says so.
    w.gw.adapter.inject({ messageId: "0", text: "/cron" });
    await w.gw.adapter.waitForText(/not available here/);
    Object.assign((w.gw.runner as InstanceType<typeof GatewayRunner>).options, { scheduler });
    w.gw.adapter.inject({ messageId: "1", text: "/cron" });
    const listing = await w.gw.adapter.waitForText(/\[every 1h\]/);
    assert.match(listing, new RegExp(`${mine.id} {2}mine`));
    assert.doesNotMatch(listing, /theirs/);
    w.gw.adapter.inject({ messageId: "2", text: `/cron pause ${theirs.id}` });
    await w.gw.adapter.waitForText(new RegExp(`no job ${theirs.id}`));
    assert.equal((await w.cron.getJob(theirs.id))?.state, "scheduled");
    w.gw.adapter.inject({ messageId: "3", text: `/cron pause ${mine.id}` });
    await w.gw.adapter.waitForText(/Paused/);
    assert.equal((await w.cron.getJob(mine.id))?.state, "paused");
  } finally {
    await w.close();
  }
});

test("a cron-expression job fires at its minute and moves to the next day; a one-shot job fires once and completes", async () => {
  const w = await world({ fallback: { text: "done" } });
  try {
    const daily = await w.cron.createJob(
      hourly({
        name: "daily",
        schedule: { kind: "cron", expr: "0 9 * * *", tz: "UTC" },
        scheduleDisplay: "0 9 * * *",
        nextRunAt: Date.parse("2026-11-24T09:00:00Z"),
      }),
    );
    const once = await w.cron.createJob(
      hourly({
        name: "once",
        schedule: { kind: "once", runAt: "2026-11-24T09:00:30Z" },
        scheduleDisplay: "30s",
        nextRunAt: Date.parse("2026-11-24T09:00:30Z"),
      }),
    );
    w.clock.now = Date.parse("2026-11-24T08:59:59Z");
    assert.deepEqual((await w.ticker().tick()).fired, [], "not yet");
    w.clock.now = Date.parse("2026-11-24T09:01:00Z");
    assert.deepEqual((await w.ticker().tick()).fired.sort(), [daily.id, once.id].sort());
    assert.equal((await w.cron.getJob(daily.id))?.nextRunAt, Date.parse("2026-11-25T09:00:00Z"));
    const finished = await w.cron.getJob(once.id);
    assert.equal(finished?.state, "completed");
    assert.equal(finished?.nextRunAt, null);
    w.clock.now = Date.parse("2026-11-25T09:00:10Z");
    assert.deepEqual((await w.ticker().tick()).fired, [daily.id], "the one-shot job does not fire again");
  } finally {
    await w.close();
  }
});

test("a delivery made while no gateway runs waits in the ledger and is sent once when one starts", async () => {
  const w = await world({ fallback: { text: "nightly report" } });
  try {
    await w.gw.runner.stop();
    const job = await w.cron.createJob(hourly());
    await w.ticker().tick();
    assert.deepEqual((await w.cron.runs(job.id))[0]?.deliveries, [{ target: "test:home", state: "queued" }]);
    assert.deepEqual(w.gw.adapter.texts(), [], "nothing is sent while the gateway is down");
    await w.gw.restart();
    await w.gw.adapter.waitForText(/nightly report/, "home");
    await w.gw.restart();
    assert.deepEqual(w.gw.adapter.texts(), [], "and only once");
  } finally {
    await w.close();
  }
});
