import assert from "node:assert/strict";
import { test } from "node:test";
import { buildProgram } from "../../src/cli/program.js";

test("a run that starts with `chat` builds the root and chat alone, parsing chat as the whole tree does", () => {
  const whole = buildProgram();
  const chatOnly = buildProgram("chat");
  assert.ok(whole.commands.length > 20);
  assert.deepEqual(
    chatOnly.commands.map((command) => command.name()),
    ["chat"],
  );
  const chat = whole.commands.find((command) => command.name() === "chat");
  assert.ok(chat);
  assert.equal(chatOnly.commands[0]!.helpInformation(), chat.helpInformation());
  assert.deepEqual(
    chatOnly.options.map((option) => option.flags),
    whole.options.map((option) => option.flags),
  );
});
