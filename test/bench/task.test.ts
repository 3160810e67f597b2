import assert from "node:assert/strict";
import { test } from "node:test";
import { shellTaskStep, TASK_COMMAND } from "../../bench/task.js";

const tool = (name: string) => ({ type: "function", function: { name, parameters: {} } });

test("the task calls hermes's terminal tool with a command argument", () => {
  const turn = shellTaskStep({ tools: [tool("read_file"), tool("terminal")], messages: [{ role: "user" }] });
  assert.deepEqual(turn.toolCalls, [{ name: "terminal", arguments: { command: TASK_COMMAND } }]);
});

test("the task calls pi's bash tool when that is the shell on offer", () => {
  const turn = shellTaskStep({ tools: [tool("read"), tool("bash")], messages: [{ role: "user" }] });
  assert.deepEqual(turn.toolCalls, [{ name: "bash", arguments: { command: TASK_COMMAND } }]);
});

test("after the tool ran the fake reports the tool's output as the answer", () => {
  const turn = shellTaskStep({
    tools: [tool("bash")],
    messages: [
      { role: "user" },
      { role: "assistant" },
      { role: "tool", content: [{ type: "text", text: "hello-bench\n" }] },
    ],
  });
  assert.equal(turn.toolCalls, undefined);
  assert.equal(turn.text, "The command printed: hello-bench");
});

test("an agent without a known shell tool gets a text reply naming the tools it sent", () => {
  const turn = shellTaskStep({ tools: [tool("read")], messages: [{ role: "user" }] });
  assert.equal(turn.text, "no shell tool among: read");
});
