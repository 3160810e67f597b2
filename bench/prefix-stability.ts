/**
 * Prompt-prefix stability over a long session: a 30-turn conversation (tool calls, memory
 * writes, a context window small enough to force compression) against the fake provider.
 * A request counts as stable when it starts with the previous request's bytes, all but that
 * request's last 3 messages (the ones prompt caches re-mark every turn). The request right
 * after a compression is left out: a compression rewrites the history on purpose.
 * Run alone with `node --import tsx bench/prefix-stability.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { Agent } from "../src/agent/agent.js";
import type { Message } from "../src/llm/types.js";
import { registerMemoryTools } from "../src/tools/builtin/memory.js";
import { ToolRegistry } from "../src/tools/registry.js";
import { isSummaryRequest } from "../test/agent/context-fixtures.js";
import { startFakeProvider } from "../test/fake-provider/server.js";
import type { RecordedRequest, ScriptedTurn } from "../test/fake-provider/types.js";
import { printTable } from "./stats.js";

const TURNS = 30;
const CONTEXT_LENGTH = 12_000;
/** Messages at the end of a request that are allowed to differ in the next one. */
const MOVING_TAIL = 3;

function scriptFor(turn: number): ScriptedTurn[] {
  if (turn % 5 === 2) {
    return [
      {
        toolCalls: [
          { name: "memory", arguments: { action: "add", target: "memory", content: `Project fact ${turn}.` } },
        ],
      },
      { text: `noted fact ${turn}` },
    ];
  }
  if (turn % 2 === 1) {
    return [
      { toolCalls: [{ name: "lookup", arguments: { key: `item-${turn}` } }] },
      { toolCalls: [{ name: "lookup", arguments: { key: `detail-${turn}` } }] },
      { text: `turn ${turn}: found what you asked for` },
    ];
  }
  return [{ text: `turn ${turn}: a plain answer ${"with some words ".repeat(10)}` }];
}

function messageBytes(req: RecordedRequest): string[] {
  return (req.body.messages as Message[]).map((m) => JSON.stringify(m));
}

export async function benchPrefixStability(): Promise<Array<{ figure: string; value: string }>> {
  const turns = Array.from({ length: TURNS }, (_, turn) => scriptFor(turn)).flat();
  let next = 0;
  const fake = await startFakeProvider({
    fallback: (req) =>
      isSummaryRequest(req)
        ? { text: "## Active Task\nKeep answering the user's questions.\n## Progress\n1. answered earlier turns" }
        : (turns[next++] ?? { text: "ok" }),
  });
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-prefix-"));
  try {
    const registry = new ToolRegistry();
    registerMemoryTools(registry);
    registry.register({
      name: "lookup",
      toolset: "bench",
      description: "Look a key up.",
      parameters: z.object({ key: z.string() }),
      handler: async ({ key }) => `value of ${key}: ${"data ".repeat(400)}`,
    });
    const agent = new Agent({
      model: "bench-model",
      provider: "custom",
      baseUrl: `${fake.url}/v1`,
      apiKey: "bench",
      registry,
      tools: ["memory", "lookup"],
      cwd: dir,
      home: dir,
      contextLength: CONTEXT_LENGTH,
    });
    for (let turn = 0; turn < TURNS; turn++) await agent.runConversation(`question ${turn}: tell me more`);

    let compared = 0;
    let stable = 0;
    let compressions = 0;
    let previous: string[] | undefined;
    let afterCompression = false;
    for (const req of fake.requests) {
      if (req.method !== "POST") continue;
      if (isSummaryRequest(req)) {
        compressions++;
        afterCompression = true;
        continue;
      }
      const current = messageBytes(req);
      if (previous && !afterCompression) {
        compared++;
        const prefix = previous.slice(0, Math.max(0, previous.length - MOVING_TAIL));
        if (prefix.every((bytes, i) => current[i] === bytes)) stable++;
      }
      previous = current;
      afterCompression = false;
    }
    const systems = new Set(
      fake.requests.filter((r) => r.method === "POST" && !isSummaryRequest(r)).map((r) => messageBytes(r)[0]),
    );
    const share = compared ? ((stable / compared) * 100).toFixed(1) : "n/a";
    return [
      { figure: "session", value: `${TURNS} turns, ${CONTEXT_LENGTH.toLocaleString("en-US")}-token window` },
      { figure: "requests compared", value: String(compared) },
      { figure: "prefix-stable requests", value: `${stable}/${compared} (${share}%)` },
      { figure: "compressions (excluded requests)", value: String(compressions) },
      { figure: "distinct system prompts", value: String(systems.size) },
    ];
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Prompt-prefix stability", await benchPrefixStability());
}
