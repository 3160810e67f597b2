/** The MCP client: configured MCP servers (stdio or HTTP) as tools in the registry. */
export { type ConnectionHooks, McpConnection, type McpServerState, type McpToolInfo } from "./connection.js";
export { interpolate, SAFE_ENV_VARS, serverEnvironment } from "./env.js";
export {
  McpManager,
  type McpManagerOptions,
  type McpServerStatus,
  type McpStatusListener,
} from "./manager.js";
export { MAX_TOOL_NAME_LENGTH, mcpToolName, mcpToolsetName, sanitizeName } from "./names.js";
export { type McpProbeResult, type McpProbeTool, probeMcpServer } from "./probe.js";
export { formatCallResult, type McpCallResult, type McpContentBlock } from "./results.js";
export {
  DEFAULT_SAMPLING_MAX_CONCURRENT,
  DEFAULT_SAMPLING_MAX_RPM,
  DEFAULT_SAMPLING_MAX_TOKENS_CAP,
  DEFAULT_SAMPLING_TIMEOUT_SECONDS,
  SamplingGate,
  samplingEnabled,
} from "./sampling.js";
export {
  type SamplingCompletion,
  type SamplingMessage,
  type SamplingModel,
  type SamplingPart,
  SamplingRefused,
  type SamplingRequest,
} from "./sampling-request.js";
export type { McpSamplingSettings } from "./settings.js";
export {
  configuredTransport,
  DEFAULT_CALL_TIMEOUT_SECONDS,
  DEFAULT_CONNECT_TIMEOUT_SECONDS,
  type McpServerSettings,
  type McpTransportKind,
  toolAllowed,
} from "./settings.js";
export { formatMcpStatus, formatMcpStatusLine } from "./status-text.js";
export { type McpBlockedTool, planServerTools, publishedSchema } from "./tool-specs.js";
