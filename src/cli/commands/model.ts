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
  if (change.baseUrl !== undefined) {
    const { baseUrlProblem } = await import("../../util/base-url.js");
    const problem = baseUrlProblem(change.baseUrl);
    if (problem) throw new UsageError(`--base-url "${change.baseUrl}" is not a usable base URL: ${problem}.`);
  }
  let providerId: string | undefined;
  if (change.provider) {
    const spec = resolveProvider(change.provider);
    if (!spec) throw new UsageError(`unknown provider "${change.provider}" (hermes help providers lists them)`);
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
      if (change.model) await warnIfUnlisted(home, change.model, io);
    });
}

/** Says so when the provider's own model list lacks the name just saved, with the nearest names. */
async function warnIfUnlisted(home: string, model: string, io: CommandIo): Promise<void> {
  const { loadConfig } = await import("../../state/config.js");
  const { readDotEnv } = await import("../../state/dotenv.js");
  const { chooseModel } = await import("../../runtime/model-choice.js");
  const { listProviderModels } = await import("../../runtime/model-list.js");
  const { nearestNames } = await import("../../util/edit-distance.js");
  const env = { ...readDotEnv(home), ...process.env };
  let choice: Awaited<ReturnType<typeof chooseModel>>;
  try {
    choice = await chooseModel(loadConfig({ home }).config, {}, { notice: () => {}, env, localServers: false });
  } catch {
    return;
  }
  const listed = await listProviderModels(choice.info, choice.baseUrl, env);
  if (!listed || listed.includes(model)) return;
  const near = nearestNames(model, listed);
  io.err(
    `warning: ${choice.info.id}'s model list (${listed.length} models) has no "${model}"` +
      (near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(", ")}?` : ".") +
      " Saved as given: runs will use it, and fail if the provider does not know it.",
  );
}

/** What a run would really use: the same choice `hermes chat` makes, local server detection included. */
async function showModel(home: string, io: CommandIo): Promise<void> {
  const { loadConfig } = await import("../../state/config.js");
  const { readDotEnv } = await import("../../state/dotenv.js");
  const { chooseModel, NO_PROVIDER_HELP } = await import("../../runtime/model-choice.js");
  const env = { ...readDotEnv(home), ...process.env };
  try {
    const { config } = loadConfig({ home });
    const choice = await chooseModel(config, {}, { notice: () => {}, env });
    io.out(`provider: ${choice.info.id} (${describeSource(choice.sources.provider)})`);
    io.out(`model:    ${choice.model} (${describeSource(choice.sources.model)})`);
    const baseUrl = choice.baseUrl ?? choice.info.defaultBaseUrl;
    if (baseUrl) io.out(`base_url: ${baseUrl} (${describeSource(choice.sources.baseUrl ?? "the provider's default")})`);
  } catch (error) {
    if (!(error instanceof Error) || (error.name !== "UsageError" && error.name !== "ConfigError")) throw error;
    if (error.message === NO_PROVIDER_HELP) {
      io.out("provider: - (none configured)");
      io.out("Run `hermes setup`, or `hermes model PROVIDER/MODEL`, to choose one.");
      return;
    }
    io.out(`A run would stop here: ${error.message}`);
  }
}

function describeSource(source: string): string {
  if (source === "model.provider" || source === "model.default" || source === "model.base_url") {
    return `${source} in config.yaml`;
  }
  if (source === "the API key in the environment") return "picked from the API key in the environment";
  return source.startsWith("detected") || source.startsWith("a server") || source.startsWith("the ")
    ? source
    : `from ${source}`;
}
