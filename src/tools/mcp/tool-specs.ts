/**
 * Which of a server's tools get registered, under what names, with what schema. A tool is
 * left out when the config filters it, when its description looks like a prompt injection,
 * or when its cleaned name collides with another tool of the same server.
 */
import { z } from "../../util/schema/index.js";
import { scanForThreats } from "../../util/threats.js";
import type { ToolContext, ToolSpec } from "../registry.js";
import type { McpToolInfo } from "./connection.js";
import { mcpToolName, mcpToolsetName } from "./names.js";
import { type McpServerSettings, toolAllowed } from "./settings.js";

export interface McpBlockedTool {
  /** The tool's name on the server. */
  tool: string;
  reason: string;
}

export interface McpToolPlan {
  /** Registered name → spec. */
  specs: Map<string, ToolSpec>;
  /** Tools the config's include/exclude filters left out. */
  filtered: string[];
  blocked: McpBlockedTool[];
}

export type McpCall = (tool: string, args: Record<string, unknown>, ctx: ToolContext) => Promise<string>;

/** Arguments are checked by the server against its own schema; locally any object passes. */
const anyArguments = z.record(z.string(), z.unknown());

/**
 * The server's input schema, published as given apart from what providers insist on: an
 * object type with a `properties` mapping, and no `$schema` key (some providers refuse it).
 */
export function publishedSchema(input: Record<string, unknown> | undefined): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...(input ?? {}) };
  delete schema.$schema;
  if (schema.type === undefined) schema.type = "object";
  const properties = schema.properties;
  if (schema.type === "object" && (typeof properties !== "object" || properties === null)) schema.properties = {};
  return schema;
}

/** Threat pattern ids found in a tool description (empty when it is clean). */
export function descriptionThreats(description: string): string[] {
  return scanForThreats(description, "strict");
}

export function planServerTools(
  server: string,
  settings: McpServerSettings,
  tools: readonly McpToolInfo[],
  call: McpCall,
): McpToolPlan {
  const plan: McpToolPlan = { specs: new Map(), filtered: [], blocked: [] };
  const owners = new Map<string, string>();
  for (const tool of tools) {
    if (!toolAllowed(settings, tool.name)) {
      plan.filtered.push(tool.name);
      continue;
    }
    const threats = descriptionThreats(tool.description);
    if (threats.length > 0) {
      plan.blocked.push({ tool: tool.name, reason: `description matched threat patterns: ${threats.join(", ")}` });
      continue;
    }
    const name = mcpToolName(server, tool.name);
    const owner = owners.get(name);
    if (owner !== undefined) {
      plan.blocked.push({ tool: tool.name, reason: `its name ${name} collides with tool "${owner}"` });
      continue;
    }
    owners.set(name, tool.name);
    plan.specs.set(name, {
      name,
      toolset: mcpToolsetName(server),
      description: tool.description || `Tool "${tool.name}" of the ${server} MCP server.`,
      parameters: anyArguments,
      jsonSchema: publishedSchema(tool.inputSchema),
      untrustedOutput: true,
      handler: (args, ctx) => call(tool.name, args as Record<string, unknown>, ctx),
    });
  }
  return plan;
}
