/**
 * `hermes gateway run`: the long-lived process that serves the agent beyond the terminal: the
 * messaging platforms, webhooks and the OpenAI-compatible API server. Its modules load only when
 * the command runs.
 */
import type { Command } from "commander";

export function registerGatewayCommands(program: Command): void {
  const gateway = program
    .command("gateway")
    .description("run the gateway: messaging platforms, webhooks and the OpenAI-compatible API server");
  gateway
    .command("run")
    .description("run in the foreground until interrupted")
    .option("--force", "start even if the restart-loop guard says the gateway keeps dying")
    .action(async (opts: { force?: boolean }) => {
      const { runGateway } = await import("../gateway-run.js");
      await runGateway({ force: opts.force === true });
    });
}
