/** `/agents`: list or stop this session's background subagents (see agent/delegation/background-command.ts). */
import { AGENTS_USAGE, answerAgentsCommand } from "../../agent/delegation/background-command.js";
import type { SlashContext } from "./context.js";
import type { SlashCommand } from "./registry.js";

export const agentsCommand: SlashCommand<SlashContext> = {
  name: "agents",
  args: AGENTS_USAGE.slice("/agents ".length),
  description: "list this session's background subagents, or stop them",
  category: "session",
  whileBusy: true,
  run(args, ctx) {
    const runtime = ctx.runtime;
    ctx.print(answerAgentsCommand(runtime.background, runtime.agent.sessionId, args, Date.now()));
  },
};
