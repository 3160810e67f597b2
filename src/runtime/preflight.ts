/**
 * Checks made before the first request, for settings that would make every request fail: a
 * base URL that is not one, and a provider with no key. Each names where the bad value came
 * from, so the fix is one edit, instead of surfacing as retried "timeouts" a minute later.
 */
import type { ProviderSpec } from "../llm/providers.js";
import { listToolsets, validateToolset } from "../tools/toolsets.js";
import { baseUrlProblem, isLoopbackUrl } from "../util/base-url.js";
import { nearestNames } from "../util/edit-distance.js";
import { UsageError } from "./errors.js";

/** Providers that are usable without a key: local servers, and AWS's and Google's own credential chains. */
const KEYLESS_PROVIDERS = new Set(["custom", "lmstudio", "bedrock", "vertex"]);

/** Throws a usage error naming `source` (a flag, config key or variable) when `value` is not a URL. */
export function checkBaseUrl(value: string, source: string): string {
  const problem = baseUrlProblem(value);
  if (problem) throw new UsageError(`${source} "${value}" is not a usable base URL: ${problem}.`);
  return value.trim();
}

/**
 * Refuses a provider that needs a key when none is set, naming where one would come from. A
 * server on this machine (any provider pointed at loopback) is assumed to need none.
 */
export function requireCredential(info: ProviderSpec, baseUrl: string | undefined, hasKey: boolean): void {
  if (hasKey || needsNoKey(info, baseUrl)) return;
  const variables = info.keyEnvVars.join(" or ");
  throw new UsageError(
    `no API key for ${info.label} (${info.id}): set ${variables} (in the environment or $HERMES_HOME/.env), ` +
      `run \`hermes auth add ${info.id}\`, or pass --api-key.`,
  );
}

/** Toolset names nobody defines: not built in, and not `mcp-<server>` of a configured server. */
export function unknownToolsets(names: readonly string[], mcpServers: readonly string[]): string[] {
  return names.filter(
    (name) => !validateToolset(name) && !(name.startsWith("mcp-") && mcpServers.includes(name.slice(4))),
  );
}

/** Why `names` (from `source`) cannot be used, with the nearest known names, or undefined. */
export function toolsetProblem(
  names: readonly string[],
  source: string,
  mcpServers: readonly string[],
): string | undefined {
  const unknown = unknownToolsets(names, mcpServers);
  if (unknown.length === 0) return undefined;
  const known = [...listToolsets(), ...mcpServers.map((server) => `mcp-${server}`)];
  const hints = unknown.map((name) => {
    const near = nearestNames(name, known, 1);
    return near.length > 0 ? `"${name}" (did you mean "${near[0]}"?)` : `"${name}"`;
  });
  return `unknown toolset${unknown.length > 1 ? "s" : ""} ${hints.join(", ")} in ${source}. Known toolsets: ${known.join(", ")}.`;
}

export function checkToolsets(names: readonly string[], source: string, mcpServers: readonly string[]): void {
  const problem = toolsetProblem(names, source, mcpServers);
  if (problem) throw new UsageError(problem);
}

/** Whether requests to `info` at `baseUrl` go without a key (a key in config, a keyless provider, loopback). */
export function needsNoKey(info: ProviderSpec, baseUrl: string | undefined): boolean {
  return Boolean(info.apiKey || info.keyOptional || KEYLESS_PROVIDERS.has(info.id) || isLoopbackUrl(baseUrl));
}
