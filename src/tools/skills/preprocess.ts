/**
 * What a skill's text goes through before the model reads it, as in the original:
 * - `skills.template_vars` (default on): `${HERMES_SKILL_DIR}` becomes the skill's folder and
 *   `${HERMES_SESSION_ID}` the session's id, so `python "${HERMES_SKILL_DIR}/scripts/x.py"`
 *   works as written; a variable with no value here is left as it is;
 * - `skills.inline_shell` (default off): each !`command` in SKILL.md is replaced by what the
 *   command prints, run in the skill's folder with `skills.inline_shell_timeout` seconds.
 *   Here such commands run like the model's own (in the sandbox when one is on, without the
 *   agent's keys), and one the dangerous-command rules flag is not run at all.
 */
import { detectDangerousCommand } from "../approval/dangerous.js";
import { spawnShell, terminateGroup, waitForChild } from "../process-group.js";

export interface SkillPreprocessing {
  templateVars: boolean;
  inlineShell: boolean;
  /** Seconds one inline command may run. */
  inlineShellTimeout: number;
}

export const DEFAULT_SKILL_PREPROCESSING: SkillPreprocessing = {
  templateVars: true,
  inlineShell: false,
  inlineShellTimeout: 10,
};

export interface SkillVars {
  skillDir: string;
  sessionId?: string | undefined;
}

const TEMPLATE_VAR = /\$\{(HERMES_SKILL_DIR|HERMES_SESSION_ID)\}/g;
const INLINE_SHELL = /!`([^`\n]+)`/g;
/** An inline command's output is cut here, so one command cannot flood the context. */
export const MAX_INLINE_OUTPUT_CHARS = 4000;

export function substituteSkillVars(text: string, vars: SkillVars): string {
  if (!text.includes("${HERMES_")) return text;
  return text.replace(TEMPLATE_VAR, (whole, name: string) => {
    if (name === "HERMES_SKILL_DIR") return vars.skillDir;
    return vars.sessionId ?? whole;
  });
}

async function runInline(command: string, cwd: string, timeoutSeconds: number): Promise<string> {
  const danger = detectDangerousCommand(command);
  if (danger.dangerous) return `[inline command not run: ${danger.description}]`;
  const child = spawnShell(command, { cwd, stdin: "ignore" });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    if (out.length <= MAX_INLINE_OUTPUT_CHARS) out += chunk;
  });
  child.stderr?.on("data", (chunk: string) => {
    if (err.length <= MAX_INLINE_OUTPUT_CHARS) err += chunk;
  });
  const exited = waitForChild(child);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void terminateGroup(child, exited, 500);
  }, timeoutSeconds * 1000);
  try {
    await exited;
  } catch (error) {
    return `[inline command failed to start: ${error instanceof Error ? error.message : String(error)}]`;
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) return `[inline command stopped after ${timeoutSeconds}s: ${command}]`;
  const shown = (out.trimEnd() || err.trimEnd()).replace(/^\n+/, "");
  return shown.length > MAX_INLINE_OUTPUT_CHARS ? `${shown.slice(0, MAX_INLINE_OUTPUT_CHARS)}...[cut]` : shown;
}

/** Runs each !`command` of `text` in `cwd`, one after another, and puts its output in its place. */
export async function expandInlineShell(text: string, cwd: string, timeoutSeconds: number): Promise<string> {
  if (!text.includes("!`")) return text;
  const commands = [...text.matchAll(INLINE_SHELL)].map((match) => match[1]!.trim());
  const outputs: string[] = [];
  for (const command of commands) outputs.push(command ? await runInline(command, cwd, timeoutSeconds) : "");
  let next = 0;
  return text.replace(INLINE_SHELL, () => outputs[next++] ?? "");
}

/** SKILL.md as the model should read it. */
export async function preprocessSkillText(
  text: string,
  vars: SkillVars,
  settings: SkillPreprocessing = DEFAULT_SKILL_PREPROCESSING,
): Promise<string> {
  let out = settings.templateVars ? substituteSkillVars(text, vars) : text;
  if (settings.inlineShell) out = await expandInlineShell(out, vars.skillDir, settings.inlineShellTimeout);
  return out;
}
