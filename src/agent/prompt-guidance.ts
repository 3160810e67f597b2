/**
 * Guidance layers of the system prompt that depend on the model and on `agent.*` switches:
 * the "act through tools" rules (and extras for the families that need them), finishing the
 * task, and batching independent tool calls. Each is chosen once per session, so the prompt
 * stays byte-stable.
 */
import type { CodingMode } from "./coding-context.js";

/** `agent.*` switches for the prompt; absent, the agent uses DEFAULT_PROMPT_GUIDANCE. */
export interface PromptGuidance {
  /** auto (the families below), true or false for every model, or model-name fragments. */
  toolUseEnforcement: "auto" | boolean | readonly string[];
  taskCompletion: boolean;
  parallelToolCalls: boolean;
  /** Probe Python's tooling for the environment layer (local terminal only). */
  environmentProbe: boolean;
  coding: { mode: CodingMode; instructions: string };
}

/**
 * For agents built without a configuration (library use, tests): the text-only guidance is on,
 * the parts that look at the machine (environment probe, workspace snapshot) are off.
 */
export const DEFAULT_PROMPT_GUIDANCE: PromptGuidance = {
  toolUseEnforcement: "auto",
  taskCompletion: true,
  parallelToolCalls: true,
  environmentProbe: false,
  coding: { mode: "off", instructions: "" },
};

const TOOL_USE_ENFORCEMENT = `# Acting through tools
Use your tools to act; do not describe what you would do instead of doing it. When you say you will run, read, check or create something, make that tool call in the same reply. Do not end a reply by promising future work: do it now, and keep going until the task is finished.
Each reply should either make progress with tool calls or deliver the final result to the user.`;

const OPENAI_EXECUTION_GUIDANCE = `<use_tools_for_facts>
Work these out with a tool, never from recall or mental arithmetic:
- calculations and unit conversions (terminal or execute_code)
- hashes, encodings and checksums (terminal)
- the current date, time or time zone (terminal)
- the state of this system: OS, CPU, memory, disk, ports, processes (terminal)
- file contents, sizes and line counts (read_file, search_files or terminal)
- git history, branches and diffs (terminal)
- current events, prices and latest versions (web_search)
The memory and user profile describe the user, not the machine you run on, which may differ.
</use_tools_for_facts>

<act_on_the_obvious_reading>
When a request has an obvious default meaning, act on it instead of asking: "is port 443 open?" means on this machine; "what time is it?" means run date. Ask only when the ambiguity would change which tool you call.
</act_on_the_obvious_reading>`;

const GOOGLE_OPERATIONAL_GUIDANCE = `# Working style
Use absolute paths with file tools. Read a file before you change it and check the result after. Run independent tool calls together in one reply. Keep explanations short and let the tool results carry the detail.`;

export const TASK_COMPLETION_GUIDANCE =
  "Carry a task through to a working result rather than stopping at a stub, a plan or the first error. If the real way is blocked, say what blocks it; never present invented output, results or file contents as real.";

export const PARALLEL_TOOL_CALL_GUIDANCE =
  "Make independent tool calls (reads, searches, fetches, read-only commands) together in one reply: they run at once.";

type Family = "openai" | "google" | "other-enforced";

/** Families that tend to narrate instead of calling tools and do better with explicit rules. */
export function modelFamily(model: string | undefined): Family | undefined {
  if (!model) return undefined;
  const name = (model.split("/").at(-1) ?? model).toLowerCase();
  if (/^(gpt|codex|o[1-9]\b|o[1-9]-)/.test(name)) return "openai";
  if (/^(gemini|gemma)/.test(name)) return "google";
  if (/^(grok|glm)/.test(name)) return "other-enforced";
  return undefined;
}

/** Whether a setting of the auto / true / false / fragments kind selects this model. */
export function selectsModel(
  setting: "auto" | boolean | readonly string[],
  model: string | undefined,
  auto: (model: string | undefined) => boolean,
): boolean {
  if (setting === "auto") return auto(model);
  if (typeof setting === "boolean") return setting;
  const name = (model ?? "").toLowerCase();
  return setting.some((fragment) => fragment.trim() !== "" && name.includes(fragment.trim().toLowerCase()));
}

export function modelFamilyGuidance(
  model: string | undefined,
  toolNames: readonly string[],
  enforcement: PromptGuidance["toolUseEnforcement"] = "auto",
): string | undefined {
  if (toolNames.length === 0) return undefined;
  if (!selectsModel(enforcement, model, (m) => modelFamily(m) !== undefined)) return undefined;
  const family = modelFamily(model);
  if (family === "openai") return `${TOOL_USE_ENFORCEMENT}\n\n${OPENAI_EXECUTION_GUIDANCE}`;
  if (family === "google") return `${TOOL_USE_ENFORCEMENT}\n\n${GOOGLE_OPERATIONAL_GUIDANCE}`;
  return TOOL_USE_ENFORCEMENT;
}

/** Lines about working with tools in general, for the tool guidance layer. */
export function generalToolGuidance(toolNames: readonly string[], guidance: PromptGuidance): string[] {
  if (toolNames.length === 0) return [];
  const lines = ["Call tools rather than guessing facts you can check."];
  if (guidance.parallelToolCalls) lines.push(PARALLEL_TOOL_CALL_GUIDANCE);
  if (guidance.taskCompletion) lines.push(TASK_COMPLETION_GUIDANCE);
  return lines;
}
