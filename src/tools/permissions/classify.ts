/**
 * What a tool call does, as far as the permission modes care: reads, edits files, runs
 * something, or none of those. Shell commands count as reads only when every program in them
 * is known to change nothing; anything this module cannot read with certainty is treated as
 * running a command (fail closed).
 */
import { isReadOnlyCommand } from "./read-only-command.js";

export type ToolEffect = "read" | "edit" | "execute" | "other";

export interface ToolCallClass {
  effect: ToolEffect;
  /** Paths the call reads or writes, as the model passed them (relative to the call's cwd). */
  paths: string[];
  /** The shell command of a terminal call. */
  command?: string;
}

const READ_TOOLS = new Set([
  "read_file",
  "search_files",
  "session_search",
  "web_search",
  "web_extract",
  "clarify",
  "skills_list",
  "skill_view",
  "vision_analyze",
  "ha_list_entities",
  "ha_get_state",
  "ha_list_services",
]);

// memory and todo change only the agent's own notes, never the project or the machine, so they
// are "other": plan mode must keep allowing them (planning is exactly when a todo list helps).
const AGENT_STATE_TOOLS = new Set(["memory", "todo"]);

const PROCESS_READ_ACTIONS = new Set(["list", "poll", "log", "wait"]);

const V4A_PATH_LINE = /^\*\*\* (?:Update File|Add File|Delete File|Move to): (.+)$/;

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** Paths named by the file headers of a V4A patch body. */
export function v4aPatchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const line of patch.replace(/\r\n/g, "\n").split("\n")) {
    const match = V4A_PATH_LINE.exec(line);
    const path = match?.[1]?.trim();
    if (path && !paths.includes(path)) paths.push(path);
  }
  return paths;
}

export function classifyToolCall(name: string, args: Record<string, unknown>): ToolCallClass {
  const a: Record<string, unknown> = args && typeof args === "object" ? args : {};
  switch (name) {
    case "write_file": {
      const path = text(a.path);
      return { effect: "edit", paths: path ? [path] : [] };
    }
    case "patch": {
      // Both shapes are read whatever `mode` says: more paths only make an allow harder to get.
      const paths: string[] = [];
      const path = text(a.path);
      if (path) paths.push(path);
      const body = text(a.patch);
      if (body) for (const p of v4aPatchPaths(body)) if (!paths.includes(p)) paths.push(p);
      return { effect: "edit", paths };
    }
    case "skill_manage":
      // Every action writes under the user's skills folder, which is not part of the project.
      return { effect: "edit", paths: [] };
    case "read_file": {
      const path = text(a.path);
      return { effect: "read", paths: path ? [path] : [] };
    }
    case "search_files":
      return { effect: "read", paths: [text(a.path) ?? "."] };
    case "terminal": {
      const command = typeof a.command === "string" ? a.command : "";
      return { effect: isReadOnlyCommand(command) ? "read" : "execute", paths: [], command };
    }
    case "process": {
      const action = typeof a.action === "string" ? a.action : "";
      return { effect: PROCESS_READ_ACTIONS.has(action) ? "read" : "execute", paths: [] };
    }
    case "execute_code":
      return { effect: "execute", paths: [] };
    case "cronjob":
      // A scheduled job runs a prompt or command later, unattended.
      return { effect: a.action === "list" ? "read" : "execute", paths: [] };
    case "ha_call_service":
      // Switches real devices (locks, heating, alarms): a change outside the project, like a command.
      return { effect: "execute", paths: [] };
    case "delegate_task":
      // A subagent may edit and run commands with its own tools; refusing it in plan mode
      // keeps plan mode read-only even when the child is not gated by the same mode.
      return { effect: "execute", paths: [] };
  }
  if (READ_TOOLS.has(name)) return { effect: "read", paths: [] };
  if (AGENT_STATE_TOOLS.has(name)) return { effect: "other", paths: [] };
  // Browser navigation, MCP and plugin tools: nothing this module can judge.
  return { effect: "other", paths: [] };
}
