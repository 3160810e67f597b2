/**
 * `hermes mcp list|add|remove|test`: the `mcp_servers` section of config.yaml from the command
 * line; `hermes mcp serve`: our own tools and sessions as an MCP server over stdio. State and
 * MCP modules load inside each action, so registering costs nothing at startup.
 */
import type { Command } from "commander";
import type { McpServerConfig } from "../../state/config-schema.js";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

interface AddOptions {
  command?: string;
  args?: string[];
  env: string[];
  url?: string;
  header: string[];
  timeout?: string;
  connectTimeout?: string;
  disabled?: boolean;
  force?: boolean;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function pairs(entries: string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of entries) {
    const eq = entry.indexOf("=");
    if (eq <= 0) throw new UsageError(`${flag} expects KEY=VALUE (got "${entry}")`);
    out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

function seconds(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`${flag} must be a whole number of seconds (got "${raw}")`);
  return value;
}

function checkName(name: string): void {
  if (!SERVER_NAME.test(name)) {
    throw new UsageError(`"${name}" is not a valid server name: use letters, digits, "_" and "-"`);
  }
}

/** The config entry `mcp add` writes: only what was given, so defaults stay defaults. */
export function serverEntry(options: AddOptions, extraArgs: string[]): Record<string, unknown> {
  if (Boolean(options.command) === Boolean(options.url)) {
    throw new UsageError("give exactly one of --command (a stdio server) or --url (an HTTP server)");
  }
  const entry: Record<string, unknown> = {};
  if (options.command) {
    if (options.header.length > 0) throw new UsageError("--header applies to --url servers only");
    entry.command = options.command;
    const args = [...(options.args ?? []), ...extraArgs];
    if (args.length > 0) entry.args = args;
    if (options.env.length > 0) entry.env = pairs(options.env, "--env");
  } else {
    if (options.args?.length || extraArgs.length > 0) throw new UsageError("--args applies to --command servers only");
    if (options.env.length > 0) throw new UsageError("--env applies to --command servers only");
    try {
      new URL(options.url ?? "");
    } catch {
      throw new UsageError(`--url must be a full URL such as http://127.0.0.1:8000/mcp (got "${options.url}")`);
    }
    entry.url = options.url;
    if (options.header.length > 0) entry.headers = pairs(options.header, "--header");
  }
  const timeout = seconds(options.timeout, "--timeout");
  const connectTimeout = seconds(options.connectTimeout, "--connect-timeout");
  if (timeout !== undefined) entry.timeout = timeout;
  if (connectTimeout !== undefined) entry.connect_timeout = connectTimeout;
  if (options.disabled) entry.enabled = false;
  return entry;
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

export function serverTarget(server: McpServerConfig): string {
  if (server.url) return server.url;
  return [server.command ?? "", ...server.args].map(quoteArg).join(" ");
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

async function state() {
  const [config, paths] = await Promise.all([import("../../state/config.js"), import("../../state/paths.js")]);
  return { ...config, ...paths };
}

export function registerMcpCommands(program: Command, io: CommandIo = processIo): Command {
  const mcp = program.command("mcp").description("manage MCP servers, whose tools the agent can call");

  mcp
    .command("list")
    .description("list the configured MCP servers with their transport and whether they are enabled")
    .action(async () => {
      const s = await state();
      const { config, warnings } = s.loadConfig({ home: s.hermesHome() });
      for (const warning of warnings) io.err(`warning: ${warning}`);
      const servers = Object.entries(config.mcp_servers);
      if (servers.length === 0) {
        io.out("No MCP servers configured. Add one with `hermes mcp add NAME --command CMD` or `--url URL`.");
        return;
      }
      const rows = [["NAME", "ENABLED", "TRANSPORT", "TARGET"]];
      for (const [name, server] of servers) {
        rows.push([name, server.enabled ? "yes" : "no", server.command ? "stdio" : "http", serverTarget(server)]);
      }
      for (const line of table(rows)) io.out(line);
    });

  mcp
    .command("add <name> [args...]")
    .description("add a stdio server (--command) or an HTTP server (--url) to config.yaml")
    .option("--command <cmd>", "program that runs a stdio server")
    .option("--args <args...>", "arguments for the program (put arguments that start with '-' after --)")
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the help text shows the ${VAR} syntax
    .option("--env <KEY=VALUE>", "environment variable for the server; ${VAR} is filled in at start", collect, [])
    .option("--url <url>", "endpoint of an HTTP server (Streamable HTTP, falling back to SSE)")
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the help text shows the ${VAR} syntax
    .option("--header <KEY=VALUE>", "request header for an HTTP server; ${VAR} is filled in", collect, [])
    .option("--timeout <seconds>", "seconds one tool call may take (default 120)")
    .option("--connect-timeout <seconds>", "seconds the start and handshake may take (default 60)")
    .option("--disabled", "add the server switched off (enabled: false)")
    .option("--force", "replace a server of the same name")
    .action(async (name: string, extraArgs: string[], options: AddOptions) => {
      checkName(name);
      const entry = serverEntry(options, extraArgs);
      const s = await state();
      const home = s.hermesHome();
      const { config } = s.loadConfig({ home });
      if (config.mcp_servers[name] && !options.force) {
        throw new UsageError(`an MCP server named "${name}" already exists (use --force to replace it)`);
      }
      const result = s.setConfigValue(home, `mcp_servers.${name}`, JSON.stringify(entry));
      for (const warning of result.warnings) io.err(`warning: ${warning}`);
      io.out(`Added MCP server "${name}" to ${result.path}. Check it with \`hermes mcp test ${name}\`.`);
    });

  mcp
    .command("remove <name>")
    .alias("rm")
    .description("remove an MCP server from config.yaml")
    .action(async (name: string) => {
      checkName(name);
      const s = await state();
      const result = s.unsetConfigValue(s.hermesHome(), `mcp_servers.${name}`);
      if (!result.removed) {
        io.err(`No MCP server named "${name}" in ${result.path} (see \`hermes mcp list\`).`);
        io.setExitCode(1);
        return;
      }
      io.out(`Removed MCP server "${name}" from ${result.path}.`);
    });

  mcp
    .command("test <name>")
    .description("start a configured server, list its tools and report how long it took")
    .action(async (name: string) => {
      const s = await state();
      const { config } = s.loadConfig({ home: s.hermesHome() });
      const server = config.mcp_servers[name];
      if (!server) throw new UsageError(`no MCP server named "${name}" (see \`hermes mcp list\`)`);
      const { probeMcpServer } = await import("../../tools/mcp/probe.js");
      io.out(`Testing "${name}": ${serverTarget(server)}`);
      if (!server.enabled) io.out("(the server is disabled in config.yaml; testing it anyway)");
      const result = await probeMcpServer(name, server);
      for (const warning of result.warnings) io.err(`warning: ${warning}`);
      if (!result.ok) {
        io.err(`Could not use "${name}": ${result.error}`);
        io.setExitCode(1);
        return;
      }
      io.out(
        `Connected over ${result.transport} in ${result.connectMs} ms; listed ${result.tools.length} tools in ${result.listMs} ms.`,
      );
      const rows = result.tools.map((tool) => {
        const note = tool.threats.length
          ? `blocked (${tool.threats.join(", ")})`
          : tool.included
            ? ""
            : "left out by tools.include/exclude";
        return [`  ${tool.registeredName}`, note || firstLine(tool.description)];
      });
      for (const line of table(rows)) io.out(line);
    });

  mcp
    .command("serve")
    .description("serve Hermes' tools and sessions to an MCP client over stdin/stdout")
    .option(
      "-t, --toolsets <list>",
      "comma-separated toolsets to expose (default: mcp_serve.toolsets in config.yaml, else file,terminal)",
    )
    .option("--yolo", "run commands that need approval instead of refusing them (hardline blocks still apply)")
    .action(async (options: { toolsets?: string; yolo?: boolean }) => {
      const { serveMcp } = await import("../../mcp-server/serve.js");
      await serveMcp(options);
    });

  return mcp;
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
