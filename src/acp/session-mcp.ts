/**
 * MCP servers an editor hands to one session (`mcpServers` of session/new, load, resume,
 * fork): started for that session only, their tools registered under names no other session
 * uses, and stopped with the session.
 */
import { createHash } from "node:crypto";
import type { McpServer } from "@agentclientprotocol/sdk/unstable";
import type { McpServerStatus } from "../tools/mcp/manager.js";
import type { McpServerSettings } from "../tools/mcp/settings.js";
import type { ToolRegistry } from "../tools/registry.js";
import { log } from "../util/log.js";

const MAX_SERVERS = 16;
const MAX_ARGS = 200;
const MAX_FIELD_CHARS = 8192;

export class SessionMcpError extends Error {}

function checkedText(value: unknown, what: string): string {
  if (typeof value !== "string" || value.length > MAX_FIELD_CHARS) throw new SessionMcpError(`bad ${what}`);
  return value;
}

function pairs(list: ReadonlyArray<{ name: string; value: string }> | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of list ?? []) out[checkedText(entry.name, `${what} name`)] = checkedText(entry.value, what);
  return out;
}

/** The client's description of a server as our MCP client's settings; throws on hostile input. */
export function settingsFor(server: McpServer, cwd: string): McpServerSettings | undefined {
  if ("type" in server && server.type === "acp") return undefined;
  if ("url" in server) {
    const url = new URL(checkedText(server.url, "server url"));
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new SessionMcpError(`unsupported URL ${url.protocol}`);
    return { url: url.href, headers: pairs(server.headers, "header") };
  }
  if (!("command" in server) || !server.command) throw new SessionMcpError("a stdio MCP server needs a command");
  if ((server.args ?? []).length > MAX_ARGS) throw new SessionMcpError("too many MCP server arguments");
  return {
    command: checkedText(server.command, "command"),
    args: (server.args ?? []).map((arg) => checkedText(arg, "argument")),
    env: pairs(server.env, "environment variable"),
    cwd,
  };
}

export interface SessionMcp {
  toolsets: string[];
  statuses: McpServerStatus[];
  close(): Promise<void>;
}

/** Start the servers (each under its connect timeout); a server that fails is logged and skipped. */
export async function startSessionMcp(
  sessionId: string,
  servers: readonly McpServer[],
  registry: ToolRegistry,
  cwd: string,
): Promise<SessionMcp | undefined> {
  if (servers.length === 0) return undefined;
  if (servers.length > MAX_SERVERS) throw new SessionMcpError(`more than ${MAX_SERVERS} MCP servers`);
  // A short tag per session keeps tool names distinct between sessions and within 64 characters.
  const tag = createHash("sha256").update(sessionId).digest("hex").slice(0, 6);
  const settings: Record<string, McpServerSettings> = {};
  for (const server of servers) {
    const entry = settingsFor(server, cwd);
    const name =
      checkedText(server.name, "server name")
        .replace(/[^a-zA-Z0-9_-]/g, "_")
        .slice(0, 24) || "server";
    if (entry) settings[`s${tag}_${name}`] = entry;
  }
  const [{ McpManager }, { SAFE_ENV_VARS }] = await Promise.all([
    import("../tools/mcp/manager.js"),
    import("../tools/mcp/env.js"),
  ]);
  // `${VAR}` in what the editor sends may only name harmless variables, never the agent's keys.
  const env = Object.fromEntries(
    SAFE_ENV_VARS.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
  );
  const manager = new McpManager({ servers: settings, registry, env });
  const statuses = await manager.start();
  for (const status of statuses) {
    log(status.error ? "warn" : "info", "acp", "session MCP server", {
      session: sessionId,
      server: status.name,
      state: status.state,
      tools: status.tools.length,
      error: status.error,
    });
  }
  return { toolsets: manager.toolsetNames(), statuses, close: () => manager.close() };
}
