/**
 * A plain line-based interactive session (readline). Text streams as it arrives; Ctrl+C
 * interrupts the running turn, and a second Ctrl+C at the prompt exits.
 */
import { createInterface } from "node:readline/promises";
import type { ChatFlags } from "./program.js";
import { attachProgress } from "./progress.js";
import { buildRuntime } from "./runtime.js";

export async function runInteractive(flags: ChatFlags): Promise<void> {
  const runtime = await buildRuntime(flags, { interactive: true, quiet: Boolean(flags.quiet) });
  const { agent } = runtime;
  const detach = attachProgress(agent, { verbose: Boolean(flags.verbose) });
  const stopStreaming = agent.on((event) => {
    if (event.type === "text_delta") process.stdout.write(event.text);
  });
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  let running = false;
  let lastSigint = 0;
  rl.on("SIGINT", () => {
    if (running) {
      agent.interrupt();
      process.stderr.write("\n[interrupted]\n");
      return;
    }
    const now = Date.now();
    if (now - lastSigint < 2000) rl.close();
    else process.stderr.write("\n(press Ctrl+C again to exit)\n");
    lastSigint = now;
  });
  process.stderr.write(`hermes — ${runtime.provider}/${runtime.model} — session ${agent.sessionId}. /quit to leave.\n`);
  try {
    for (;;) {
      let line: string;
      try {
        line = await rl.question("\n› ");
      } catch {
        break;
      }
      const text = line.trim();
      if (!text) continue;
      if (text === "/quit" || text === "/exit") break;
      running = true;
      const result = await agent.runConversation(text);
      running = false;
      process.stdout.write("\n");
      if (result.error) process.stderr.write(`hermes: ${result.error}\n`);
    }
  } finally {
    rl.close();
    stopStreaming();
    detach();
    await runtime.close();
  }
}
