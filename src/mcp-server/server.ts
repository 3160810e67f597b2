/**
 * The MCP server: our tools (from the served toolsets) and our sessions, listed with their
 * JSON schemas and called with arguments checked against them. A call that fails becomes a
 * tool error with text the caller can act on; nothing a client sends ends the process.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { toJsonSchema } from "../tools/registry.js";
import { log } from "../util/log.js";
import { packageVersion } from "../util/version.js";
import type { RegistryTools } from "./registry-tools.js";
import { describeIssues, toolError } from "./results.js";
import type { ServerTool } from "./server-tool.js";

export interface HermesMcpServerOptions {
  registryTools: RegistryTools;
  /** Tools implemented by the server (sessions, chat); their names win over registry tools. */
  serverTools: ServerTool[];
}

const INSTRUCTIONS =
  "Hermes Agent's tools and sessions. Call the file and shell tools directly, look through past " +
  "conversations with sessions_list, sessions_search and session_read, and hand a task to the agent with chat.";

function describe(tool: ServerTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: { ...toJsonSchema(tool.parameters), type: "object" },
  };
}

async function runServerTool(tool: ServerTool, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
  const parsed = tool.parameters.safeParse(args ?? {});
  if (!parsed.success) {
    return toolError(
      `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error.issues)}. Fix them (see the tool's input schema) and call again.`,
    );
  }
  return tool.run(parsed.data as never, signal);
}

export function createHermesMcpServer(options: HermesMcpServerOptions): Server {
  const server = new Server(
    { name: "hermes-agent", version: packageVersion() },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const own = new Map(options.serverTools.map((tool) => [tool.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...(await options.registryTools.list()), ...options.serverTools.map(describe)],
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const started = performance.now();
    let result: CallToolResult;
    try {
      const tool = own.get(name);
      result = tool
        ? await runServerTool(tool, args, extra.signal)
        : ((await options.registryTools.call(name, args, extra.signal)) ??
          toolError(
            `There is no tool named "${name.slice(0, 100)}" on this server. List the tools to see what is available.`,
          ));
    } catch (error) {
      result = toolError(`${name.slice(0, 100)} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    log(result.isError ? "warn" : "info", "mcp-server", "call", {
      tool: name.slice(0, 100),
      ms: Math.round(performance.now() - started),
      error: result.isError === true,
    });
    return result;
  });

  return server;
}
