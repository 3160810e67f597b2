import type { ChatFlags } from "../program.js";

export async function runChat(flags: ChatFlags): Promise<void> {
  process.stdout.write(`not yet: ${JSON.stringify(flags)}\n`);
}
