/** `hermes acp --check`: what an editor will see when it starts the agent, as plain text. */
import type { HermesRuntime } from "../runtime/runtime.js";
import { initializeResponse } from "./capabilities.js";
import { offeredModels } from "./models.js";
import { MODES } from "./modes.js";
import { AVAILABLE_COMMANDS } from "./slash-commands.js";

function yesNo(value: unknown): string {
  return value ? "yes" : "no";
}

export async function checkReport(runtime: HermesRuntime | Error): Promise<string[]> {
  const init = initializeResponse();
  const caps = init.agentCapabilities ?? {};
  const sessions = caps.sessionCapabilities ?? {};
  const lines = [
    `agent: ${init.agentInfo?.name} ${init.agentInfo?.version} (ACP protocol version ${init.protocolVersion})`,
    `sessions: load ${yesNo(caps.loadSession)}, resume ${yesNo(sessions.resume)}, fork ${yesNo(sessions.fork)}, list ${yesNo(sessions.list)}`,
    `prompts: images ${yesNo(caps.promptCapabilities?.image)}, embedded resources ${yesNo(caps.promptCapabilities?.embeddedContext)}`,
    `MCP servers from the editor: stdio yes, http ${yesNo(caps.mcpCapabilities?.http)}, sse ${yesNo(caps.mcpCapabilities?.sse)}`,
    "auth methods:",
    ...(init.authMethods ?? []).map(
      (m) => `  ${m.id}: ${m.name}${"type" in m && m.type === "terminal" ? " (in a terminal)" : ""}`,
    ),
    "modes:",
    ...MODES.map((m) => `  ${m.id}${m.id === "ask" ? " (default)" : ""}: ${m.description}`),
    `slash commands: ${AVAILABLE_COMMANDS.map((c) => `/${c.name}`).join(" ")}`,
  ];
  if (runtime instanceof Error) {
    lines.push(`models: unavailable — ${runtime.message}`);
    lines.push("The editor will be asked to authenticate (run hermes setup).");
    return lines;
  }
  const models = await offeredModels(runtime);
  lines.push(`provider: ${runtime.provider}${runtime.baseUrl ? ` (${runtime.baseUrl})` : ""}`);
  lines.push(`models: ${models.map((m) => (m === runtime.model ? `${m} (current)` : m)).join(", ")}`);
  lines.push(`tools: ${runtime.defaultToolsets().join(", ")}`);
  return lines;
}
