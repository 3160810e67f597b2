import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import type { BackgroundResult } from "../../src/agent/delegation.js";
import type { RecordedRequest, ScriptStep } from "../fake-provider/types.js";
import { lastToolResults } from "../helpers/agent-harness.js";
import { backgroundScript, childGoal, dispatching, HeldChildren } from "../helpers/background-subagents.js";
import { openTestRuntime, type TestRuntime } from "../helpers/test-runtime.js";

const QUIET = "learning:\n  mode: off\n";

async function runtimeWith(step: ScriptStep, config = ""): Promise<TestRuntime> {
  return openTestRuntime({ script: Array.from({ length: 40 }, () => step), config: `${QUIET}${config}` });
}

/** Collects what finishes, as a surface of the cli platform would receive it. */
function collect(t: TestRuntime): { results: BackgroundResult[]; detach: () => void } {
  const results: BackgroundResult[] = [];
  const detach = t.runtime.background.attach({ accepts: () => true, deliver: (result) => results.push(result) });
  return { results, detach };
}

function toolAnswers(t: TestRuntime): Array<Record<string, unknown>> {
  return t.fake.requests
    .filter((req: RecordedRequest) => req.method === "POST" && childGoal(req) === undefined)
    .flatMap((req) => lastToolResults(req).map((text) => JSON.parse(text) as Record<string, unknown>));
}

test("a background dispatch returns at once while the subagent is still working, and its result arrives later", async () => {
  const held = new HeldChildren();
  const t = await runtimeWith(backgroundScript(held, dispatching({ goal: "count the files" })));
  const { results } = collect(t);
  try {
    const agent = t.runtime.createAgent();
    const parent = await agent.runConversation("count the files in the background");
    await held.arrived("count the files");
    const [answer] = toolAnswers(t);
    assert.equal(answer?.status, "dispatched");
    assert.match(String(answer?.delegation_id), /^bg_[0-9a-f]{10}$/);
    assert.match(parent.finalResponse, /"status":"dispatched"/, "the parent's turn ended before the child did");
    assert.equal(t.runtime.background.activeCount, 1);
    assert.equal(results.length, 0, "nothing delivered while the child works");

    held.release("count the files", { text: "There are 12 files." });
    await t.runtime.background.idle();
    assert.equal(results.length, 1);
    assert.equal(results[0]?.id, answer?.delegation_id);
    assert.equal(results[0]?.report.status, "completed");
    assert.equal(results[0]?.report.summary, "There are 12 files.");
    assert.equal(results[0]?.origin.sessionId, agent.sessionId);
    assert.equal(results[0]?.origin.platform, "cli");
  } finally {
    await t.close();
  }
});

test("a dispatch past delegation.max_async_children is refused, and a batch is all or nothing", async () => {
  const held = new HeldChildren();
  let calls = 0;
  const calling = [
    { tasks: [{ goal: "task a" }, { goal: "task b" }] },
    { tasks: [{ goal: "task c" }, { goal: "task d" }] },
    { goal: "task c" },
    { goal: "task d" },
  ];
  const parent = {
    onUser: () => ({ toolCalls: [{ name: "delegate_task", arguments: { ...calling[calls++], background: true } }] }),
    onToolResult: () =>
      calls < calling.length
        ? { toolCalls: [{ name: "delegate_task", arguments: { ...calling[calls++], background: true } }] }
        : { text: "done dispatching" },
  };
  const t = await runtimeWith(backgroundScript(held, parent), "delegation:\n  max_async_children: 3\n");
  collect(t);
  try {
    await t.runtime.createAgent().runConversation("start four things");
    const answers = toolAnswers(t);
    assert.equal(answers[0]?.status, "dispatched");
    assert.equal((answers[0]?.delegations as unknown[] | undefined)?.length, 2);
    assert.equal(answers[1]?.status, "rejected", "two more do not fit beside two running: neither starts");
    assert.match(String(answers[1]?.error), /2 already running and delegation\.max_async_children is 3/);
    assert.equal(answers[2]?.status, "dispatched", "the third fits");
    assert.equal(answers[3]?.status, "rejected", "the fourth does not");
    assert.match(String(answers[3]?.error), /run this task in the foreground \(background: false\)/);
    assert.equal(t.runtime.background.activeCount, 3);
    for (const goal of ["task a", "task b", "task c"]) held.release(goal, { text: `${goal} done` });
    await t.runtime.background.idle();
    assert.equal(
      t.fake.requests.some((req) => childGoal(req) === "task d"),
      false,
      "the refused task never called the model",
    );
  } finally {
    await t.close();
  }
});

test("the same goal dispatched again while it runs returns the running child's id as a duplicate", async () => {
  const held = new HeldChildren();
  let dispatched = 0;
  const again = () => ({
    toolCalls: [{ name: "delegate_task", arguments: { goal: "index the repo", background: true } }],
  });
  const parent = {
    onUser: () => {
      dispatched++;
      return again();
    },
    onToolResult: () => (dispatched++ < 2 ? again() : { text: "ok" }),
  };
  const t = await runtimeWith(backgroundScript(held, parent));
  collect(t);
  try {
    await t.runtime.createAgent().runConversation("index it");
    const [first, second] = toolAnswers(t);
    assert.equal(first?.status, "dispatched");
    assert.equal(second?.status, "duplicate");
    assert.equal(second?.delegation_id, first?.delegation_id);
    assert.equal(t.runtime.background.activeCount, 1);
    held.release("index the repo", { text: "indexed" });
    await t.runtime.background.idle();
  } finally {
    await t.close();
  }
});

test("background is refused where nothing would bring the result back", async () => {
  const held = new HeldChildren();
  const t = await runtimeWith(backgroundScript(held, dispatching({ goal: "orphan work" })));
  try {
    await t.runtime.createAgent({ platform: "cron" }).runConversation("go");
    const [answer] = toolAnswers(t);
    assert.equal(answer?.status, "rejected");
    assert.match(String(answer?.error), /platform cron.*run the task in the foreground/);
    assert.equal(t.runtime.background.activeCount, 0);
  } finally {
    await t.close();
  }
});

test("a subagent past delegation.child_timeout_seconds is delivered as a failure", async () => {
  const held = new HeldChildren();
  const t = await runtimeWith(
    backgroundScript(held, dispatching({ goal: "never answers" })),
    "delegation:\n  child_timeout_seconds: 0.2\n",
  );
  const { results } = collect(t);
  try {
    await t.runtime.createAgent().runConversation("go");
    await t.runtime.background.idle();
    assert.equal(results[0]?.report.status, "failed");
    assert.match(String(results[0]?.report.error), /delegation\.child_timeout_seconds/);
  } finally {
    held.release("never answers", { text: "too late" });
    await t.close();
  }
});

/** A model endpoint that never answers and records when a client gives up on its request. */
async function silentEndpoint() {
  const open = new Set<IncomingMessage>();
  const abandoned: string[] = [];
  let arrived!: () => void;
  const firstArrival = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let gaveUp!: () => void;
  const firstAbandoned = new Promise<void>((resolve) => {
    gaveUp = resolve;
  });
  const server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(404).end();
      return;
    }
    open.add(req);
    res.on("close", () => {
      open.delete(req);
      abandoned.push(req.url ?? "");
      gaveUp();
    });
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    open,
    abandoned,
    firstArrival,
    /** Resolves when the server saw a client drop its request; fails after a bounded wait. */
    firstAbandoned: () =>
      Promise.race([
        firstAbandoned,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("no request was abandoned")), 5000).unref(),
        ),
      ]),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test("closing the runtime stops running background subagents and their model requests", async () => {
  const endpoint = await silentEndpoint();
  const held = new HeldChildren();
  const t = await runtimeWith(
    backgroundScript(held, dispatching({ goal: "slow research" })),
    `delegation:\n  base_url: ${endpoint.url}\n  api_key: child-key\n  model: child-model\n`,
  );
  const { results } = collect(t);
  let closed = false;
  try {
    await t.runtime.createAgent().runConversation("research slowly");
    await endpoint.firstArrival;
    assert.equal(t.runtime.background.activeCount, 1);
    await t.runtime.close();
    closed = true;
    assert.equal(t.runtime.background.activeCount, 0);
    await endpoint.firstAbandoned();
    assert.equal(endpoint.open.size, 0, "the subagent's model request was aborted, not left open");
    assert.equal(endpoint.abandoned.length, 1);
    assert.deepEqual(results, [], "a child stopped by the closing runtime is not delivered");
    assert.ok(t.notices.some((notice) => /stopped 1 background subagent/.test(notice)));
  } finally {
    if (!closed) await t.runtime.close();
    await t.fake.close();
    await endpoint.close();
  }
});
