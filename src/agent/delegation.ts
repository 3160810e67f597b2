/** Subagents: the `delegate_task` tool and what it needs. See docs/delegation.md. */
export {
  BackgroundDelegations,
  type BackgroundOrigin,
  type BackgroundResult,
  type BackgroundSurface,
} from "./delegation/background.js";
export {
  BACKGROUND_RESULT_PREFIX,
  backgroundResultNotice,
  backgroundResultsMessage,
} from "./delegation/background-message.js";
export { ChildBudget } from "./delegation/child-budget.js";
export { DELEGATE_BLOCKED_TOOLS } from "./delegation/child-tools.js";
export { buildSubagentPrompt, type SubagentPromptInput } from "./delegation/prompt.js";
export type { ChildReport, ChildStatus, DelegateRole, DelegateTask } from "./delegation/run-child.js";
export {
  childOptionsFrom,
  DELEGATION_DEFAULTS,
  type DelegationSettings,
  normalizeDelegationSettings,
} from "./delegation/settings.js";
export {
  type DelegateResult,
  type DelegateTaskArgs,
  type DelegationDeps,
  delegateTaskParameters,
  delegationDepsFrom,
  registerDelegateTool,
} from "./delegation/tool.js";
