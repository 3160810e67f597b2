/**
 * `hermes model`: show the configured provider and model, or switch them in config.yaml
 * (`hermes model PROVIDER/MODEL`, or `--provider P --model M [--base-url U]`).
 */
import type { Command } from "commander";
import type { HermesConfig } from "../../state/config-schema.js";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

export interface ConfiguredProvider {
  /** Catalog id, or undefined when nothing is configured. */
  provider: string | undefined;
  /** Where the provider choice came from. */
  source: "config" | "base_url" | "environment" | "none";
  model: string;
  baseUrl: string | undefined;
}

/** The provider and model a run would use from config.yaml and the environment (no flags). */
export async function configuredProvider(
  config: HermesConfig,
  env: Record<string, string | undefined>,
): Promise<ConfiguredProvider> {
  const { PROVIDERS, resolveProvider } = await import("../../llm/providers.js");
  const baseUrl = config.model.base_url || undefined;
  const model = config.model.default;
  if (config.model.provider && config.model.provider !== "auto") {
    return {
      provider: resolveProvider(config.model.provider)?.id ?? config.model.provider,
      source: "config",
      model,
      baseUrl,
    };
  }
  if (baseUrl) return { provider: "custom", source: "base_url", model, baseUrl };
  const fromEnv = PROVIDERS.find((p) => p.id !== "custom" && p.keyEnvVars.some((name) => Boolean(env[name]?.trim())));
  return fromEnv
    ? { provider: fromEnv.id, source: "environment", model, baseUrl }
    : { provider: undefined, source: "none", model, baseUrl };
}

export interface ModelChange {
  provider?: string | undefined;
  model?: string | undefined;
  baseUrl?: string | undefined;
}

/** Read `PROVIDER/MODEL`: the first part is a provider when it names one; otherwise it is all model. */
export async function parseModelSpec(spec: string): Promise<ModelChange> {
  const { resolveProvider } = await import("../../llm/providers.js");
  const slash = spec.indexOf("/");
  if (slash > 0) {
    const provider = resolveProvider(spec.slice(0, slash));
    const model = spec.slice(slash + 1);
    if (provider && model) return { provider: provider.id, model };
  }
  return { model: spec };
}

/**
 * Write a provider/model change to config.yaml. Switching to another provider drops a
 * configured base URL (it belonged to the old provider) unless a new one is given.
 */
export async function applyModelChange(home: string, change: ModelChange): Promise<string[]> {
  const { loadConfig, setConfigValue, unsetConfigValue } = await import("../../state/config.js");
  const { resolveProvider } = await import("../../llm/providers.js");
  const { config } = loadConfig({ home });
  const written: string[] = [];
  let providerId: string | undefined;
  if (change.provider) {
    const spec = resolveProvider(change.provider);
    if (!spec) throw new UsageError(`unknown provider "${change.provider}" (see docs/providers.md for the list)`);
    providerId = spec.id;
    const configured = config.model.provider !== "auto" ? resolveProvider(config.model.provider)?.id : undefined;
    const current = configured ?? (config.model.base_url ? "custom" : undefined);
    const baseUrl = change.baseUrl ?? (providerId === current ? config.model.base_url : "");
    if (providerId === "custom" && !baseUrl) {
      throw new UsageError(
        "the custom provider needs --base-url (any OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1)",
      );
    }
    setConfigValue(home, "model.provider", providerId);
    written.push(`model.provider = ${providerId}`);
    if (providerId !== current && !change.baseUrl && config.model.base_url) {
      unsetConfigValue(home, "model.base_url");
      written.push("model.base_url removed");
    }
  }
  if (change.baseUrl) {
    setConfigValue(home, "model.base_url", change.baseUrl);
    written.push(`model.base_url = ${change.baseUrl}`);
  }
  if (change.model) {
    setConfigValue(home, "model.default", change.model);
    written.push(`model.default = ${change.model}`);
  }
  return written;
}

export function registerModelCommand(program: Command, io: CommandIo = processIo): Command {
  return program
    .command("model")
    .description("show the configured provider and model, or switch them")
    .argument("[spec]", "PROVIDER/MODEL (e.g. openrouter/anthropic/claude-opus-4.6) or just MODEL")
    .option("--provider <id>", "provider id or alias")
    .option("-m, --model <model>", "model id (may contain slashes)")
    .option("--base-url <url>", "API base URL (custom and self-hosted servers)")
    .action(async (spec: string | undefined, _opts: unknown, cmd: Command) => {
      // The root command shares these option names, so read them merged.
      const opts = cmd.optsWithGlobals<{ provider?: string; model?: string; baseUrl?: string }>();
      const { hermesHome } = await import("../../state/paths.js");
      const home = hermesHome();
      const change: ModelChange = spec ? await parseModelSpec(spec) : {};
      if (opts.provider) change.provider = opts.provider;
      if (opts.model) change.model = opts.model;
      if (opts.baseUrl) change.baseUrl = opts.baseUrl;
      if (!change.provider && !change.model && !change.baseUrl) return showModel(home, io);
      const written = await applyModelChange(home, change);
      const { hermesPaths } = await import("../../state/paths.js");
      io.out(`Saved to ${hermesPaths(home).config}: ${written.join(", ")}`);
    });
}

async function showModel(home: string, io: CommandIo): Promise<void> {
  const { loadConfig } = await import("../../state/config.js");
  const { readDotEnv } = await import("../../state/dotenv.js");
  const { config } = loadConfig({ home });
  const current = await configuredProvider(config, { ...readDotEnv(home), ...process.env });
  const origin = {
    config: "from config.yaml",
    base_url: "custom endpoint from model.base_url",
    environment: "picked from the API key in the environment",
    none: "none configured",
  }[current.source];
  io.out(`provider: ${current.provider ?? "-"} (${origin})`);
  io.out(`model:    ${current.model}`);
  if (current.baseUrl) io.out(`base_url: ${current.baseUrl}`);
  if (!current.provider) io.out("Run `hermes setup`, or `hermes model PROVIDER/MODEL`, to choose one.");
}
