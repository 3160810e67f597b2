/**
 * The system prompt, assembled once per session from layers in a fixed order — identity,
 * platform, environment, tool-use guidance for the model families that need it, behaviour
 * guidance for memory / session search / skills, the skills index, project context files and
 * the memory block — and then reused byte for byte on every request, so provider prompt caches
 * keep hitting. An ephemeral layer may ride on top at request time; it is never stored.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir, platform as osPlatform, release } from "node:os";
import { join } from "node:path";
import { scanForThreats } from "../util/threats.js";
import { capContextText } from "./context-files.js";
import { PLATFORM_HINTS } from "./platform-hints.js";
import {
  DEFAULT_PROMPT_GUIDANCE,
  generalToolGuidance,
  modelFamilyGuidance,
  type PromptGuidance,
} from "./prompt-guidance.js";

export { PLATFORM_HINTS } from "./platform-hints.js";

export const DEFAULT_IDENTITY = [
  "You are Hermes, a capable and candid AI agent that works through tools.",
  "You help with code, research, writing, analysis and getting things done on the user's machine.",
  "You plan before you act, check your work, and say plainly what you did, what you are unsure of and what you could not do.",
  "Prefer doing the task over describing how it could be done, and keep explorations targeted.",
].join(" ");

/** Where the terminal and file tools really run, when that is not this machine. */
export interface TerminalEnvironment {
  /** Backend name: docker, ssh, modal, daytona, singularity, ... */
  backend: string;
  os?: string;
  user?: string;
  home?: string;
  cwd?: string;
}

export interface SystemPromptInput {
  /** HERMES_HOME, where SOUL.md may replace the default identity. */
  home?: string;
  platform?: string;
  cwd: string;
  /** The model the session talks to; picks model-family guidance. */
  model?: string;
  toolNames: string[];
  /** A remote terminal backend; its facts replace the local environment hint. */
  terminalEnvironment?: TerminalEnvironment;
  /** The compact skills catalog, built elsewhere. */
  skillsIndex?: string;
  /** The rendered project context files layer. */
  contextFiles?: string;
  /** The frozen memory snapshot (MEMORY.md / USER.md and any external provider's block). */
  memoryBlock?: string;
  now?: Date;
  /** An IANA zone (config.yaml `timezone`): the prompt then states the local time there. */
  timeZone?: string;
  /** What the user wrote about the environment (`agent.environment_hint`). */
  environmentHint?: string | undefined;
  /** `agent.*` prompt switches; default DEFAULT_PROMPT_GUIDANCE. */
  guidance?: PromptGuidance;
  /** The coding brief and workspace snapshot (coding-prompt.ts), when the session takes the coding posture. */
  coding?: string;
  /** Facts about this machine's tooling worth a line (environment-probe.ts). */
  environmentProbe?: string;
  /** The user's text for this platform's layer (`platform_hints`); "" leaves the layer out. */
  platformHint?: string | undefined;
}

export interface PromptLayer {
  name: string;
  text: string;
}

/** The non-empty layers in the order they are joined (`hermes prompt-size` reports each). */
export function systemPromptLayers(input: SystemPromptInput): PromptLayer[] {
  const guidance = input.guidance ?? DEFAULT_PROMPT_GUIDANCE;
  const layers: Array<[string, string | undefined]> = [
    ["identity", identity(input.home)],
    ["platform", input.platformHint ?? (input.platform ? PLATFORM_HINTS[input.platform] : undefined)],
    ["environment", environmentHint(input)],
    ["model guidance", modelFamilyGuidance(input.model, input.toolNames, guidance.toolUseEnforcement)],
    ["tool guidance", behaviourGuidance(input.toolNames, guidance)],
    ["coding", input.coding],
    // The index only helps a model that can load skills.
    ["skills index", input.toolNames.includes("skill_view") ? input.skillsIndex : undefined],
    ["context files", input.contextFiles],
    ["memory", input.memoryBlock],
  ];
  return layers
    .filter((layer): layer is [string, string] => Boolean(layer[1]?.trim()))
    .map(([name, text]) => ({ name, text }));
}

export function buildSystemPrompt(input: SystemPromptInput): string {
  return systemPromptLayers(input)
    .map((layer) => layer.text)
    .join("\n\n");
}

/** The prompt actually sent: the session's stored prompt plus the ephemeral layer, if any. */
export function withEphemeralLayer(systemPrompt: string, ephemeral: string | undefined): string {
  const extra = ephemeral?.trim();
  return extra ? `${systemPrompt}\n\n${extra}` : systemPrompt;
}

function identity(home?: string): string {
  const soulPath = home ? join(home, "SOUL.md") : undefined;
  if (!soulPath || !existsSync(soulPath)) return DEFAULT_IDENTITY;
  let soul: string;
  try {
    soul = readFileSync(soulPath, "utf8").trim();
  } catch {
    return DEFAULT_IDENTITY;
  }
  if (!soul) return DEFAULT_IDENTITY;
  const threats = scanForThreats(soul, "context");
  if (threats.length > 0) {
    return `${DEFAULT_IDENTITY}\n\n[BLOCKED: SOUL.md contained potential prompt injection (${threats.join(", ")}). Its content was not loaded.]`;
  }
  return capContextText(soul, "SOUL.md");
}

/** The session's start: the UTC date, or the date and time in the configured zone. */
function sessionStart(now: Date, timeZone: string | undefined): string {
  if (!timeZone) return now.toISOString().slice(0, 10);
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    weekday: "long",
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("weekday")} ${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")} (time zone ${timeZone})`;
}

function environmentHint(input: SystemPromptInput): string {
  const probe = input.environmentProbe?.trim();
  const facts = probe ? `${environmentFacts(input)}\n${probe}` : environmentFacts(input);
  const note = input.environmentHint?.trim();
  return note ? `${facts}\nAbout this environment, from the user: ${note}` : facts;
}

function environmentFacts(input: SystemPromptInput): string {
  const date = sessionStart(input.now ?? new Date(), input.timeZone);
  const remote = input.terminalEnvironment;
  if (remote && remote.backend !== "local") {
    const facts = [
      remote.os ? `  OS: ${remote.os}` : undefined,
      remote.user ? `  User: ${remote.user}` : undefined,
      remote.home ? `  Home: ${remote.home}` : undefined,
      remote.cwd ? `  Working directory: ${remote.cwd}` : undefined,
    ].filter(Boolean);
    return [
      `Terminal backend: ${remote.backend}. The terminal and file tools (terminal, read_file, write_file, patch, search_files) act inside this ${remote.backend} environment, not on the machine running Hermes; paths and system facts of that machine do not apply.`,
      ...(facts.length ? ["Backend environment:", ...facts] : []),
      `Session started: ${date}`,
    ].join("\n");
  }
  const os = osPlatform();
  const wsl = os === "linux" && /microsoft/i.test(release()) ? " (WSL)" : "";
  return [
    `Host: ${hostName(os)}${wsl} ${release()}`,
    `User home directory: ${homedir()}`,
    `Current working directory: ${input.cwd}`,
    `Session started: ${date}`,
  ].join("\n");
}

function hostName(os: string): string {
  const names: Record<string, string> = { darwin: "macOS", linux: "Linux", win32: "Windows" };
  return names[os] ?? os;
}

const MEMORY_GUIDANCE = `# Persistent memory
The memory tool keeps notes for future sessions: the user's preferences, their environment, tool quirks, stable conventions. Keep entries short; the best one spares the user a correction or a reminder.
Never save task progress, issue or PR numbers, commit ids or anything stale within a week (transcripts can be searched). Write facts, not orders ("The user likes brief answers"). Procedures belong in skills.`;

const SESSION_SEARCH_GUIDANCE =
  "When the user refers to past work or conversations, use session_search before asking them to repeat anything.";

const SKILLS_GUIDANCE =
  "After real effort or a reusable procedure, save it as a skill; fix a skill you used that proved wrong.";

function behaviourGuidance(toolNames: string[], guidance: PromptGuidance): string | undefined {
  const lines: string[] = [];
  if (toolNames.includes("memory")) lines.push(MEMORY_GUIDANCE);
  if (toolNames.includes("session_search")) lines.push(SESSION_SEARCH_GUIDANCE);
  if (toolNames.includes("skill_manage") || toolNames.includes("skill_view")) lines.push(SKILLS_GUIDANCE);
  // The todo tool's own description says when to keep the list.
  const general = generalToolGuidance(toolNames, guidance).join(" ");
  if (general) lines.push(general);
  return lines.length ? lines.join("\n\n") : undefined;
}
