import assert from "node:assert/strict";
import { test } from "node:test";
import { z as zod } from "zod";
import { ToolRegistry } from "../../src/tools/registry.js";
import { z } from "../../src/util/schema/index.js";

test("a tool may declare its parameters with zod or with the built-in schemas, and both publish JSON Schema", () => {
  const registry = new ToolRegistry();
  registry.register({
    name: "with_zod",
    toolset: "t",
    description: "zod parameters",
    parameters: zod.object({ n: zod.number().int() }),
    handler: async (args) => String(args.n + 1),
  });
  registry.register({
    name: "with_builtin",
    toolset: "t",
    description: "built-in parameters",
    parameters: z.object({ n: z.number().int() }),
    handler: async (args) => String(args.n + 1),
  });
  const [fromZod, fromBuiltin] = registry.definitions(["with_zod", "with_builtin"]);
  for (const def of [fromZod, fromBuiltin]) {
    const parameters = def?.function.parameters as { type: string; properties: { n: { type: string } } };
    assert.equal(parameters.type, "object");
    assert.equal(parameters.properties.n.type, "integer");
    assert.equal("$schema" in parameters, false);
  }
});
