export { classifyToolCall, type ToolCallClass, type ToolEffect, v4aPatchPaths } from "./classify.js";
export {
  isPermissionMode,
  nextMode,
  PERMISSION_MODE_CYCLE,
  type PermissionDecision,
  PermissionGate,
  type PermissionGateOptions,
  type PermissionMode,
  planModeNote,
} from "./gate.js";
export { isReadOnlyCommand } from "./read-only-command.js";
export {
  findAllowRule,
  findDenyRule,
  matchRule,
  type PermissionRule,
  parsePermissionRule,
  parsePermissionRules,
  type ToolCallInfo,
} from "./rules.js";
export {
  parseShellStrict,
  redirectWritesFile,
  type ShellParse,
  type ShellPart,
  type ShellRedirect,
  type ShellWord,
} from "./shell-parse.js";
