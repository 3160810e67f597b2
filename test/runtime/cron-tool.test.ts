import assert from "node:assert/strict";
import { test } from "node:test";
import { CRON_DISABLED_TOOLSETS } from "../../src/cron/run-job.js";
import { openCronStore } from "../../src/state/cron-store.js";
import { lastToolResults } from "../helpers/agent-harness.js";
import { openTestRuntime } from "../helpers/test-runtime.js";

const create = {
  toolCalls: [
    {
      name: "cronjob",
      arguments: { action: "create", schedule: "every 2h", prompt: "summarise the open pull requests", name: "prs" },
    },
  ],
};

test("a terminal session schedules a job with the cronjob tool: stored for the gateway's ticker, kept locally", async () => {
  const t = await openTestRuntime({
    cronTool: true,
    script: [create, (req) => ({ text: `result: ${lastToolResults(req)[0]}` })],
  });
  try {
    const agent = t.runtime.createAgent();
    const result = await agent.runConversation("every two hours, summarise the open pull requests");
    assert.match(result.finalResponse ?? "", /"success":true/);
    const cron = await openCronStore(t.runtime.storeLocation);
    try {
      const [job] = await cron.listJobs();
      assert.equal(job?.name, "prs");
      assert.equal(job?.deliver, "local");
      assert.equal(job?.origin, null);
      assert.equal(job?.scheduleDisplay, "every 2h");
    } finally {
      cron.close();
    }
  } finally {
    await t.close();
  }
});

test("scheduled runs get neither cronjob, send_message nor clarify, whatever the job enables", async () => {
  const t = await openTestRuntime({ cronTool: true });
  try {
    const agent = t.runtime.createAgent({
      platform: "cron",
      toolsets: ["hermes-cron"],
      disabledToolsets: CRON_DISABLED_TOOLSETS,
      interactive: false,
    });
    const { published } = await agent.requestPreview();
    const names = [...published.callable];
    assert.ok(names.includes("terminal"));
    for (const banned of ["cronjob", "send_message", "clarify"]) assert.ok(!names.includes(banned), banned);
    const terminal = t.runtime.createAgent();
    assert.ok((await terminal.requestPreview()).published.callable.includes("cronjob"));
  } finally {
    await t.close();
  }
});
