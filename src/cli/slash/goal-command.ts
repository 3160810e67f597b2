/** `/goal`: a standing goal the agent keeps working on, turn after turn, until it is achieved. */
import type { SlashContext } from "./context.js";
import type { SlashCommand } from "./registry.js";

export const goalCommand: SlashCommand<SlashContext> = {
  name: "goal",
  args: "[TEXT | status | pause | resume | clear]",
  description: "set a standing goal the agent works on across turns until a judge finds it achieved",
  category: "session",
  whileBusy: true,
  async run(args, ctx) {
    const word = args.trim().toLowerCase();
    const goals = ctx.goals;
    if (word === "" || word === "status") return ctx.print(goals.status());
    if (word === "pause") return ctx.print(goals.pause());
    if (word === "clear") return ctx.print(goals.clear());
    const answer = word === "resume" ? goals.resume() : goals.set(args.trim());
    ctx.print(answer.message);
    if (!answer.start) return;
    if (ctx.busy) ctx.enqueue(answer.start);
    else await ctx.send(answer.start);
  },
};
