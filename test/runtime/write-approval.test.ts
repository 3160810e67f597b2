/**
 * memory.write_approval and skills.write_approval through a runtime, as a surface uses it: the
 * model's own writes wait for the user's answer, are refused where nobody can answer, and the
 * learning review queues what would need one.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ApprovalAnswer, ApprovalRequest } from "../../src/tools/registry.js";
import type { RecordedRequest, ScriptStep } from "../fake-provider/types.js";
import { openTestRuntime } from "../helpers/test-runtime.js";

const SKILL = `---
name: deploy-notes
description: Write deploy notes from the release branch
---
1. git log main..release
`;

const rememberCall = (content: string): ScriptStep => ({
  toolCalls: [{ name: "memory", arguments: { action: "add", target: "memory", content } }],
});
const skillCall: ScriptStep = {
  toolCalls: [{ name: "skill_manage", arguments: { action: "create", name: "deploy-notes", content: SKILL } }],
};

/** The tool results the model was sent, in order. */
function toolResults(requests: RecordedRequest[]): string[] {
  const last = requests.filter((r) => r.method === "POST").at(-1);
  const messages = (last?.body.messages ?? []) as Array<{ role: string; content: string }>;
  return messages.filter((m) => m.role === "tool").map((m) => String(m.content));
}

function approver(answer: ApprovalAnswer) {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    requestApproval: async (request: ApprovalRequest) => {
      asked.push(request);
      return answer;
    },
  };
}

const memoryFile = (home: string) => join(home, "memories", "MEMORY.md");
const memoryText = (home: string) => (existsSync(memoryFile(home)) ? readFileSync(memoryFile(home), "utf8") : "");

test("with memory.write_approval the model's memory write asks first: no keeps the file, yes writes it", async () => {
  const { runtime, fake, home, close } = await openTestRuntime({
    script: [rememberCall("Deploys go through the staging cluster"), { text: "noted" }],
    config: "memory:\n  write_approval: true\n",
  });
  try {
    const no = approver("deny");
    await runtime
      .createAgent({ interactive: true, requestApproval: no.requestApproval })
      .runConversation("remember it");
    assert.equal(no.asked.length, 1);
    assert.match(no.asked[0]!.command, /^add to MEMORY\.md: "Deploys go through the staging cluster"$/);
    assert.equal(no.asked[0]!.key, "memory_write");
    assert.match(toolResults(fake.requests)[0]!, /denied/);
    assert.doesNotMatch(memoryText(home), /staging cluster/);

    fake.setScript([rememberCall("Deploys go through the staging cluster"), { text: "noted" }]);
    const yes = approver("once");
    await runtime.createAgent({ interactive: true, requestApproval: yes.requestApproval }).runConversation("again");
    assert.equal(yes.asked.length, 1);
    assert.match(memoryText(home), /Deploys go through the staging cluster/);
  } finally {
    await close();
  }
});

test("where nobody can answer, a memory write needing approval is refused; without the setting nobody is asked", async () => {
  const guarded = await openTestRuntime({
    script: [rememberCall("Uses pnpm"), { text: "ok" }],
    config: "memory:\n  write_approval: true\n",
  });
  try {
    await guarded.runtime.createAgent({ interactive: false }).runConversation("remember pnpm");
    assert.match(toolResults(guarded.fake.requests)[0]!, /Refused: add to MEMORY\.md/);
    assert.doesNotMatch(memoryText(guarded.home), /pnpm/);
  } finally {
    await guarded.close();
  }
  const plain = await openTestRuntime({ script: [rememberCall("Uses pnpm"), { text: "ok" }] });
  try {
    const watcher = approver("deny");
    await plain.runtime
      .createAgent({ interactive: true, requestApproval: watcher.requestApproval })
      .runConversation("remember pnpm");
    assert.equal(watcher.asked.length, 0);
    assert.match(memoryText(plain.home), /Uses pnpm/);
  } finally {
    await plain.close();
  }
});

test("with skills.write_approval skill_manage asks first; memory writes are not held by it", async () => {
  const { runtime, fake, home, close } = await openTestRuntime({
    script: [skillCall, rememberCall("Release branch is cut on Fridays"), { text: "done" }],
    config: "skills:\n  write_approval: true\n",
  });
  try {
    const no = approver("deny");
    await runtime.createAgent({ interactive: true, requestApproval: no.requestApproval }).runConversation("save it");
    assert.deepEqual(
      no.asked.map((request) => [request.command, request.key]),
      [["create skill deploy-notes", "skill_write"]],
    );
    assert.equal(existsSync(join(home, "skills", "deploy-notes")), false);
    assert.match(memoryText(home), /Release branch is cut on Fridays/);
    assert.match(toolResults(fake.requests)[0]!, /denied/);
  } finally {
    await close();
  }
});

const reviewRequest = (request: RecordedRequest) =>
  request.method === "POST" &&
  String((request.body.messages as Array<{ content: string }>)[0]?.content).startsWith("You review a finished task");

test("the learning review applies what needs no approval and queues the rest, even in auto mode", async () => {
  const review = JSON.stringify({
    memory: [{ target: "user", content: "Prefers deploy notes as a table" }],
    skill: { action: "create", name: "deploy-notes", content: SKILL },
  });
  const busyWork: ScriptStep[] = Array.from({ length: 8 }, (_, i) => ({
    toolCalls: [{ name: "todo", arguments: { todos: [{ id: i, content: `step ${i}` }] } }],
  }));
  const { runtime, fake, home, close } = await openTestRuntime({
    script: [...busyWork, { text: "notes done" }, { text: review }],
    config: "memory:\n  write_approval: true\n",
  });
  try {
    const messages: string[] = [];
    await runtime
      .createAgent({
        interactive: true,
        onEvent: (event) => {
          if (event.type === "status" && event.kind === "learning") messages.push(event.message);
        },
      })
      .runConversation("write the deploy notes");
    await runtime.learner!.idle();
    assert.equal(fake.requests.filter(reviewRequest).length, 1);
    assert.equal(readFileSync(join(home, "skills", "deploy-notes", "SKILL.md"), "utf8"), SKILL);
    assert.equal(existsSync(join(home, "memories", "USER.md")), false);
    assert.deepEqual(
      runtime.learner!.queue.list().map((proposal) => proposal.summary),
      ["remember in USER.md: Prefers deploy notes as a table"],
    );
    assert.equal(messages.length, 1);
    assert.match(messages[0]!, /^Learned: new skill deploy-notes .*\nLearning: 1 proposal\(s\) queued/s);
  } finally {
    await close();
  }
});
