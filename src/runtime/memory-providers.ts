/**
 * Which external memory provider `memory.provider` names, and how to make one: the built-in
 * `local` provider, or one a plugin registered. The provider's code loads on first use, so a
 * process without one pays nothing.
 */
import type { MemoryProvider, MemoryProviderSource } from "../agent/memory-manager.js";
import type { HermesConfig } from "../state/config-schema.js";
import type { MemoryProviderFactory } from "./plugins/api.js";

export const BUILTIN_MEMORY_PROVIDERS = ["local"] as const;

/** A registered factory and who registered it (a plugin's name, or "built-in"). */
export interface RegisteredProvider {
  owner: string;
  factory: MemoryProviderFactory;
}

const builtins = new Map<string, RegisteredProvider>([
  [
    "local",
    {
      owner: "built-in",
      factory: async ({ dir, config, warn }) => {
        const { LocalMemoryProvider } = await import("../agent/local-memory.js");
        return new LocalMemoryProvider({ dir, settings: config.memory.local, onWarning: warn });
      },
    },
  ],
]);

export interface ProviderChoiceInput {
  home: string;
  config: HermesConfig;
  /** Providers plugins registered, by name. */
  plugins?: ReadonlyMap<string, { owner: string; item: MemoryProviderFactory }>;
  notice?: (message: string) => void;
}

/** Every provider name this process could use, built-in ones first. */
export function memoryProviderNames(plugins?: ProviderChoiceInput["plugins"]): string[] {
  return [...builtins.keys(), ...[...(plugins?.keys() ?? [])].filter((name) => !builtins.has(name))];
}

function registered(name: string, input: ProviderChoiceInput): RegisteredProvider | undefined {
  const builtin = builtins.get(name);
  const plugin = input.plugins?.get(name);
  if (builtin) {
    if (plugin)
      input.notice?.(
        `plugin "${plugin.owner}" registers memory provider "${name}", a built-in name; the built-in one is used`,
      );
    return builtin;
  }
  return plugin ? { owner: plugin.owner, factory: plugin.item } : undefined;
}

/**
 * How to make the configured provider for a memory directory (the home's, or a gateway user's
 * scope), or undefined when none is configured or the name is unknown (reported at start-up by
 * `unavailableFeatures`).
 */
export function memoryProviderSource(input: ProviderChoiceInput): ((dir: string) => MemoryProviderSource) | undefined {
  const name = input.config.memory.provider;
  if (!name) return undefined;
  const entry = registered(name, input);
  if (!entry) return undefined;
  const warn = input.notice ?? (() => {});
  const settings =
    entry.owner === "built-in" ? input.config.memory.local : (input.config.plugins.config[entry.owner] ?? {});
  return (dir) => async (): Promise<MemoryProvider | undefined> =>
    entry.factory({ home: input.home, dir, config: input.config, settings, warn });
}
