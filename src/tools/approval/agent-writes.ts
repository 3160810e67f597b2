/**
 * `memory.write_approval` and `skills.write_approval`: with either on, the model's own writes
 * to its memory or skills wait for the user's yes through the approval policy, like a risky
 * command. Where nobody can answer they follow the unattended rules (refused by default).
 */
import type { ToolContext } from "../registry.js";
import type { ApprovalPolicy } from "./policy.js";

export type AgentWriteKind = "memory" | "skills";

/** Which kinds ask first; the runtime puts it in `ctx.services.writeApproval`. */
export type WriteApprovalSettings = Partial<Record<AgentWriteKind, boolean>>;

const SETTING: Record<AgentWriteKind, { key: string; configKey: string }> = {
  memory: { key: "memory_write", configKey: "memory.write_approval" },
  skills: { key: "skill_write", configKey: "skills.write_approval" },
};

/** Undefined when the write may go ahead; otherwise the refusal to hand the model. */
export async function approveAgentWrite(
  kind: AgentWriteKind,
  what: string,
  ctx: ToolContext,
): Promise<string | undefined> {
  const settings = ctx.services?.writeApproval as WriteApprovalSettings | undefined;
  if (!settings?.[kind]) return undefined;
  const { key, configKey } = SETTING[kind];
  const policy = ctx.services?.approvals as ApprovalPolicy | undefined;
  if (!policy) return `Refused: ${what} needs the user's approval (${configKey}) and nobody can be asked here.`;
  const verdict = await policy.checkAction(what, { key, description: `${what} (${configKey} is on)` }, ctx);
  return verdict.allowed ? undefined : verdict.message;
}
