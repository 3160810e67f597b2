/**
 * Names MCP tools get in the registry. Providers accept tool names made of `[a-zA-Z0-9_-]`
 * up to 64 characters, so server and tool names are cleaned and long ones shortened with a
 * hash suffix that keeps them distinct.
 */
import { createHash } from "node:crypto";

export const MAX_TOOL_NAME_LENGTH = 64;

/** Replace every character outside `[a-zA-Z0-9_-]` with an underscore. */
export function sanitizeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** `mcp_<server>_<tool>`, cleaned and at most 64 characters. */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp_${sanitizeName(server)}_${sanitizeName(tool)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  // Hash the raw names so two long tools that differ only past the cut stay distinct.
  const digest = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - digest.length - 1)}_${digest}`;
}

/** The toolset a server's tools are registered under. */
export function mcpToolsetName(server: string): string {
  return `mcp-${server}`;
}
