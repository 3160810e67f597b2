/**
 * `npm run demo`: an offline look at the agent working. It starts the scripted fake provider
 * (a stand-in for a real model: its replies are a fixed script, not intelligence) and runs
 * `hermes chat -q` against it, so a tool call and the final answer show up end to end.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeProvider } from "../test/fake-provider/server.js";
import type { RecordedRequest } from "../test/fake-provider/types.js";

function lastToolResult(req: RecordedRequest): string {
  const messages = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const tool = [...messages].reverse().find((m) => m.role === "tool");
  return typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content ?? "");
}

const fake = await startFakeProvider({
  models: [{ id: "scripted-demo", contextLength: 131_072 }],
  script: [
    {
      text: "Let me check what this machine says.",
      toolCalls: [{ name: "terminal", arguments: { command: 'echo "hello from $(uname -s)" && date +%Y' } }],
    },
    (req) => {
      const result = lastToolResult(req);
      let output = result;
      try {
        output = (JSON.parse(result) as { output?: string }).output ?? result;
      } catch {}
      return { text: `The terminal answered:\n\n${output.trim()}\n\n(This reply came from the scripted demo model.)` };
    },
  ],
});

const home = mkdtempSync(join(tmpdir(), "hermes-demo-"));
console.error(`[demo] scripted fake model at ${fake.url} — replies are a fixed script, not a real LLM`);
console.error(`[demo] HERMES_HOME=${home}`);
console.error(`[demo] $ hermes chat -q "What does the terminal say?" --provider custom --base-url ${fake.url}/v1\n`);

const child = spawn(
  process.execPath,
  [
    "dist/cli/main.js",
    "chat",
    "-q",
    "What does the terminal say?",
    "--provider",
    "custom",
    "--base-url",
    `${fake.url}/v1`,
    "--api-key",
    "demo-key",
    "--model",
    "scripted-demo",
    "--yolo",
  ],
  { stdio: "inherit", env: { ...process.env, HERMES_HOME: home } },
);
const code: number = await new Promise((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
const modelCalls = fake.requests.filter((r) => r.method === "POST").length;
console.error(`\n[demo] the scripted model answered ${modelCalls} request(s); exit code ${code}`);
await fake.close();
rmSync(home, { recursive: true, force: true });
process.exitCode = code;
