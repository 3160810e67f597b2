import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveToolNames } from "../../src/agent/options.js";
import { registerBuiltinTools } from "../../src/tools/builtin/index.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { z } from "../../src/util/schema/index.js";

function registryWithGames(): ToolRegistry {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  for (const name of ["roll_dice", "flip_coin"]) {
    registry.register({
      name,
      toolset: "games",
      description: name,
      parameters: z.object({}),
      handler: async () => "ok",
    });
  }
  return registry;
}

test("naming a toolset that only registered tools use enables those tools", async () => {
  const registry = registryWithGames();
  assert.deepEqual(await resolveToolNames({ provider: "custom", model: "m", registry, enabledToolsets: ["games"] }), [
    "roll_dice",
    "flip_coin",
  ]);
  const mixed = await resolveToolNames({
    provider: "custom",
    model: "m",
    registry,
    enabledToolsets: ["todo", "games"],
  });
  assert.deepEqual(mixed, ["todo", "roll_dice", "flip_coin"]);
});

test("disabling such a toolset, or one of its tools by name, still wins", async () => {
  const registry = registryWithGames();
  const base = { provider: "custom", model: "m", registry };
  assert.deepEqual(await resolveToolNames({ ...base, enabledToolsets: ["games"], disabledToolsets: ["games"] }), []);
  assert.deepEqual(await resolveToolNames({ ...base, enabledToolsets: ["todo"] }), ["todo"]);
});
