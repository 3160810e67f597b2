import assert from "node:assert/strict";
import { test } from "node:test";
import { BackgroundDelegations, type BackgroundJob } from "../../src/agent/delegation/background.js";
import { answerAgentsCommand } from "../../src/agent/delegation/background-command.js";
import type { ChildReport } from "../../src/agent/delegation/run-child.js";

/** A job that runs until it is stopped, then reports how it ended. */
function untilStopped(goal: string, stoppedWith: string[]): BackgroundJob {
  return {
    goal,
    run: (signal) =>
      new Promise<ChildReport>((resolve) => {
        signal.addEventListener("abort", () => {
          stoppedWith.push(`${goal}: ${(signal.reason as Error).message}`);
          resolve({ goal, status: "interrupted", summary: "", apiCalls: 0, toolCalls: 0 });
        });
      }),
  };
}

function setUp() {
  let now = 1_000_000;
  const background = new BackgroundDelegations(5, () => now);
  const delivered: string[] = [];
  background.attach({ accepts: () => true, deliver: (result) => delivered.push(result.id) });
  const stopped: string[] = [];
  const mine = { sessionId: "s-mine", platform: "cli" };
  const theirs = { sessionId: "s-theirs", platform: "cli" };
  const dispatched = background.dispatch(
    [
      untilStopped("check the invoices", stopped),
      untilStopped(`summarise ${"the very long report ".repeat(8)}`, stopped),
    ],
    mine,
  );
  background.dispatch([untilStopped("another session's task", stopped)], theirs);
  assert.ok(dispatched.ok);
  const [first, second] = dispatched.entries.map((entry) => entry.delegation_id);
  return {
    background,
    delivered,
    stopped,
    first: first!,
    second: second!,
    advance: (ms: number) => (now += ms),
    now: () => now,
  };
}

test("/agents lists only this session's running subagents, with their age and a shortened goal", () => {
  const { background, first, second, advance, now } = setUp();
  advance(125_000);
  const text = answerAgentsCommand(background, "s-mine", "", now());
  const lines = text.split("\n");
  assert.equal(lines[0], "Background subagents of this session (2 running):");
  assert.equal(lines[1], `  ${first}  2m 05s  check the invoices`);
  assert.ok(lines[2]?.startsWith(`  ${second}  2m 05s  summarise the very long report`));
  assert.ok(lines[2]!.endsWith("…") && lines[2]!.length < 120, "a long goal is cut");
  assert.doesNotMatch(text, /another session's task/);
  assert.equal(answerAgentsCommand(background, "s-mine", "list", now()), text);
  assert.equal(
    answerAgentsCommand(background, undefined, "", now()),
    "No background subagents are running in this session.",
  );
});

test("/agents stop ID stops that one child, and only in its own session; its result is dropped", async () => {
  const { background, delivered, stopped, first, second, now } = setUp();
  assert.match(answerAgentsCommand(background, "s-theirs", `stop ${first}`, now()), /No running background subagent/);
  assert.deepEqual(stopped, []);
  assert.match(
    answerAgentsCommand(background, "s-mine", `stop ${first}`, now()),
    new RegExp(`^Stopped ${first} \\(check the invoices\\)`),
  );
  assert.deepEqual(stopped, ["check the invoices: stopped by the user"]);
  const listed = answerAgentsCommand(background, "s-mine", "", now());
  assert.doesNotMatch(listed, new RegExp(first));
  assert.match(listed, new RegExp(second));
  assert.match(answerAgentsCommand(background, "s-mine", `stop ${first}`, now()), /No running background subagent/);
  answerAgentsCommand(background, "s-mine", "stop all", now());
  await background.idle((origin) => origin.sessionId === "s-mine");
  assert.deepEqual(delivered, [], "a stopped child reports nothing");
  await background.close();
});

test("/agents stop all stops this session's children only; anything else gets the usage", async () => {
  const { background, stopped, now } = setUp();
  assert.equal(
    answerAgentsCommand(background, "s-mine", "stop all", now()),
    "Stopped 2 background subagents; their results will not be reported.",
  );
  assert.equal(stopped.length, 2);
  assert.ok(stopped.every((line) => !line.startsWith("another session's task")));
  assert.equal(background.runningChildren().length, 1, "the other session's child runs on");
  assert.equal(
    answerAgentsCommand(background, "s-mine", "stop all", now()),
    "No background subagents are running in this session.",
  );
  assert.equal(
    answerAgentsCommand(background, "s-mine", "kill everything", now()),
    "Usage: /agents [stop ID | stop all]",
  );
  assert.equal(answerAgentsCommand(background, "s-mine", "stop", now()), "Usage: /agents [stop ID | stop all]");
  await background.close();
});
