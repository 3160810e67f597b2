/**
 * `mcp_servers.<name>.sampling`: whether an MCP server may ask our model for a completion
 * (`sampling/createMessage`) and the limits it gets. The answers come from `auxiliary.mcp`.
 * Field names and defaults are the original's; `max_concurrent` is our addition.
 */
import { bool, integerAtLeast, numberBetween, oneOf, section, stringList, text } from "./config-fields.js";

export const MCP_SAMPLING_LOG_LEVELS = ["debug", "info", "warning"] as const;

export const mcpSamplingSection = section({
  /** false: the client does not declare the sampling capability to this server. */
  enabled: bool(true),
  /** Always answer with this model ("" = auxiliary.mcp's model, or an allowed hint). */
  model: text(""),
  /** Output tokens one request may ask for; a larger maxTokens is lowered to this. */
  max_tokens_cap: integerAtLeast(1, 4096),
  /** Seconds one request may take, from arrival to answer. */
  timeout: numberBetween(1, 3600, 30),
  /** Requests accepted per rolling minute; more are refused. */
  max_rpm: integerAtLeast(1, 10),
  /** Models the server's modelPreferences hints may pick; empty: hints are ignored. */
  allowed_models: stringList(),
  /** Level of the one-line audit record per request (contents are never logged). */
  log_level: oneOf(MCP_SAMPLING_LOG_LEVELS).default("info"),
  /** Requests answered at the same time; more are refused until one finishes. */
  max_concurrent: integerAtLeast(1, 2),
});
