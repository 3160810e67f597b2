/** A tool the MCP server implements itself (sessions, chat), beside the registry's tools. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ParameterSchema } from "../tools/registry.js";

export interface ServerTool {
  name: string;
  description: string;
  parameters: ParameterSchema;
  run(args: never, signal: AbortSignal): Promise<CallToolResult>;
}

/** Keeps `run`'s argument type tied to its schema while a list holds tools of different schemas. */
export function serverTool<S extends ParameterSchema>(tool: {
  name: string;
  description: string;
  parameters: S;
  run(args: S extends ParameterSchema<infer Out> ? Out : never, signal: AbortSignal): Promise<CallToolResult>;
}): ServerTool {
  return tool as unknown as ServerTool;
}
