/**
 * `hermes mcp serve`: open the runtime, serve MCP over stdin/stdout until the client hangs up
 * (or SIGINT/SIGTERM), then close everything. stdout carries protocol messages only; notices
 * go to stderr and every line to $HERMES_HOME/logs/.
 */
import { randomUUID } from "node:crypto";
import { resolve as resolvePath } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { UsageError } from "../runtime/errors.js";
import { toolsetProblem } from "../runtime/preflight.js";
import { openRuntime } from "../runtime/runtime.js";
import { hermesHome } from "../state/paths.js";
import { log } from "../util/log.js";
import { redactSecrets } from "../util/redact.js";
import { chatTool } from "./chat-tool.js";
import { RegistryTools } from "./registry-tools.js";
import { createHermesMcpServer } from "./server.js";
import { sessionTools } from "./session-tools.js";
import { serveToolsets } from "./settings.js";

export const MCP_PLATFORM = "mcp";

export interface ServeMcpOptions {
  /** `--toolsets`, comma-separated. */
  toolsets?: string;
  /** `--yolo`: run commands that need approval. */
  yolo?: boolean;
}

const say = (message: string) => process.stderr.write(`hermes mcp serve: ${redactSecrets(message)}\n`);

/** Anything printed with console.log would corrupt the protocol stream. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/** Resolves once the client has gone (stdin closed) or the process is asked to stop. */
function untilStopped(transport: StdioServerTransport): Promise<string> {
  return new Promise((resolve) => {
    const done = (why: string) => () => resolve(why);
    process.stdin.once("end", done("the client closed stdin"));
    process.stdin.once("close", done("the client closed stdin"));
    process.once("SIGINT", done("SIGINT"));
    process.once("SIGTERM", done("SIGTERM"));
    transport.onclose = done("the transport closed");
  });
}

export async function serveMcp(options: ServeMcpOptions = {}): Promise<void> {
  keepStdoutForProtocol();
  const home = hermesHome();
  const toolsets = await serveToolsets(home, options.toolsets);
  const runtime = await openRuntime({
    home,
    platform: MCP_PLATFORM,
    toolsets: toolsets.names,
    skipDotEnv: true,
    overrides: { yolo: Boolean(options.yolo) },
    callbacks: {
      onNotice: (message) => say(message),
    },
  });
  try {
    const problem = toolsetProblem(toolsets.names, toolsets.source, Object.keys(runtime.config.mcp_servers));
    if (problem) throw new UsageError(problem);
    const serverTools = [
      ...sessionTools(runtime.store),
      chatTool({ runtime, toolsets: toolsets.names, platform: MCP_PLATFORM }),
    ];
    const registryTools = new RegistryTools({
      registry: runtime.registry,
      toolsets: toolsets.names,
      cwd: resolvePath(process.cwd(), runtime.config.terminal.cwd),
      sessionId: `mcp-serve-${randomUUID()}`,
      platform: MCP_PLATFORM,
      unattendedMode: runtime.config.approvals.unattended_mode,
      reserved: new Set(serverTools.map((tool) => tool.name)),
    });
    const server = createHermesMcpServer({ registryTools, serverTools });
    server.onerror = (error) => log("warn", "mcp-server", "protocol error", { error: error.message });
    const transport = new StdioServerTransport();
    const stopped = untilStopped(transport);
    await server.connect(transport);
    const exposed = await registryTools.names();
    say(
      `serving ${exposed.length} tools from ${toolsets.names.join(", ")} (${toolsets.source}) plus sessions and chat; ` +
        `${runtime.provider}/${runtime.model}${options.yolo ? "; --yolo: commands that need approval run" : ""}`,
    );
    const why = await stopped;
    log("info", "mcp-server", "stop", { why });
    await server.close().catch(() => {});
  } finally {
    await runtime.close();
  }
}
