/**
 * What the agent needs at the start of a session (and after a compression starts a child
 * session): the system prompt from its inputs, and the default memory manager.
 */
import type { Message } from "../llm/types.js";
import { MemoryStore } from "../state/memory-store.js";
import { hermesPaths } from "../state/paths.js";
import { isCodingSession } from "./coding-context.js";
import { codingPromptLayer } from "./coding-prompt.js";
import { COMPACTION_SYSTEM_NOTE } from "./compression/assemble.js";
import { prependText } from "./compression/text.js";
import { buildContextFilesPrompt } from "./context-files.js";
import { environmentProbe } from "./environment-probe.js";
import { MemoryManager } from "./memory-manager.js";
import type { AgentOptions } from "./options.js";
import { DEFAULT_PROMPT_GUIDANCE } from "./prompt-guidance.js";
import { buildSystemPrompt, type SystemPromptInput } from "./system-prompt.js";

export async function sessionPromptInput(
  options: AgentOptions,
  toolNames: string[],
  model: string,
  memory: MemoryManager | undefined,
): Promise<SystemPromptInput> {
  const cwd = options.cwd ?? process.cwd();
  const guidance = options.guidance ?? DEFAULT_PROMPT_GUIDANCE;
  const local = !options.terminalEnvironment || options.terminalEnvironment.backend === "local";
  const coding = isCodingSession({ mode: guidance.coding.mode, platform: options.platform, cwd })
    ? await codingPromptLayer({ cwd, model, instructions: guidance.coding.instructions })
    : undefined;
  return {
    guidance,
    ...(coding ? { coding } : {}),
    ...(guidance.environmentProbe && local ? { environmentProbe: environmentProbe() } : {}),
    cwd,
    toolNames,
    model,
    home: options.home,
    platform: options.platform,
    skillsIndex: options.skillsIndex,
    terminalEnvironment: options.terminalEnvironment,
    contextFiles:
      options.loadContextFiles === false ? undefined : (options.contextFilesPrompt ?? buildContextFilesPrompt)(cwd),
    memoryBlock: memory ? await memory.systemPromptBlock() : undefined,
    timeZone: options.timeZone,
    environmentHint: options.environmentHint,
    platformHint: options.platform ? options.platformHints?.[options.platform] : undefined,
  };
}

export async function buildSessionPrompt(
  options: AgentOptions,
  toolNames: string[],
  model: string,
  memory: MemoryManager | undefined,
): Promise<string> {
  return buildSystemPrompt(await sessionPromptInput(options, toolNames, model, memory));
}

/** The prompt of a session that continues a compressed one: freshly built, with a note about the summary. */
export function withCompactionNote(systemPrompt: string): string {
  return systemPrompt.includes(COMPACTION_SYSTEM_NOTE) ? systemPrompt : `${systemPrompt}\n\n${COMPACTION_SYSTEM_NOTE}`;
}

/** The agent's memory: the given manager, none, or the built-in store under `home`. */
export function resolveMemory(options: AgentOptions, onWarning: (message: string) => void): MemoryManager | undefined {
  if (options.memory === false) return undefined;
  if (options.memory) return options.memory;
  if (!options.home) return undefined;
  return new MemoryManager({ store: new MemoryStore({ dir: hermesPaths(options.home).memoriesDir }), onWarning });
}

/**
 * The history as sent: recalled memory goes in front of the newest user message, for this
 * request only — it is never stored in the history.
 */
export function withRecalledMemory(history: readonly Message[], fenced: string): Message[] {
  if (!fenced) return [...history];
  const out = [...history];
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i]!.role === "user") {
      out[i] = prependText(out[i]!, fenced);
      break;
    }
  }
  return out;
}
