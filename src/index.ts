/** The public library API of hermes-agent. This file only re-exports. */
export type {
  ApiMode,
  ContentPart,
  FinishReason,
  LlmEvent,
  LlmRequest,
  Message,
  ToolCall,
  ToolDefinition,
  Transport,
  Usage,
} from "./llm/types.js";
export type { ApprovalAnswer, ApprovalRequest, ToolContext, ToolSpec } from "./tools/registry.js";
export { capResult, ToolRegistry, ToolRegistryError } from "./tools/registry.js";
export { packageVersion } from "./util/version.js";
