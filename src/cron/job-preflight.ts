/**
 * What a job needs before it may spend a token: its script under $HERMES_HOME/scripts/, a prompt
 * that does not read as an injection, its working directory, its skills, and credentials for the
 * model it was created with. A job missing any of them is blocked with the reason.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { resolveProvider } from "../llm/providers.js";
import { canonicalProvider } from "../runtime/credentials.js";
import { requireCredential } from "../runtime/preflight.js";
import { loadAuthStore } from "../state/auth-store.js";
import type { CronJob } from "../state/cron-store.js";
import { readDotEnv } from "../state/dotenv.js";
import { hermesPaths } from "../state/paths.js";
import { discoverSkills, findSkill, type Skill } from "../tools/skills/discovery.js";
import { scanForThreats } from "../util/threats.js";

/** The script's path under $HERMES_HOME/scripts/, or why it cannot run. */
export function scriptPath(home: string, script: string): string | { problem: string } {
  const dir = join(home, "scripts");
  const path = resolve(dir, script);
  const inside = relative(dir, path);
  if (inside.startsWith("..") || isAbsolute(inside)) return { problem: `script ${script} is outside ${dir}` };
  if (!existsSync(path)) return { problem: `script ${script} does not exist in ${dir}` };
  return path;
}

function workdirProblem(workdir: string): string | undefined {
  if (!isAbsolute(workdir)) return `the working directory ${workdir} is not an absolute path`;
  try {
    if (!statSync(workdir).isDirectory()) return `the working directory ${workdir} is not a directory`;
  } catch {
    return `the working directory ${workdir} does not exist`;
  }
  return undefined;
}

function hasStoredKey(home: string, provider: string): boolean {
  try {
    return (loadAuthStore(hermesPaths(home).auth).credentialPool[canonicalProvider(provider)] ?? []).length > 0;
  } catch {
    return false;
  }
}

/** Why the job's model cannot be called (an unknown provider, no key for it), read fresh from .env. */
function modelProblem(job: CronJob, home: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!job.provider) return undefined;
  const spec = resolveProvider(job.provider);
  if (!spec) return `the job's provider "${job.provider}" is unknown (hermes help providers lists them)`;
  const fresh = { ...env, ...readDotEnv(home) };
  const hasKey = spec.keyEnvVars.some((name) => Boolean(fresh[name]?.trim())) || hasStoredKey(home, spec.id);
  try {
    requireCredential(spec, job.baseUrl ?? undefined, hasKey);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The job's skills as found now (project skills from its working directory too), or the missing names. */
export function jobSkills(
  job: CronJob,
  home: string,
  externalDirs: readonly string[] = [],
): { skills: Skill[]; missing: string[] } {
  if (job.skills.length === 0) return { skills: [], missing: [] };
  const { skills } = discoverSkills({ home, cwd: job.workdir ?? home, externalDirs });
  const found: Skill[] = [];
  const missing: string[] = [];
  for (const name of job.skills) {
    const skill = findSkill(skills, name.toLowerCase());
    if (skill) found.push(skill);
    else missing.push(name);
  }
  return { skills: found, missing };
}

/** Why the job cannot run at all, found before any model call. */
export function preflight(
  job: CronJob,
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  externalDirs: readonly string[] = [],
): string | undefined {
  if (job.script) {
    const path = scriptPath(home, job.script);
    if (typeof path !== "string") return path.problem;
  }
  if (job.workdir) {
    const problem = workdirProblem(job.workdir);
    if (problem) return problem;
  }
  if (job.noAgent) return undefined;
  const threats = scanForThreats(job.prompt, "strict");
  if (threats.length) return `the prompt looks like a prompt injection (${threats.join(", ")})`;
  const { missing } = jobSkills(job, home, externalDirs);
  if (missing.length) return `skill${missing.length > 1 ? "s" : ""} not installed: ${missing.join(", ")}`;
  return modelProblem(job, home, env);
}

/** The skills' instructions for the run's prompt, read at fire time. */
export function skillInstructions(skills: readonly Skill[]): string | undefined {
  if (skills.length === 0) return undefined;
  const blocks = skills.map(
    (skill) => `<skill name="${skill.name}">\n${readFileSync(skill.skillFile, "utf8").trim()}\n</skill>`,
  );
  return ["This job uses the skills below: follow their instructions for the task.", ...blocks].join("\n\n");
}
