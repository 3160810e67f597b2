/**
 * `hermes acp`: serve editors (Zed, JetBrains, ...) over the Agent Client Protocol on stdio.
 * The ACP SDK and the agent load only when the command runs.
 */
import type { Command } from "commander";

const ACP_TOOLSETS = ["hermes-acp"];

export function registerAcpCommand(program: Command): void {
  program
    .command("acp")
    .description("serve editors over the Agent Client Protocol on stdio (Zed, JetBrains)")
    .option(
      "--check",
      "print what an editor will see (capabilities, modes, models, auth) and exit (1: no usable provider)",
    )
    .action(async (opts: { check?: boolean }) => {
      const notice = (line: string) => process.stderr.write(`hermes acp: ${line}\n`);
      const open = async () =>
        (await import("../../runtime/runtime.js")).openRuntime({
          platform: "acp",
          interactive: true,
          toolsets: ACP_TOOLSETS,
          skipDotEnv: true,
          callbacks: { onNotice: (message) => notice(message) },
        });
      if (opts.check) {
        const { checkReport } = await import("../../acp/check.js");
        const runtime = await open().catch((error: Error) => error);
        const lines = await checkReport(runtime);
        process.stdout.write(`${lines.join("\n")}\n`);
        if (runtime instanceof Error) process.exitCode = 1;
        else await runtime.close();
        return;
      }
      // The editor gets its initialize answer before the ACP SDK (the slow part of starting) loads.
      const { answerInitializeEarly } = await import("../../acp/early-initialize.js");
      const early = await answerInitializeEarly(process.stdin, (line) => process.stdout.write(line));
      const { serveAcp } = await import("../../acp/server.js");
      await serveAcp({ openRuntime: open, notice, ...(early ? { early } : {}) });
    });
}
