import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { StoredMessage } from "../../src/state/session-store.js";
import { writeTrajectory } from "../../src/state/trajectories.js";
import { tempDir } from "./temp-dir.js";

const EPHEMERAL = "EPHEMERAL: today the user is in a hurry.";

const MESSAGES: StoredMessage[] = [
  { role: "system", content: `You are Hermes.\n\n${EPHEMERAL}` },
  { role: "user", content: "List the files 📁" },
  {
    role: "assistant",
    content: "Looking.",
    reasoning: "use the terminal",
    tool_calls: [{ id: "c1", type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } }],
  },
  { role: "tool", content: "a.txt\nb.txt", tool_call_id: "c1", name: "terminal" },
  { role: "assistant", content: "Two files: a.txt and b.txt." },
];

function lines(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
}

test("a completed run is appended to trajectory_samples.jsonl in ShareGPT form", () => {
  const home = tempDir();
  const file = writeTrajectory(home, {
    messages: MESSAGES,
    success: true,
    model: "m1",
    systemPrompt: "You are Hermes.",
    ephemeral: EPHEMERAL,
    metadata: { task_id: "t1" },
  });
  assert.equal(file, join(home, "trajectory_samples.jsonl"));
  const [record] = lines(file);
  assert.equal(record?.model, "m1");
  assert.equal(record?.completed, true);
  assert.equal(record?.task_id, "t1");
  assert.equal(typeof record?.timestamp, "string");
  const conversations = record?.conversations as Array<{ from: string; value: string }>;
  assert.deepEqual(
    conversations.map((c) => c.from),
    ["system", "human", "gpt", "tool", "gpt"],
  );
  assert.equal(conversations[0]?.value, "You are Hermes.");
  assert.equal(conversations[1]?.value, "List the files 📁");
  assert.match(conversations[2]!.value, /<think>\nuse the terminal\n<\/think>/);
  assert.match(
    conversations[2]!.value,
    /<tool_call>\n\{"name":"terminal","arguments":\{"command":"ls"\}\}\n<\/tool_call>/,
  );
  assert.match(
    conversations[3]!.value,
    /^<tool_response>\n.*"tool_call_id":"c1".*"a.txt\\nb.txt".*\n<\/tool_response>$/s,
  );
  assert.ok(readFileSync(file, "utf8").includes("📁"), "non-ASCII text is written as is");
});

test("the ephemeral system-prompt layer is never written", () => {
  const home = tempDir();
  for (const systemPrompt of ["You are Hermes.", undefined]) {
    writeTrajectory(home, {
      messages: MESSAGES,
      success: false,
      model: "m",
      ephemeral: EPHEMERAL,
      ...(systemPrompt ? { systemPrompt } : {}),
    });
  }
  const text = readFileSync(join(home, "failed_trajectories.jsonl"), "utf8");
  assert.ok(!text.includes("EPHEMERAL"));
  assert.equal(lines(join(home, "failed_trajectories.jsonl")).length, 2);
  assert.equal(existsSync(join(home, "trajectory_samples.jsonl")), false);
});

test("failed runs go to failed_trajectories.jsonl and records append", () => {
  const home = tempDir();
  writeTrajectory(home, { messages: MESSAGES.slice(1, 2), success: false, model: "m" });
  writeTrajectory(home, { messages: MESSAGES.slice(1, 2), success: false, model: "m" });
  const records = lines(join(home, "failed_trajectories.jsonl"));
  assert.equal(records.length, 2);
  assert.equal(records[0]?.completed, false);
});

test("trajectory files are readable by their owner only", () => {
  const home = tempDir();
  const file = writeTrajectory(home, { messages: MESSAGES.slice(1), success: true, model: "m" });
  assert.equal(statSync(file).mode & 0o777, 0o600);
});

test("secrets in tool-call arguments and replies are masked in the samples", () => {
  const home = tempDir();
  const key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
  const file = writeTrajectory(home, {
    messages: [
      { role: "user", content: "call the API" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "terminal", arguments: `{"command":"curl -H 'Authorization: Bearer ${key}' x"}` },
          },
        ],
      },
      { role: "tool", content: "ok", tool_call_id: "c1", name: "terminal" },
      { role: "assistant", content: `done with ${key}` },
    ],
    success: true,
    model: "m",
  });
  assert.doesNotMatch(readFileSync(file, "utf8"), /Ab3dEf6hIj9kLm2nOp5q/);
});
