/**
 * The system prompt, assembled once per session from layers in a fixed order and then reused
 * byte for byte on every request, so provider prompt caches keep hitting.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir, platform as osPlatform, release } from "node:os";
import { join } from "node:path";

export const DEFAULT_IDENTITY = [
  "You are Hermes, a capable and candid AI agent that works through tools.",
  "You plan before you act, check your work, and say plainly what you did and what you could not do.",
  "Prefer doing the task over describing how it could be done; ask a question only when a wrong guess would be costly.",
].join(" ");

const PLATFORM_HINTS: Record<string, string> = {
  cli: "You are talking to the user in a terminal. Markdown renders; keep answers compact.",
  api_server: "You are serving a program over an OpenAI-compatible HTTP API. Answer in plain, self-contained text.",
  cron: "You are running as a scheduled job with nobody watching. Do the task, then report the result briefly.",
  telegram: "You are chatting on Telegram. Keep messages short; long output belongs in files.",
  discord: "You are chatting on Discord. Keep messages short; use code blocks for code.",
  slack: "You are chatting on Slack. Keep messages short; use code blocks for code.",
};

export interface SystemPromptInput {
  /** HERMES_HOME, where SOUL.md may replace the default identity. */
  home?: string;
  platform?: string;
  cwd: string;
  toolNames: string[];
  memorySnapshot?: string;
  userProfileSnapshot?: string;
  skillsIndex?: string;
  contextFiles?: string;
  now?: Date;
}

function identity(home?: string): string {
  const soulPath = home ? join(home, "SOUL.md") : undefined;
  if (soulPath && existsSync(soulPath)) {
    const soul = readFileSync(soulPath, "utf8").trim();
    if (soul) return soul;
  }
  return DEFAULT_IDENTITY;
}

function toolGuidance(toolNames: string[]): string | undefined {
  const lines: string[] = [];
  if (toolNames.includes("memory")) {
    lines.push(
      "Use the memory tool to keep durable facts about the user and their environment; keep entries short and current.",
    );
  }
  if (toolNames.includes("session_search")) {
    lines.push("When the user refers to earlier work, search past sessions with session_search before asking.");
  }
  if (toolNames.includes("todo")) lines.push("For multi-step tasks, keep a todo list and update it as you go.");
  if (toolNames.length > 0)
    lines.push("Call tools rather than guessing facts you can check; run independent calls together.");
  return lines.length ? lines.join("\n") : undefined;
}

export function buildSystemPrompt(input: SystemPromptInput): string {
  const date = (input.now ?? new Date()).toISOString().slice(0, 10);
  const layers = [
    identity(input.home),
    input.platform ? PLATFORM_HINTS[input.platform] : undefined,
    `Environment: ${osPlatform()} ${release()}; home ${homedir()}; working directory ${input.cwd}; session started ${date}.`,
    toolGuidance(input.toolNames),
    input.skillsIndex,
    input.contextFiles,
    input.memorySnapshot ? `<memory>\n${input.memorySnapshot}\n</memory>` : undefined,
    input.userProfileSnapshot ? `<user-profile>\n${input.userProfileSnapshot}\n</user-profile>` : undefined,
  ];
  return layers.filter((layer): layer is string => Boolean(layer?.trim())).join("\n\n");
}
