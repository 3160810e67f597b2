/**
 * The session modes an editor offers, and the config options (mode and model) it shows as
 * pickers. Zed reads `configOptions` with `category: "model"` / `"mode"` for its selectors.
 */
import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk/unstable";

export type ModeId = "ask" | "auto-edit" | "yolo" | "plan";

export const MODES: ReadonlyArray<{ id: ModeId; name: string; description: string }> = [
  { id: "ask", name: "Ask", description: "Ask before editing files and before dangerous commands" },
  { id: "auto-edit", name: "Auto-edit", description: "Edit files without asking; commands follow the approval policy" },
  { id: "yolo", name: "YOLO", description: "Never ask: edits and commands run at once (hardline blocks still apply)" },
  { id: "plan", name: "Plan", description: "Read-only: look around and plan, no file writes and no commands" },
];

export const DEFAULT_MODE: ModeId = "ask";

export function isModeId(value: unknown): value is ModeId {
  return typeof value === "string" && MODES.some((mode) => mode.id === value);
}

/** Tools that change nothing on disk or elsewhere: the only ones plan mode offers. */
export const PLAN_TOOLSET = "hermes-acp-plan";
export const PLAN_TOOLS = [
  "read_file",
  "search_files",
  "web_search",
  "web_extract",
  "vision_analyze",
  "skills_list",
  "skill_view",
  "session_search",
  "todo",
];

/** Tools refused in plan mode even if a toolset lets one through. */
export const WRITING_TOOLS = new Set(["write_file", "patch", "terminal", "process", "execute_code", "skill_manage"]);

export function modeState(current: ModeId): SessionModeState {
  return {
    currentModeId: current,
    availableModes: MODES.map(({ id, name, description }) => ({ id, name, description })),
  };
}

export function configOptions(mode: ModeId, model: string, models: readonly string[]): SessionConfigOption[] {
  const choices = models.includes(model) ? models : [model, ...models];
  return [
    {
      id: "mode",
      name: "Mode",
      description: "How much the agent may do without asking",
      category: "mode",
      type: "select",
      currentValue: mode,
      options: MODES.map(({ id, name, description }) => ({ value: id, name, description })),
    },
    {
      id: "model",
      name: "Model",
      description: "The model this session talks to",
      category: "model",
      type: "select",
      currentValue: model,
      options: choices.map((id) => ({ value: id, name: id })),
    },
  ];
}
