/**
 * A one-off connection to one server for `hermes mcp test`: start it, list its tools, report
 * what would be registered and how long each step took, then stop it.
 */
import { McpConnection } from "./connection.js";
import { mcpToolName } from "./names.js";
import { type McpServerSettings, type McpTransportKind, toolAllowed } from "./settings.js";
import { descriptionThreats } from "./tool-specs.js";

export interface McpProbeTool {
  name: string;
  registeredName: string;
  description: string;
  /** Passes `tools.include` / `tools.exclude`. */
  included: boolean;
  /** Threat pattern ids found in the description (the tool would not be registered). */
  threats: string[];
}

export interface McpProbeResult {
  ok: boolean;
  transport: McpTransportKind;
  connectMs?: number;
  listMs?: number;
  tools: McpProbeTool[];
  error?: string;
  warnings: string[];
}

export async function probeMcpServer(
  name: string,
  settings: McpServerSettings,
  env?: NodeJS.ProcessEnv,
): Promise<McpProbeResult> {
  const connection = new McpConnection(name, settings, env ? { env } : {});
  try {
    await connection.connect();
  } catch (error) {
    await connection.close();
    return {
      ok: false,
      transport: connection.transport,
      tools: [],
      error: error instanceof Error ? error.message : String(error),
      warnings: [...connection.warnings],
    };
  }
  const listStarted = performance.now();
  try {
    const tools = await connection.listTools();
    const listMs = Math.round(performance.now() - listStarted);
    return {
      ok: true,
      transport: connection.transport,
      ...(connection.connectMs !== undefined ? { connectMs: connection.connectMs } : {}),
      listMs,
      warnings: [...connection.warnings],
      tools: tools.map((tool) => ({
        name: tool.name,
        registeredName: mcpToolName(name, tool.name),
        description: tool.description,
        included: toolAllowed(settings, tool.name),
        threats: descriptionThreats(tool.description),
      })),
    };
  } catch (error) {
    return {
      ok: false,
      transport: connection.transport,
      ...(connection.connectMs !== undefined ? { connectMs: connection.connectMs } : {}),
      tools: [],
      error: `connected, but listing tools failed: ${error instanceof Error ? error.message : String(error)}`,
      warnings: [...connection.warnings],
    };
  } finally {
    await connection.close();
  }
}
