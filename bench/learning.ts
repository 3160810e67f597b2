/**
 * What the learning review costs: a task of 8 tool calls against the zero-latency fake provider,
 * timed from the user's message to the answer with `learning.mode: off` and `auto`
 * (interleaved), and the size of the review request in tokens (estimated from its bytes, what a
 * real provider would bill as input) with the scripted reply's output tokens.
 * Run alone with `node --import tsx bench/learning.ts`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openRuntime } from "../src/runtime/runtime.js";
import { estimateTextTokens } from "../src/util/tokens.js";
import { startFakeProvider } from "../test/fake-provider/server.js";
import type { RecordedRequest, ScriptStep } from "../test/fake-provider/types.js";
import { tempDir } from "../test/state/temp-dir.js";
import { formatSample, printTable, type Row, summarize } from "./stats.js";

const TOOL_CALLS = 8;
const REVIEW_REPLY = JSON.stringify({
  memory: [{ target: "user", content: "Wants release notes grouped by feature and fix" }],
  skill: null,
  reason: "a stated preference",
});

function task(): ScriptStep[] {
  const calls = Array.from({ length: TOOL_CALLS }, (_, i) => ({
    toolCalls: [{ name: "todo", arguments: { todos: [{ id: i, content: `step ${i} of the release notes` }] } }],
  }));
  return [
    ...calls,
    { text: "The release notes are written." },
    { text: REVIEW_REPLY, usage: { input: 0, output: 40 } },
  ];
}

const isReview = (request: RecordedRequest) =>
  request.method === "POST" &&
  String((request.body.messages as Array<{ content: string }>)[0]?.content).startsWith("You review a finished task");

async function oneTask(mode: "off" | "auto"): Promise<{ ms: number; reviewTokens?: number }> {
  const fake = await startFakeProvider({ script: task(), fallback: { text: "ok" } });
  const home = tempDir("hermes-bench-learning-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: fake-model\n  provider: custom\n  base_url: ${fake.url}/v1\nlearning:\n  mode: ${mode}\n`,
  );
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
  try {
    const agent = runtime.createAgent({ interactive: true });
    const started = performance.now();
    await agent.runConversation("write the release notes, grouped by feature and fix");
    const ms = performance.now() - started;
    await runtime.learner?.idle();
    const review = fake.requests.find(isReview);
    return { ms, ...(review ? { reviewTokens: estimateTextTokens(review.rawBody) } : {}) };
  } finally {
    await runtime.close();
    await fake.close();
  }
}

export async function benchLearning(rounds = 5): Promise<Row[]> {
  const off: number[] = [];
  const auto: number[] = [];
  const tokens: number[] = [];
  for (let i = 0; i <= rounds; i++) {
    const a = await oneTask("off");
    const b = await oneTask("auto");
    if (i === 0) continue;
    off.push(a.ms);
    auto.push(b.ms);
    if (b.reviewTokens !== undefined) tokens.push(b.reviewTokens);
  }
  return [
    {
      figure: `turn of ${TOOL_CALLS} tool calls, message to answer, learning.mode auto (${rounds} runs)`,
      value: formatSample(summarize(auto), "ms"),
      baseline: `learning.mode off: ${formatSample(summarize(off), "ms")}`,
    },
    {
      figure: "review request per reviewed task (input, estimated from its bytes)",
      value: formatSample(summarize(tokens), "tokens", 0),
      baseline: "output: the review's answer (40 tokens scripted here)",
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Learning review", await benchLearning());
}
