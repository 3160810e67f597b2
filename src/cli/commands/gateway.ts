/**
 * `hermes gateway run`: the long-lived process that serves the agent beyond the terminal. Today
 * it hosts the OpenAI-compatible API server; its modules load only when the command runs.
 */
import type { Command } from "commander";

export function registerGatewayCommands(program: Command): void {
  const gateway = program.command("gateway").description("run the gateway (the OpenAI-compatible API server)");
  gateway
    .command("run")
    .description("run in the foreground until interrupted (API_SERVER_ENABLED=true starts the API server)")
    .action(async () => {
      const { runGateway } = await import("../gateway-run.js");
      await runGateway();
    });
}
