/**
 * The interactive side of `hermes setup`: a few questions with @clack/prompts (provider, key,
 * base URL, model, toolsets), then the same validated write as the non-interactive mode.
 */
import * as p from "@clack/prompts";
import { PROVIDERS, resolveProvider } from "../../llm/providers.js";
import { detectLocalServer, modelIdsFrom } from "../../runtime/local-servers.js";
import { loadConfig } from "../../state/config.js";
import { getToolset, listToolsets } from "../../tools/toolsets.js";
import { baseUrlProblem } from "../../util/base-url.js";
import type { CommandIo } from "../commands/config.js";
import type { SetupFlags } from "../commands/setup.js";
import { writeSetup } from "../commands/setup.js";
import { EXIT } from "../exit-codes.js";

class SetupCancelled extends Error {}

function answer<T>(value: T): Exclude<T, symbol> {
  if (p.isCancel(value)) throw new SetupCancelled();
  return value as Exclude<T, symbol>;
}

/** Providers served from this machine need no key. */
const KEYLESS = new Set(["custom", "lmstudio"]);

async function listModels(baseUrl: string, apiKey: string | undefined): Promise<string[]> {
  try {
    const response = await fetch(`${baseUrl.replace(/\/+$/, "")}/models`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(5000),
    });
    return response.ok ? modelIdsFrom(await response.json()) : [];
  } catch {
    return [];
  }
}

async function chooseModel(suggested: string, models: string[]): Promise<string> {
  const OTHER = "\u0000other";
  if (models.length > 0) {
    const picked = answer(
      await p.select({
        message: "Model",
        options: [
          ...models.slice(0, 50).map((id) => ({ value: id, label: id })),
          { value: OTHER, label: "Another model…" },
        ],
        initialValue: models.includes(suggested) ? suggested : models[0],
        maxItems: 12,
      }),
    );
    if (picked !== OTHER) return picked;
  }
  return answer(
    await p.text({
      message: "Model id",
      placeholder: suggested,
      defaultValue: suggested,
      validate: (value) => (value !== undefined && !value.trim() && !suggested ? "a model id is needed" : undefined),
    }),
  ).trim();
}

async function chooseToolsets(current: string[]): Promise<string[] | undefined> {
  const mode = answer(
    await p.select({
      message: "Tools",
      options: [
        { value: "keep", label: `Keep ${current.join(", ")}`, hint: "hermes-cli = every default tool" },
        { value: "pick", label: "Choose toolsets…" },
      ],
    }),
  );
  if (mode === "keep") return undefined;
  const names = listToolsets().filter((name) => !name.startsWith("hermes-") && getToolset(name));
  return answer(
    await p.multiselect({
      message: "Toolsets to enable (space toggles, enter confirms)",
      options: names.map((name) => ({ value: name, label: name, hint: getToolset(name)?.description ?? "" })),
      initialValues: names.filter((name) => ["web", "terminal", "file", "todo", "memory", "clarify"].includes(name)),
      required: true,
    }),
  );
}

export async function runSetupWizard(home: string, flags: SetupFlags, io: CommandIo): Promise<void> {
  p.intro("Hermes setup");
  try {
    const { config } = loadConfig({ home });
    const local = await detectLocalServer();
    const LOCAL = "\u0000local";
    const options = [
      ...(local
        ? [{ value: LOCAL, label: `${local.name} on this machine`, hint: `${local.baseUrl}, found running` }]
        : []),
      ...PROVIDERS.map((spec) => ({
        value: spec.id,
        label: spec.label,
        hint: spec.keyEnvVars.some((name) => process.env[name]) ? `${spec.id}, key found` : spec.id,
      })),
    ];
    const initial = resolveProvider(flags.provider ?? config.model.provider)?.id;
    const choice = answer(
      await p.select({
        message: "Provider",
        options,
        initialValue: local && !initial ? LOCAL : (initial ?? "openrouter"),
        maxItems: 12,
      }),
    );
    const provider = choice === LOCAL ? "custom" : choice;
    const spec = resolveProvider(provider)!;

    let baseUrl: string | undefined = choice === LOCAL ? local?.baseUrl : flags.baseUrl;
    if (provider === "custom" && !baseUrl) {
      baseUrl = answer(
        await p.text({
          message: "Base URL of the OpenAI-compatible server",
          placeholder: "http://127.0.0.1:11434/v1",
          initialValue: config.model.base_url || "",
          validate: (value) => {
            const problem = baseUrlProblem(value ?? "");
            return problem ? `not a usable base URL: ${problem} (e.g. http://127.0.0.1:8080/v1)` : undefined;
          },
        }),
      );
    }

    let apiKey = flags.apiKey;
    const keyName = spec.keyEnvVars[0];
    const existing = spec.keyEnvVars.map((name) => process.env[name]).find(Boolean);
    if (!apiKey && keyName && !KEYLESS.has(provider)) {
      const keep = existing
        ? answer(await p.confirm({ message: `Use the ${keyName} already set?`, initialValue: true }))
        : false;
      if (!keep) {
        apiKey = answer(await p.password({ message: `${spec.label} API key (saved to .env as ${keyName})` })).trim();
      }
    }

    const listUrl = baseUrl ?? spec.defaultBaseUrl;
    const spinner = p.spinner();
    spinner.start("Asking the provider for its models");
    const models = listUrl && spec.apiMode === "chat_completions" ? await listModels(listUrl, apiKey || existing) : [];
    spinner.stop(models.length ? `${models.length} models available` : "Could not list models; type the id");
    const suggested = flags.model ?? (choice === LOCAL ? local?.model : undefined) ?? config.model.default;
    const model = await chooseModel(suggested ?? "", models);
    const toolsets = await chooseToolsets(config.toolsets);

    const lines = await writeSetup(home, { provider, model, apiKey: apiKey || undefined, baseUrl, toolsets });
    for (const line of lines) p.log.success(line);
    await offerPlatform(home);
    p.outro("Done. Start chatting with `hermes`, or check everything with `hermes doctor`.");
  } catch (error) {
    if (!(error instanceof SetupCancelled)) throw error;
    p.cancel("Setup cancelled; nothing was changed.");
    io.setExitCode(EXIT.error);
  }
}

/** The last step: connect a messaging platform now, or later with `hermes gateway setup`. */
async function offerPlatform(home: string): Promise<void> {
  const p = await import("@clack/prompts");
  const { PLATFORM_CATALOG } = await import("../../gateway/platform-catalog.js");
  const picked = await p.select({
    message: "Connect a messaging platform? (later: hermes gateway setup)",
    options: [
      { value: "", label: "Not now" },
      ...PLATFORM_CATALOG.map((entry) => ({ value: entry.name, label: entry.label })),
    ],
    initialValue: "",
  });
  if (p.isCancel(picked) || !picked) return;
  const { platformSetup } = await import("../platform-setup.js");
  const { readDotEnv } = await import("../../state/dotenv.js");
  await platformSetup(home, picked, {
    set: [],
    check: true,
    interactive: true,
    env: { ...readDotEnv(home), ...process.env },
    out: (line) => p.log.info(line),
  });
}
