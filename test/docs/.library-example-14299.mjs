import { Agent, ToolRegistry, z } from "hermes-agent";

const registry = new ToolRegistry();
registry.register({
  name: "roll_dice",
  toolset: "games",
  description: "Roll dice and return each roll and the total.",
  parameters: z.object({
    sides: z.number().int().min(2).default(6).describe("Faces on each die"),
    count: z.number().int().min(1).max(20).default(1).describe("How many dice to roll"),
  }),
  parallelSafe: true,
  handler: async ({ sides, count }) => {
    const rolls = Array.from({ length: count }, () => 1 + Math.floor(Math.random() * sides));
    return JSON.stringify({ rolls, total: rolls.reduce((a, b) => a + b, 0) });
  },
});

const agent = new Agent({
  provider: "custom",
  baseUrl: "http://127.0.0.1:41721/v1", // any OpenAI-compatible server; or provider: "openrouter" with OPENROUTER_API_KEY set
  model: "qwen3:32b",
  registry,
  enabledToolsets: ["games"],
});

const result = await agent.runConversation("Roll three six-sided dice and tell me the total.");
console.log(result.finalResponse);
