/**
 * The tool schema budget: when the schemas of a session's tools would cost more estimated tokens
 * than `agent.tool_schema_budget`, MCP tools and rarely used built-ins leave the published list
 * and sit behind `tool_search` (and `tool_describe`, callable, not sent). A hidden tool stays enabled: once the model
 * has found it, it calls it by name in the same turn. What is hidden is decided once per session
 * from the tool list alone, so the request prefix stays byte-stable across turns.
 */

import { z } from "../util/schema/index.js";
import { estimateTextTokens } from "../util/tokens.js";
import { type FunctionDefinition, type ToolContext, type ToolRegistry, toJsonSchema } from "./registry.js";
import { BROWSER_TOOLS, HOME_ASSISTANT_TOOLS } from "./toolsets.js";

export const TOOL_SEARCH = "tool_search";
export const TOOL_DESCRIBE = "tool_describe";
/** The most results a tool_search call may ask for, whatever the configuration says. */
const SEARCH_LIMIT_CEILING = 100;

let limits = { defaultLimit: 5, maxLimit: 20 };

/** `tools.tool_search.search_default_limit` and `max_search_limit`, set by the runtime. */
export function configureToolSearch(next: { defaultLimit: number; maxLimit: number }): void {
  const maxLimit = Math.min(Math.max(1, next.maxLimit), SEARCH_LIMIT_CEILING);
  limits = { maxLimit, defaultLimit: Math.min(Math.max(1, next.defaultLimit), maxLimit) };
}

/**
 * `agent.tool_schema_budget` as `tools.tool_search` shapes it: off sends every schema (0), on
 * hides every tool that can be hidden (a budget of one token), auto keeps the budget but no
 * more than `threshold_pct` of the context window when the window is known.
 */
export function effectiveSchemaBudget(
  budget: number,
  search: { enabled: "auto" | boolean; threshold_pct: number },
  contextLength?: number,
): number {
  if (search.enabled === false || budget <= 0) return search.enabled === true ? 1 : 0;
  if (search.enabled === true) return 1;
  if (!contextLength || search.threshold_pct <= 0) return budget;
  return Math.max(1, Math.min(budget, Math.floor((contextLength * search.threshold_pct) / 100)));
}

/**
 * Built-ins few turns need, hidden first when the budget is exceeded, in this order; a family
 * (the browser's ten tools, Home Assistant's four) leaves the request as a whole. The user's
 * own MCP tools go only after these: a server someone configured is more likely to be wanted.
 */
const RARELY_USED: readonly (readonly string[])[] = [
  BROWSER_TOOLS,
  ["send_message"],
  ["text_to_speech"],
  ["image_generate"],
  ["vision_analyze"],
  ["cronjob"],
  HOME_ASSISTANT_TOOLS,
];

export interface PublishedTools {
  /** What each request carries. */
  definitions: FunctionDefinition[];
  /** Enabled tools left out of the request, found through tool_search. */
  hidden: FunctionDefinition[];
  /** Every tool the model may call this session: the published ones and the hidden ones. */
  callable: string[];
}

/** Per definitions array: the registry hands out the same memoized array to every agent of a process. */
const tokensOf = new WeakMap<readonly FunctionDefinition[], number>();

export function schemaTokens(definitions: readonly FunctionDefinition[]): number {
  let tokens = tokensOf.get(definitions);
  if (tokens === undefined) {
    tokens = definitions.length ? estimateTextTokens(JSON.stringify(definitions)) : 0;
    tokensOf.set(definitions, tokens);
  }
  return tokens;
}

/** Hiding order: MCP tools from the last registered back, then the rarely used built-ins. */
/** What may be hidden, in the order it is: groups that leave the request together. */
function hidingOrder(registry: ToolRegistry, names: readonly string[]): string[][] {
  const rare = RARELY_USED.map((group) => group.filter((name) => names.includes(name))).filter((g) => g.length);
  const mcp = names.filter((name) => registry.get(name)?.toolset.startsWith("mcp-")).reverse();
  return [...rare, ...mcp.map((name) => [name])];
}

/**
 * Per definitions array and budget: a surface that builds an agent per request (the API server,
 * the gateway) would otherwise redo the hiding, and serialize the schemas to count their tokens,
 * for every one of them. A change to the registry hands out a new array.
 */
const publishedOf = new WeakMap<readonly FunctionDefinition[], Map<number, PublishedTools>>();

export function publishTools(registry: ToolRegistry, names: readonly string[], budget: number): PublishedTools {
  const all = registry.definitions([...names]);
  let byBudget = publishedOf.get(all);
  if (!byBudget) {
    byBudget = new Map();
    publishedOf.set(all, byBudget);
  }
  const known = byBudget.get(budget);
  if (known) return known;
  const published = publishFrom(registry, all, names, budget);
  byBudget.set(budget, published);
  return published;
}

function publishFrom(
  registry: ToolRegistry,
  all: FunctionDefinition[],
  names: readonly string[],
  budget: number,
): PublishedTools {
  const candidates = hidingOrder(registry, names);
  if (budget <= 0 || candidates.length === 0 || schemaTokens(all) <= budget) {
    return { definitions: all, hidden: [], callable: [...names] };
  }
  registerToolSearch(registry);
  const hiddenNames = new Set<string>();
  let published = all;
  for (const group of candidates) {
    for (const name of group) hiddenNames.add(name);
    const hidden = all.filter((def) => hiddenNames.has(def.function.name));
    published = [...all.filter((def) => !hiddenNames.has(def.function.name)), ...searchDefinitions(hidden)];
    if (schemaTokens(published) <= budget) break;
  }
  const hidden = all.filter((def) => hiddenNames.has(def.function.name));
  return { definitions: published, hidden, callable: [...names, TOOL_SEARCH, TOOL_DESCRIBE] };
}

/** A prefix shared by this many hidden tools is named once, with a count, instead of each tool. */
const FAMILY_SIZE = 4;

/**
 * Names that share a prefix (up to the first `_`) written once: `browser_back/click, cronjob`,
 * and a large family only by its prefix: `browser_* (10 tools)`. The search finds each of them.
 */
function compactNames(names: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const cut = name.indexOf("_");
    const prefix = cut > 0 ? name.slice(0, cut + 1) : name;
    const rest = cut > 0 ? name.slice(cut + 1) : "";
    groups.set(prefix, [...(groups.get(prefix) ?? []), rest]);
  }
  return [...groups]
    .map(([prefix, rests]) =>
      rests.length >= FAMILY_SIZE ? `${prefix}* (${rests.length} tools)` : `${prefix}${rests.join("/")}`,
    )
    .join(", ");
}

/**
 * What a request carries for the hidden tools: tool_search alone, naming them so the model knows
 * to look. Its matches come with their parameters, so tool_describe (callable, for one tool by
 * its exact name) would only repeat them in every request.
 */
function searchDefinitions(hidden: readonly FunctionDefinition[]): FunctionDefinition[] {
  const names = compactNames(hidden.map((def) => def.function.name));
  return [
    {
      type: "function",
      function: {
        name: TOOL_SEARCH,
        description:
          `Find hidden tools (${names}) by what they do. Returns the best matches with their parameters; ` +
          "then call one by its name.",
        parameters: searchParametersJson(),
      },
    },
  ];
}

const searchParameters = z.object({
  query: z.string().min(1).describe("Words about what the tool should do"),
  limit: z.number().int().min(1).max(SEARCH_LIMIT_CEILING).optional().describe("Matches"),
});
const describeParameters = z.object({ name: z.string().min(1).describe("Tool name") });
/** The published parameters name the configured default and maximum. */
function searchParametersJson(): Record<string, unknown> {
  const { defaultLimit, maxLimit } = limits;
  return toJsonSchema(
    z.object({
      query: z.string().min(1).describe("Words about what the tool should do"),
      limit: z.number().int().min(1).max(maxLimit).optional().describe(`Matches (default ${defaultLimit})`),
    }),
  );
}

function hiddenOf(ctx: ToolContext): FunctionDefinition[] {
  const hidden = ctx.services?.hiddenTools;
  return Array.isArray(hidden) ? (hidden as FunctionDefinition[]) : [];
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** Ranks hidden tools by the query's words: a hit in the name counts more than one in the description. */
export function searchHiddenTools(
  hidden: readonly FunctionDefinition[],
  query: string,
  limit = limits.defaultLimit,
): FunctionDefinition["function"][] {
  const wanted = [...new Set(words(query))];
  const scored = hidden.map((def, index) => {
    const nameWords = new Set(words(def.function.name));
    const descriptionWords = new Set(words(def.function.description));
    let score = 0;
    for (const word of wanted) {
      if (nameWords.has(word)) score += 3;
      else if (def.function.name.toLowerCase().includes(word)) score += 2;
      if (descriptionWords.has(word)) score += 1;
    }
    return { def, score, index };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((entry) => entry.def.function);
}

function registerToolSearch(registry: ToolRegistry): void {
  if (registry.has(TOOL_SEARCH)) return;
  registry.register({
    name: TOOL_SEARCH,
    toolset: "tool_search",
    description: "Find hidden tools by words of their name or description. Returns the matches with their parameters.",
    parameters: searchParameters,
    parallelSafe: true,
    handler: async (args, ctx) => {
      const hidden = hiddenOf(ctx);
      const matches = searchHiddenTools(
        hidden,
        args.query,
        Math.min(args.limit ?? limits.defaultLimit, limits.maxLimit),
      );
      if (matches.length > 0) return JSON.stringify({ matches });
      return JSON.stringify({
        matches: [],
        note: `no hidden tool matches "${args.query}"; hidden tools: ${hidden.map((d) => d.function.name).join(", ") || "none"}`,
      });
    },
  });
  registry.register({
    name: TOOL_DESCRIBE,
    toolset: "tool_search",
    description: "Returns the description and parameters of a hidden tool.",
    parameters: describeParameters,
    parallelSafe: true,
    handler: async (args, ctx) => {
      const hidden = hiddenOf(ctx);
      const found = hidden.find((def) => def.function.name === args.name);
      if (found) return JSON.stringify(found.function);
      return JSON.stringify({
        error: `no hidden tool named "${args.name}"; hidden tools: ${hidden.map((d) => d.function.name).join(", ") || "none"}`,
      });
    },
  });
}
