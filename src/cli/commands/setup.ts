/**
 * `hermes setup`: choose a provider, key, model and toolsets, written to config.yaml (settings)
 * and .env (the key). Interactive by default; `--non-interactive` takes everything from flags
 * for scripts and CI.
 */
import type { Command } from "commander";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

export interface SetupChoices {
  provider: string;
  model: string;
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  toolsets?: string[] | undefined;
}

export interface SetupFlags {
  nonInteractive?: boolean;
  provider?: string;
  model?: string;
  apiKey?: string;
  baseUrl?: string;
  toolsets?: string;
}

function splitList(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Validate and write the choices; returns one line per file written. */
export async function writeSetup(home: string, choices: SetupChoices): Promise<string[]> {
  const { resolveProvider } = await import("../../llm/providers.js");
  const { setConfigValue } = await import("../../state/config.js");
  const { validateToolset } = await import("../../tools/toolsets.js");
  const { applyModelChange } = await import("./model.js");
  const spec = resolveProvider(choices.provider);
  if (!spec) throw new UsageError(`unknown provider "${choices.provider}" (hermes help providers lists them)`);
  if (!choices.model.trim()) throw new UsageError("a model is needed (--model)");
  const unknown = (choices.toolsets ?? []).filter((name) => !validateToolset(name));
  if (unknown.length) throw new UsageError(`unknown toolset(s): ${unknown.join(", ")} (see hermes tools --summary)`);

  const written = await applyModelChange(home, {
    provider: spec.id,
    model: choices.model.trim(),
    ...(choices.baseUrl ? { baseUrl: choices.baseUrl } : {}),
  });
  if (choices.toolsets?.length) {
    setConfigValue(home, "toolsets", JSON.stringify(choices.toolsets));
    written.push(`toolsets = ${choices.toolsets.join(",")}`);
  }
  const lines = [`config.yaml: ${written.join(", ")}`];
  if (choices.apiKey) {
    const keyName = spec.keyEnvVars[0];
    if (!keyName) throw new UsageError(`provider ${spec.id} does not take an API key`);
    const result = setConfigValue(home, keyName, choices.apiKey);
    lines.push(`.env: ${result.key} saved (${result.path})`);
  }
  return lines;
}

async function runNonInteractive(home: string, flags: SetupFlags, io: CommandIo): Promise<void> {
  if (!flags.provider || !flags.model) {
    throw new UsageError("--non-interactive needs --provider and --model (and --api-key or --base-url as required)");
  }
  const lines = await writeSetup(home, {
    provider: flags.provider,
    model: flags.model,
    apiKey: flags.apiKey,
    baseUrl: flags.baseUrl,
    toolsets: splitList(flags.toolsets),
  });
  for (const line of lines) io.out(line);
  io.out("Setup saved. Try: hermes chat -q 'hello'   (check it with: hermes doctor)");
}

export function registerSetupCommand(program: Command, io: CommandIo = processIo): Command {
  return program
    .command("setup")
    .description("choose a provider, API key, model and toolsets")
    .option("--non-interactive", "take every answer from flags (for scripts)")
    .option("--provider <id>", "provider id or alias (openrouter, anthropic, openai, custom, ...)")
    .option("-m, --model <model>", "model id")
    .option("--api-key <key>", "API key, saved to .env under the provider's variable")
    .option("--base-url <url>", "API base URL (custom and self-hosted servers)")
    .option("-t, --toolsets <list>", "comma-separated toolsets to enable")
    .action(async (_opts: SetupFlags, cmd: Command) => {
      // The root command shares some of these option names, so read them merged.
      const flags = cmd.optsWithGlobals<SetupFlags>();
      const { hermesHome } = await import("../../state/paths.js");
      const home = hermesHome();
      if (flags.nonInteractive) return runNonInteractive(home, flags, io);
      if (!process.stdin.isTTY) {
        throw new UsageError(
          "setup is interactive; in scripts use: hermes setup --non-interactive --provider P --model M",
        );
      }
      const { runSetupWizard } = await import("../tui/setup-wizard.js");
      await runSetupWizard(home, flags, io);
    });
}
