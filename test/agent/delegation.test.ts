import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import type { AgentOptions } from "../../src/agent/agent.js";
import {
  type ChildReport,
  type DelegationSettings,
  delegationDepsFrom,
  normalizeDelegationSettings,
  registerDelegateTool,
} from "../../src/agent/delegation.js";
import { registerTerminalTools } from "../../src/tools/builtin/terminal.js";
import type { ApprovalRequest } from "../../src/tools/registry.js";
import type { RecordedRequest, ScriptedTurn, ScriptStep } from "../fake-provider/types.js";
import {
  assertWellFormedRequests,
  createHarness,
  type Harness,
  lastToolResults,
  registerTestTools,
} from "../helpers/agent-harness.js";

const WAIT_LIMIT_MS = 5000;

function systemOf(req: RecordedRequest): string {
  const first = req.body.messages?.[0];
  return first?.role === "system" ? String(first.content) : "";
}

/** The goal of the subagent that sent this request, or undefined for the top-level agent. */
function childGoal(req: RecordedRequest): string | undefined {
  const match = /## Task\n(.+)/.exec(systemOf(req));
  return match?.[1];
}

function toolNames(req: RecordedRequest): string[] {
  return ((req.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
}

function childRequests(h: Harness, goal: string): RecordedRequest[] {
  return h.fake.requests.filter((req) => childGoal(req) === goal);
}

function parentRequests(h: Harness): RecordedRequest[] {
  return h.fake.requests.filter((req) => childGoal(req) === undefined);
}

function delegateResults(req: RecordedRequest): ChildReport[] {
  const [result] = lastToolResults(req);
  return (JSON.parse(result ?? "{}") as { results: ChildReport[] }).results;
}

function progressLines(h: Harness): string[] {
  return h.events.flatMap((e) => (e.type === "tool_progress" && e.name === "delegate_task" ? [e.text] : []));
}

/** The fake awaits what a step returns, so a step may hold its reply until other requests arrive. */
function waitingStep(fn: (req: RecordedRequest) => Promise<ScriptedTurn>): ScriptStep {
  return fn;
}

/** Resolves every waiter once `count` arrivals happened; a waiter gives up after WAIT_LIMIT_MS. */
function barrier(count: number) {
  let arrived = 0;
  const release: Array<() => void> = [];
  return {
    get arrived() {
      return arrived;
    },
    async arrive(): Promise<void> {
      arrived++;
      if (arrived >= count) {
        for (const go of release.splice(0)) go();
        return;
      }
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${arrived} of ${count} arrived`)), WAIT_LIMIT_MS);
        release.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/** The parent delegates `args` on its first call, then answers with the tool result it got. */
function parentStep(args: Record<string, unknown>) {
  return (req: RecordedRequest): ScriptedTurn => {
    const results = lastToolResults(req);
    if (results.length === 0) return { toolCalls: [{ name: "delegate_task", arguments: args }] };
    return { text: `parent saw: ${results[0]}` };
  };
}

async function delegatingHarness(
  route: ScriptStep,
  options: {
    config?: Partial<DelegationSettings>;
    agent?: Partial<AgentOptions>;
    extraTools?: Array<{ name: string; toolset: string }>;
    interruptGraceMs?: number;
  } = {},
): Promise<Harness> {
  const extra = options.extraTools ?? [];
  const h = await createHarness(
    { fallback: route },
    { tools: ["echo", "slow_write", ...extra.map((t) => t.name), "delegate_task"], ...options.agent },
  );
  registerTestTools(h.registry, extra, async (name) => `${name} ran`);
  registerDelegateTool(h.registry, {
    ...delegationDepsFrom(h.agent.options, h.agent.budget, options.config ?? {}),
    ...(options.interruptGraceMs !== undefined ? { interruptGraceMs: options.interruptGraceMs } : {}),
  });
  return h;
}

test("a single delegation returns the child's summary to the parent, which answers with it", async () => {
  const h = await delegatingHarness(
    (req) => {
      if (childGoal(req)) return { text: "Looked in the docs: the answer is 42." };
      return parentStep({ goal: "find the answer", context: "the docs are in ./docs" })(req);
    },
    { config: { model: "small-model" } },
  );
  try {
    const result = await h.agent.runConversation("please find the answer");
    const [child] = childRequests(h, "find the answer");
    assert.ok(child, "the child called the model");
    assert.match(systemOf(child), /the docs are in \.\/docs/);
    assert.match(systemOf(child), /summary/);
    assert.equal(child.body.model, "small-model", "delegation.model picks the child's model");
    assert.equal(parentRequests(h)[0]?.body.model, "test-model");
    const childConversation = JSON.stringify(child.body.messages);
    assert.ok(!childConversation.includes("please find the answer"), "the child does not see the parent's history");

    const [report] = delegateResults(parentRequests(h)[1]!);
    assert.deepEqual(report, {
      goal: "find the answer",
      status: "completed",
      summary: "Looked in the docs: the answer is 42.",
      apiCalls: 1,
      toolCalls: 0,
    });
    assert.match(result.finalResponse, /the answer is 42/);
    assert.deepEqual(progressLines(h), [
      "subagent 1/1 started: find the answer",
      "subagent 1/1 completed (1 calls, 0 tools): find the answer",
    ]);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("three children run at once and their results come back in task order", async () => {
  const firstCalls = barrier(3);
  const seen = new Set<string>();
  const h = await delegatingHarness(
    waitingStep(async (req) => {
      const goal = childGoal(req);
      if (!goal) return parentStep({ tasks: [{ goal: "alpha" }, { goal: "beta" }, { goal: "gamma" }] })(req);
      if (!seen.has(goal)) {
        seen.add(goal);
        await firstCalls.arrive();
        // alpha takes an extra round, so it finishes last yet is reported first.
        if (goal === "alpha") return { toolCalls: [{ name: "echo", arguments: { text: "a" } }] };
      }
      return { text: `${goal} done` };
    }),
    { config: { max_concurrent_children: 3 } },
  );
  try {
    await h.agent.runConversation("do three things");
    assert.equal(firstCalls.arrived, 3);
    const reports = delegateResults(parentRequests(h).at(-1)!);
    assert.deepEqual(
      reports.map((r) => [r.goal, r.status, r.summary]),
      [
        ["alpha", "completed", "alpha done"],
        ["beta", "completed", "beta done"],
        ["gamma", "completed", "gamma done"],
      ],
    );
    assert.deepEqual(
      reports.map((r) => r.apiCalls),
      [2, 1, 1],
    );
    const lines = progressLines(h);
    const lastStart = Math.max(...lines.map((line, i) => (line.includes("started") ? i : -1)));
    const firstFinish = lines.findIndex((line) => line.includes("completed"));
    assert.ok(lastStart < firstFinish, `every child started before any finished: ${lines.join(" | ")}`);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("max_concurrent_children 2 holds the third child back until one finishes", async () => {
  const firstTwo = barrier(2);
  const h = await delegatingHarness(
    waitingStep(async (req) => {
      const goal = childGoal(req);
      if (!goal) return parentStep({ tasks: [{ goal: "one" }, { goal: "two" }, { goal: "three" }] })(req);
      if (goal !== "three") await firstTwo.arrive();
      return { text: `${goal} done` };
    }),
    { config: { max_concurrent_children: 2 } },
  );
  try {
    await h.agent.runConversation("do three things");
    const lines = progressLines(h);
    const thirdStart = lines.findIndex((line) => line.startsWith("subagent 3/3 started"));
    const firstFinish = lines.findIndex((line) => line.includes("completed"));
    assert.ok(thirdStart > firstFinish, `the third child waited for a free slot: ${lines.join(" | ")}`);
    assert.deepEqual(
      delegateResults(parentRequests(h).at(-1)!).map((r) => r.summary),
      ["one done", "two done", "three done"],
    );
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("children never get delegate_task, clarify, memory, send_message or execute_code; toolsets narrow the list", async () => {
  const h = await delegatingHarness(
    (req) => {
      if (childGoal(req)) return { text: "done" };
      return parentStep({ tasks: [{ goal: "everything" }, { goal: "only notes", toolsets: ["notes"] }] })(req);
    },
    {
      extraTools: [
        { name: "clarify", toolset: "clarify" },
        { name: "memory", toolset: "memory" },
        { name: "send_message", toolset: "messaging" },
        { name: "execute_code", toolset: "code_execution" },
        { name: "note", toolset: "notes" },
      ],
    },
  );
  try {
    await h.agent.runConversation("go");
    assert.deepEqual(toolNames(parentRequests(h)[0]!).sort(), [
      "clarify",
      "delegate_task",
      "echo",
      "execute_code",
      "memory",
      "note",
      "send_message",
      "slow_write",
    ]);
    assert.deepEqual(toolNames(childRequests(h, "everything")[0]!).sort(), ["echo", "note", "slow_write"]);
    assert.deepEqual(toolNames(childRequests(h, "only notes")[0]!), ["note"]);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("an orchestrator child keeps delegate_task within max_spawn_depth, and its own children do not", async () => {
  const h = await delegatingHarness(
    (req) => {
      const goal = childGoal(req);
      if (goal === "coordinate") {
        const results = lastToolResults(req);
        if (results.length === 0) {
          return {
            toolCalls: [{ name: "delegate_task", arguments: { goal: "leaf work", role: "orchestrator" } }],
          };
        }
        return { text: `coordinated: ${delegateResults(req)[0]?.summary}` };
      }
      if (goal === "leaf work") return { text: "leaf finished" };
      return parentStep({ goal: "coordinate", role: "orchestrator" })(req);
    },
    { config: { max_spawn_depth: 2 } },
  );
  try {
    const result = await h.agent.runConversation("go");
    const orchestrator = childRequests(h, "coordinate")[0]!;
    assert.ok(toolNames(orchestrator).includes("delegate_task"), "depth 1 < max_spawn_depth 2 keeps delegate_task");
    assert.match(systemOf(orchestrator), /depth 1 of a delegation tree limited to depth 2/);
    const leaf = childRequests(h, "leaf work")[0]!;
    assert.ok(!toolNames(leaf).includes("delegate_task"), "depth 2 is the floor even for an orchestrator");
    assert.match(result.finalResponse, /coordinated: leaf finished/);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("with the default max_spawn_depth of 1 an orchestrator child cannot delegate", async () => {
  const h = await delegatingHarness((req) => {
    if (childGoal(req)) return { text: "done alone" };
    return parentStep({ goal: "coordinate", role: "orchestrator" })(req);
  });
  try {
    await h.agent.runConversation("go");
    const child = childRequests(h, "coordinate")[0]!;
    assert.ok(!toolNames(child).includes("delegate_task"));
    assert.doesNotMatch(systemOf(child), /delegate_task tool/);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

/**
 * A parent that delegates "clean up" to a child whose first step makes `childCalls` (given the
 * harness, for its temp dir) and whose second reports what it saw; the user approves `answer`.
 * Starts with a `victim` folder in the temp dir and the terminal tools registered.
 */
async function cleanupHarness(
  childCalls: (h: Harness) => ScriptedTurn["toolCalls"],
  answer: "once" | "deny",
  config: Partial<DelegationSettings> = {},
): Promise<{ h: Harness; asked: ApprovalRequest[] }> {
  const asked: ApprovalRequest[] = [];
  let h: Harness | undefined;
  h = await delegatingHarness(
    (req) => {
      if (childGoal(req)) {
        if (lastToolResults(req).length === 0) return { toolCalls: childCalls(h!) };
        return { text: `child saw: ${lastToolResults(req).join(" || ")}` };
      }
      return parentStep({ goal: "clean up" })(req);
    },
    {
      config,
      agent: {
        interactive: true,
        requestApproval: async (request) => {
          asked.push(request);
          return answer;
        },
      },
    },
  );
  mkdirSync(join(h.dir, "victim"));
  registerTerminalTools(h.registry);
  return { h, asked };
}

const removeVictim = (h: Harness) => ({ name: "terminal", arguments: { command: `rm -rf ${join(h.dir, "victim")}` } });

test("a child's dangerous command and approval requests are denied without asking the user", async () => {
  const seenByTool: Array<{ interactive: boolean | undefined; answer: string | undefined }> = [];
  const { h, asked } = await cleanupHarness(
    (h) => [removeVictim(h), { name: "needs_approval", arguments: {} }],
    "once",
  );
  try {
    h.registry.register({
      name: "needs_approval",
      toolset: "test",
      description: "asks for approval",
      parameters: z.object({}),
      handler: async (_args, ctx) => {
        const answer = await ctx.requestApproval?.({ command: "format disk", reason: "dangerous" });
        seenByTool.push({ interactive: ctx.interactive, answer });
        return `answer: ${answer}`;
      },
    });
    h.agent.options.tools = ["terminal", "needs_approval", "delegate_task"];
    await h.agent.runConversation("clean up please");
    assert.deepEqual(asked, [], "the user was never asked");
    assert.deepEqual(seenByTool, [{ interactive: false, answer: "deny" }]);
    assert.ok(existsSync(join(h.dir, "victim")), "the dangerous command did not run");
    const [report] = delegateResults(parentRequests(h).at(-1)!);
    assert.match(report!.summary, /refused/i);
    assert.match(report!.summary, /answer: deny/);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("delegation.subagent_auto_approve runs a child's dangerous command unasked, and hardline still refuses", async () => {
  const { h, asked } = await cleanupHarness(
    (h) => [
      removeVictim(h),
      // Harmless should the check ever fail: the device does not exist.
      { name: "terminal", arguments: { command: "mkfs.ext4 /nonexistent/hermes-test-device" } },
    ],
    "deny",
    { subagent_auto_approve: true },
  );
  try {
    h.agent.options.tools = ["terminal", "delegate_task"];
    await h.agent.runConversation("clean up please");
    assert.deepEqual(asked, [], "the user was never asked");
    assert.equal(existsSync(join(h.dir, "victim")), false, "the approved command ran");
    const [report] = delegateResults(parentRequests(h).at(-1)!);
    assert.match(report!.summary, /mkfs[^|]*(blocked|refused|never)/i, "the hardline command was refused");
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("children draw from the parent's shared budget and stop at delegation.max_iterations", async () => {
  const h = await delegatingHarness(
    (req) => {
      if (childGoal(req)) {
        if (!req.body.tools) return { text: "ran out; partial findings" };
        return { toolCalls: [{ name: "echo", arguments: { text: `x${req.body.messages.length}` } }] };
      }
      return parentStep({ goal: "loop forever" })(req);
    },
    { config: { max_iterations: 3 }, agent: { maxIterations: 20 } },
  );
  try {
    await h.agent.runConversation("go");
    const [report] = delegateResults(parentRequests(h).at(-1)!);
    assert.equal(report!.status, "failed");
    assert.equal(report!.summary, "ran out; partial findings");
    assert.match(report!.error ?? "", /iteration budget/);
    assert.equal(report!.apiCalls, 4, "three tool rounds plus the summary call");
    assert.equal(childRequests(h, "loop forever").length, 4);
    // Two parent calls and three child calls consumed the shared budget; the summary call is free.
    assert.equal(h.agent.budget.used, 5);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("a child stops when the shared budget runs dry even below its own cap", async () => {
  const h = await delegatingHarness(
    (req) => {
      if (childGoal(req)) {
        if (!req.body.tools) return { text: "budget gone" };
        return { toolCalls: [{ name: "echo", arguments: { text: `x${req.body.messages.length}` } }] };
      }
      return parentStep({ goal: "loop" })(req);
    },
    { config: { max_iterations: 50 }, agent: { maxIterations: 3 } },
  );
  try {
    await h.agent.runConversation("go");
    assert.equal(childRequests(h, "loop").length, 3, "two budgeted calls and the summary call");
    assert.equal(h.agent.budget.remaining, 0);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("interrupting the parent during stalled child streams interrupts every child and returns promptly", async () => {
  const started = barrier(2);
  let h: Harness | undefined;
  h = await delegatingHarness(
    waitingStep(async (req) => {
      if (!childGoal(req)) return parentStep({ tasks: [{ goal: "s1" }, { goal: "s2" }, { goal: "s3" }] })(req);
      void started.arrive().then(() => setImmediate(() => h!.agent.interrupt()));
      return { text: "never finishes", fault: { kind: "stall", afterChunks: 1 } };
    }),
    { config: { max_concurrent_children: 2 }, interruptGraceMs: 60_000 },
  );
  try {
    const begin = Date.now();
    const result = await h.agent.runConversation("go");
    assert.ok(Date.now() - begin < WAIT_LIMIT_MS, "the run ended promptly");
    assert.equal(result.interrupted, true);
    const toolMessage = result.messages.find((m) => m.role === "tool" && m.name === "delegate_task");
    const reports = (JSON.parse(String(toolMessage?.content)) as { results: ChildReport[] }).results;
    assert.deepEqual(
      reports.map((r) => r.status),
      ["interrupted", "interrupted", "interrupted"],
    );
    assert.equal(reports[0]!.apiCalls, 1, "the running children were stopped, not abandoned");
    assert.match(reports[2]!.summary, /Not started/);
    assert.equal(childRequests(h, "s3").length, 0);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("a child stuck in a tool that ignores the interrupt is abandoned after the grace period", async () => {
  let unstick: () => void = () => {};
  const stuck = new Promise<void>((resolve) => {
    unstick = resolve;
  });
  let h: Harness | undefined;
  h = await delegatingHarness(
    (req) => {
      if (childGoal(req)) return { toolCalls: [{ name: "stuck", arguments: {} }] };
      return parentStep({ goal: "hang" })(req);
    },
    { interruptGraceMs: 50 },
  );
  try {
    h.registry.register({
      name: "stuck",
      toolset: "test",
      description: "never returns until released",
      parameters: z.object({}),
      handler: async () => {
        setImmediate(() => h!.agent.interrupt());
        await stuck;
        return "released";
      },
    });
    h.agent.options.tools = ["stuck", "delegate_task"];
    const result = await h.agent.runConversation("go");
    assert.equal(result.interrupted, true);
    const toolMessage = result.messages.find((m) => m.role === "tool" && m.name === "delegate_task");
    const [report] = (JSON.parse(String(toolMessage?.content)) as { results: ChildReport[] }).results;
    assert.equal(report!.status, "interrupted");
    assert.match(report!.summary, /abandoned/);
  } finally {
    unstick();
    await h.close();
  }
});

test("a failing child is reported in its entry and the batch still completes", async () => {
  const h = await delegatingHarness((req) => {
    const goal = childGoal(req);
    if (goal === "broken") return { fault: { kind: "status", status: 400, message: "bad request from provider" } };
    if (goal === "fine") return { text: "fine result" };
    return parentStep({ tasks: [{ goal: "broken" }, { goal: "fine" }] })(req);
  });
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.completed, true);
    const reports = delegateResults(parentRequests(h).at(-1)!);
    assert.equal(reports[0]!.status, "failed");
    assert.match(reports[0]!.error ?? "", /bad request from provider/);
    assert.deepEqual([reports[1]!.status, reports[1]!.summary], ["completed", "fine result"]);
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("a call without a goal or tasks gets an error result the model can act on", async () => {
  const h = await delegatingHarness(parentStep({ context: "no goal here" }));
  try {
    await h.agent.runConversation("go");
    const [result] = lastToolResults(parentRequests(h).at(-1)!);
    assert.match(result ?? "", /"error":"give a goal, or a non-empty tasks list"/);
    assert.equal(h.fake.requests.length, 2, "no child was started");
  } finally {
    await h.close();
  }
});

test("delegation settings fill defaults and clamp max_spawn_depth to 3", () => {
  assert.deepEqual(normalizeDelegationSettings(), {
    max_iterations: 50,
    max_concurrent_children: 3,
    max_async_children: 3,
    max_spawn_depth: 1,
    max_summary_chars: 24_000,
    child_timeout_seconds: 0,
    orchestrator_enabled: true,
    inherit_mcp_toolsets: true,
    subagent_auto_approve: false,
  });
  assert.equal(normalizeDelegationSettings({ max_spawn_depth: 7 }).max_spawn_depth, 3);
  assert.equal(normalizeDelegationSettings({ model: "  " }).model, undefined);
});
