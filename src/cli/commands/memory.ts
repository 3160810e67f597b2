/**
 * `hermes memory status|setup|off|reset|list|forget`: the external memory provider
 * (`memory.provider`) and the local provider's facts. MEMORY.md and USER.md stay as they are
 * unless `reset --files` says otherwise.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import type { HermesConfig } from "../../state/config-schema.js";
import { FACTS_FILE, type FactStore } from "../../state/fact-store.js";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";
import { confirm } from "./confirm.js";

async function context(scope?: string) {
  const [{ hermesHome, hermesPaths }, { loadConfig }, { memoryScopeDir }] = await Promise.all([
    import("../../state/paths.js"),
    import("../../state/config.js"),
    import("../../runtime/agent-options.js"),
  ]);
  const home = hermesHome();
  const { config } = loadConfig({ home });
  const root = hermesPaths(home).memoriesDir;
  const dir = scope === undefined ? root : join(root, "scopes", memoryScopeDir(scope));
  return { home, config, dir, factsPath: join(dir, FACTS_FILE) };
}

async function withFacts<T>(path: string, use: (store: FactStore) => T): Promise<T> {
  const { openFactStore } = await import("../../state/sqlite-fact-store.js");
  const store = openFactStore(path);
  try {
    return use(store);
  } finally {
    store.close();
  }
}

/** Asks the embeddings endpoint for one vector; the problem in words, or undefined when it answered. */
async function probeEmbeddings(baseUrl: string, model: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${baseUrl.replace(/\/+$/, "")}/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: model || undefined, input: "hermes memory setup" }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return `HTTP ${response.status}`;
    const body = (await response.json()) as { data?: Array<{ embedding?: unknown }> };
    return Array.isArray(body.data?.[0]?.embedding) ? undefined : "the reply has no data[0].embedding";
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function knownProviders(home: string, config: HermesConfig): Promise<string[]> {
  const { memoryProviderNames } = await import("../../runtime/memory-providers.js");
  const { extensionsWanted } = await import("../../runtime/plugins/candidates.js");
  if (!extensionsWanted(home, config)) return memoryProviderNames();
  const { loadPlugins } = await import("../../runtime/plugins/loader.js");
  return memoryProviderNames((await loadPlugins({ home, config })).memoryProviders);
}

function scopeOption(command: Command): Command {
  return command.option("--scope <name>", "a gateway user's memory scope instead of the home's own memory");
}

export function registerMemoryCommands(program: Command, io: CommandIo = processIo): Command {
  const memory = program.command("memory").description("the memory provider and its stored facts (docs/memory.md)");

  scopeOption(
    memory.command("status", { isDefault: true }).description("what remembers, and how much it holds"),
  ).action(async (opts: { scope?: string }) => {
    const { config, dir, factsPath } = await context(opts.scope);
    const { MemoryStore } = await import("../../state/memory-store.js");
    const files = new MemoryStore({
      dir,
      memoryCharLimit: config.memory.memory_char_limit,
      userCharLimit: config.memory.user_char_limit,
    });
    const lines = [
      `built-in memory: ${config.memory.memory_enabled ? "on" : "off"} (${dir})`,
      `  MEMORY.md ${files.usage("memory")}, USER.md ${files.usage("user")}`,
      `provider: ${config.memory.provider || "none (hermes memory setup turns on the local one)"}`,
    ];
    if (existsSync(factsPath)) {
      const [count, newest] = await withFacts(
        factsPath,
        (store) => [store.count(), store.list({ limit: 1 })[0]] as const,
      );
      const when = newest ? `, newest ${new Date(newest.updatedAt).toISOString()}` : "";
      lines.push(`local facts: ${count}${when} (${factsPath})`);
    } else if (config.memory.provider === "local") {
      lines.push(`local facts: none yet (${factsPath} is made on first use)`);
    }
    if (config.memory.provider === "local") {
      const url = config.memory.local.embedding_base_url;
      lines.push(
        `embeddings: ${url ? `${url} (${config.memory.local.embedding_model || "server default model"})` : "off (words only)"}`,
      );
    }
    io.out(lines.join("\n"));
  });

  memory
    .command("setup [provider]")
    .description("turn on a memory provider (default: local, facts in SQLite)")
    .option("--embedding-url <url>", "an OpenAI-compatible embeddings endpoint for the local provider")
    .option("--embedding-model <name>", "the model that endpoint should use")
    .action(async (provider: string | undefined, opts: { embeddingUrl?: string; embeddingModel?: string }) => {
      const name = provider ?? "local";
      const { home, config, factsPath } = await context();
      const known = await knownProviders(home, config);
      if (!known.includes(name)) {
        throw new UsageError(`no memory provider "${name}" (known: ${known.join(", ")}); plugins add others`);
      }
      if ((opts.embeddingUrl || opts.embeddingModel) && name !== "local") {
        throw new UsageError("--embedding-url and --embedding-model belong to the local provider");
      }
      const { setConfigValue } = await import("../../state/config.js");
      if (opts.embeddingUrl) {
        const problem = await probeEmbeddings(opts.embeddingUrl, opts.embeddingModel ?? "");
        if (problem)
          throw new UsageError(`${opts.embeddingUrl} did not answer with an embedding (${problem}); nothing changed`);
        setConfigValue(home, "memory.local.embedding_base_url", opts.embeddingUrl);
      }
      if (opts.embeddingModel) setConfigValue(home, "memory.local.embedding_model", opts.embeddingModel);
      setConfigValue(home, "memory.provider", name);
      if (name === "local") {
        const count = await withFacts(factsPath, (store) => store.count());
        io.out(`Memory provider: local (${count} facts in ${factsPath}).`);
        if (opts.embeddingUrl) io.out(`Embeddings from ${opts.embeddingUrl}: answering.`);
      } else {
        io.out(`Memory provider: ${name}.`);
      }
    });

  memory
    .command("off")
    .description("stop using the memory provider (its data stays on disk; MEMORY.md and USER.md stay on)")
    .action(async () => {
      const { home, config, factsPath } = await context();
      if (!config.memory.provider) {
        io.out("No memory provider is on.");
        return;
      }
      const { unsetConfigValue } = await import("../../state/config.js");
      unsetConfigValue(home, "memory.provider");
      const kept = existsSync(factsPath) ? ` Its facts stay in ${factsPath}; hermes memory reset deletes them.` : "";
      io.out(`Memory provider ${config.memory.provider} is off.${kept}`);
    });

  scopeOption(
    memory
      .command("reset")
      .description("delete every stored fact (asks first; --yes to skip)")
      .option("-y, --yes", "delete without asking")
      .option("--files", "also empty MEMORY.md and USER.md"),
  ).action(async (opts: { yes?: boolean; files?: boolean; scope?: string }) => {
    const { config, dir, factsPath } = await context(opts.scope);
    const count = existsSync(factsPath) ? await withFacts(factsPath, (store) => store.count()) : 0;
    const what = `${count} stored fact${count === 1 ? "" : "s"}${opts.files ? " and the entries of MEMORY.md and USER.md" : ""}`;
    if (!opts.yes) {
      if (!process.stdin.isTTY) throw new UsageError(`not deleting ${what} without confirmation: pass --yes`);
      if (!(await confirm(`Delete ${what} in ${dir}? This cannot be undone. [y/N] `))) {
        io.out("Nothing deleted.");
        return;
      }
    }
    if (count > 0) await withFacts(factsPath, (store) => store.reset());
    if (opts.files) {
      const { MemoryStore } = await import("../../state/memory-store.js");
      const files = new MemoryStore({ dir, memoryCharLimit: config.memory.memory_char_limit });
      for (const target of ["memory", "user"] as const) {
        for (const entry of files.entries(target)) files.remove(target, entry);
      }
    }
    io.out(`Deleted ${what}.`);
  });

  scopeOption(
    memory
      .command("list")
      .description("the stored facts, newest first, with their ids")
      .option("-n, --limit <n>", "how many", "50"),
  ).action(async (opts: { limit: string; scope?: string }) => {
    const { factsPath } = await context(opts.scope);
    const limit = Number(opts.limit);
    if (!Number.isInteger(limit) || limit < 1)
      throw new UsageError(`--limit must be a positive whole number, not "${opts.limit}"`);
    if (!existsSync(factsPath)) {
      io.out("No stored facts.");
      return;
    }
    const facts = await withFacts(factsPath, (store) => store.list({ limit }));
    io.out(facts.length ? facts.map((fact) => `[${fact.id}] ${fact.text}`).join("\n") : "No stored facts.");
  });

  scopeOption(memory.command("forget <id>").description("delete one stored fact by id")).action(
    async (id: string, opts: { scope?: string }) => {
      const { factsPath } = await context(opts.scope);
      const number = Number(id);
      if (!Number.isInteger(number))
        throw new UsageError(`a fact id is a number (hermes memory list shows them), not "${id}"`);
      const removed = existsSync(factsPath) ? await withFacts(factsPath, (store) => store.forget({ id: number })) : 0;
      if (!removed) throw new UsageError(`no fact with id ${number}`);
      io.out(`Forgot fact ${number}.`);
    },
  );
  return memory;
}
