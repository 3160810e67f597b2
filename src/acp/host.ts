/**
 * The part of the server that needs the open runtime: the plan-mode toolset, the editor-aware
 * tool handlers, the model list and the session registry. Loaded after `initialize` can
 * already be answered, so an editor is not kept waiting on the agent's start-up.
 */
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk/unstable";
import type { HermesRuntime } from "../runtime/runtime.js";
import { registerToolset } from "../tools/toolsets.js";
import { installEditorTools } from "./editor-tools.js";
import { offeredModels } from "./models.js";
import { PLAN_TOOLS, PLAN_TOOLSET } from "./modes.js";
import { SessionRegistry } from "./sessions.js";

export async function openSessions(
  runtime: HermesRuntime,
  client: () => AgentContext,
  capabilities: () => ClientCapabilities,
): Promise<SessionRegistry> {
  registerToolset(PLAN_TOOLSET, { description: "Editor plan mode: read-only tools", tools: PLAN_TOOLS });
  installEditorTools(runtime.registry, runtime.approvals);
  const models = await offeredModels(runtime);
  return new SessionRegistry(runtime, client(), capabilities, models);
}
