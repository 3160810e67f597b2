/**
 * `hermes gateway run`: the long-lived process that serves the agent beyond the terminal: the
 * messaging platforms, webhooks and the OpenAI-compatible API server. Its modules load only when
 * the command runs.
 */
import type { Command } from "commander";

const collect = (value: string, previous: string[]) => [...previous, value];

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
  gateway
    .command("setup [platform]")
    .description("save a messaging platform's credentials to .env and check them (no platform: list them)")
    .option("--set <KEY=VALUE>", "a setting, e.g. TELEGRAM_BOT_TOKEN=...; repeatable", collect, [])
    .option("--no-check", "do not call the platform to check the credentials")
    .action(async (platform: string | undefined, opts: { set: string[]; check: boolean }) => {
      const { hermesHome } = await import("../../state/paths.js");
      const { readDotEnv } = await import("../../state/dotenv.js");
      const { platformSetup } = await import("../platform-setup.js");
      const home = hermesHome();
      process.exitCode = await platformSetup(home, platform, {
        set: opts.set,
        check: opts.check,
        interactive: process.stdin.isTTY === true,
        env: { ...readDotEnv(home), ...process.env },
        out: (line) => process.stdout.write(`${line}\n`),
      });
    });
  const service = async () => import("../gateway-service.js");
  const say = (line: string) => process.stdout.write(`${line}\n`);
  gateway
    .command("start")
    .description("start in the background (through the systemd user unit when installed)")
    .action(async () => {
      process.exitCode = await (await service()).startGateway(say);
    });
  gateway
    .command("stop")
    .description("stop the background gateway (it drains first)")
    .action(async () => {
      process.exitCode = await (await service()).stopGateway(say);
    });
  gateway
    .command("restart")
    .description("stop, then start")
    .action(async () => {
      const { startGateway, stopGateway } = await service();
      const stopped = await stopGateway(say);
      process.exitCode = stopped === 0 ? await startGateway(say) : stopped;
    });
  gateway
    .command("status")
    .description("whether it runs, and each platform's health (exit 1 when not running)")
    .action(async () => {
      process.exitCode = (await service()).gatewayStatus(say);
    });
  gateway
    .command("install")
    .description("write a systemd user unit (a launchd agent on macOS)")
    .action(async () => {
      process.exitCode = (await service()).installService(say);
    });
  gateway
    .command("uninstall")
    .description("remove the unit written by install")
    .action(async () => {
      process.exitCode = (await service()).uninstallService(say);
    });
}
