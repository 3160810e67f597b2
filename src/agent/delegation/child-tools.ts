/** Which tools a subagent gets, and the registry it sees them through. */
import { ToolRegistry } from "../../tools/registry.js";
import { resolveToolsets } from "../../tools/toolsets.js";

/** Tools a subagent never gets: recursion (unless orchestrating), the user, shared memory, side effects, scripts. */
export const DELEGATE_BLOCKED_TOOLS: ReadonlySet<string> = new Set([
  "delegate_task",
  "clarify",
  "memory",
  "send_message",
  "execute_code",
]);

/**
 * The parent's tools minus the blocked ones; when `toolsets` is given, only the tools of those
 * toolsets (built-in names, or the toolset a tool was registered under). A child never gets a
 * tool its parent lacks.
 */
export function childToolNames(parentTools: readonly string[], registry: ToolRegistry, toolsets?: string[]): string[] {
  let names = parentTools.filter((name) => !DELEGATE_BLOCKED_TOOLS.has(name));
  if (toolsets && toolsets.length > 0) {
    const wanted = new Set(resolveToolsets(toolsets));
    const tags = new Set(toolsets);
    names = names.filter((name) => wanted.has(name) || tags.has(registry.get(name)?.toolset ?? ""));
  }
  return [...new Set(names)];
}

/**
 * A registry holding only the given tools of `parent`, with their published schemas (including
 * schema overrides). A child needs its own registry so an orchestrator's `delegate_task` can be
 * registered one level deeper without touching the parent's.
 */
export function childRegistry(parent: ToolRegistry, names: readonly string[]): ToolRegistry {
  const registry = new ToolRegistry();
  const published = new Map(parent.definitions([...names]).map((def) => [def.function.name, def.function]));
  for (const name of names) {
    const spec = parent.get(name);
    if (!spec) continue;
    registry.register(spec);
    const def = published.get(name);
    if (def) registry.overrideSchema(name, { description: def.description, parameters: def.parameters });
  }
  return registry;
}
