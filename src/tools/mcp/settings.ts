/**
 * One `mcp_servers` entry of config.yaml as the MCP client reads it. Every field is optional
 * here so callers can pass partial settings; the config schema fills the same defaults.
 */
export interface McpServerSettings {
  /** Program to start for a stdio server. */
  command?: string;
  args?: string[];
  /** Variables for a stdio server, `${VAR}` filled from the agent's environment. */
  env?: Record<string, string>;
  cwd?: string;
  /** Endpoint of an HTTP server (Streamable HTTP, falling back to SSE). */
  url?: string;
  /** Request headers for an HTTP server, `${VAR}` filled from the agent's environment. */
  headers?: Record<string, string>;
  enabled?: boolean;
  /** Seconds one tool call may take. */
  timeout?: number;
  /** Seconds the start and handshake may take. */
  connect_timeout?: number;
  tools?: { include?: string[]; exclude?: string[] };
  /** Start a stdio server inside the OS sandbox (when one is active), like the model's commands. */
  sandbox?: boolean;
  /** Whether and how the server may ask our model for completions (`sampling/createMessage`). */
  sampling?: McpSamplingSettings;
}

/** `mcp_servers.<name>.sampling`; the config schema fills the same defaults. */
export interface McpSamplingSettings {
  enabled?: boolean;
  /** Always answer with this model ("" = the sampling model's own, or an allowed hint). */
  model?: string;
  max_tokens_cap?: number;
  /** Seconds one request may take. */
  timeout?: number;
  /** Requests per rolling minute. */
  max_rpm?: number;
  /** Models the server's hints may pick; empty: hints are ignored. */
  allowed_models?: string[];
  log_level?: "debug" | "info" | "warning";
  /** Requests answered at the same time. */
  max_concurrent?: number;
}

export const DEFAULT_CALL_TIMEOUT_SECONDS = 120;
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 60;

export type McpTransportKind = "stdio" | "http" | "sse";

/** The transport a server is configured for (an HTTP server may end up on SSE after connecting). */
export function configuredTransport(settings: McpServerSettings): "stdio" | "http" {
  return settings.command ? "stdio" : "http";
}

/** Whether a server tool passes the `tools.include` / `tools.exclude` filters. */
export function toolAllowed(settings: McpServerSettings, tool: string): boolean {
  const include = settings.tools?.include ?? [];
  const exclude = settings.tools?.exclude ?? [];
  if (include.length > 0 && !include.includes(tool)) return false;
  return !exclude.includes(tool);
}
