/**
 * One fire of a job, from a claimed run record to its finished one: preflight (a missing script
 * or a prompt that reads as an injection blocks the job without spending tokens), the job's
 * script (in the OS sandbox, with the environment read fresh), the agent (platform `cron`,
 * nobody to approve anything, an inactivity limit), the output kept on disk, silence, and
 * delivery through the gateway's ledger. Every path ends in a run record that says what happened.
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HermesRuntime } from "../runtime/runtime.js";
import { externalSkillDirs } from "../runtime/skill-dirs.js";
import type { CronDeliveryResult, CronJob, CronRun, CronRunResult, CronStore } from "../state/cron-store.js";
import { readDotEnv } from "../state/dotenv.js";
import type { GatewayStore } from "../state/gateway-store.js";
import { configuredHomeChannel } from "../state/home-channel.js";
import { spawnGroup, superviseChild } from "../tools/process-group.js";
import { queueDeliveries } from "./deliver.js";
import { isCronJobId } from "./job-fields.js";
import { jobSkills, preflight, scriptPath, skillInstructions } from "./job-preflight.js";
import { isSilentResponse } from "./schedule.js";

export interface CronRunDeps {
  runtime: HermesRuntime;
  cron: CronStore;
  gateway: GatewayStore;
  home: string;
  /** Stop a run that shows no progress for this long (`HERMES_CRON_TIMEOUT`, default 600 s; 0 = no limit). */
  timeoutMs: number;
  now?: () => number;
  log?: (line: string) => void;
}

const SCRIPT_TIMEOUT_MS = 300_000;

/** `skills.external_dirs` of the running config. */
function skillDirsOf(deps: CronRunDeps): string[] {
  return externalSkillDirs(deps.runtime.config.skills.external_dirs, deps.home);
}

export function outputDir(home: string, jobId: string): string {
  return join(home, "cron", "output", jobId);
}

async function runScript(path: string, deps: CronRunDeps): Promise<{ output: string; error?: string }> {
  // Read .env now, so a key changed since the gateway started is the one the script sees.
  const env = { ...process.env, ...readDotEnv(deps.home), HERMES_HOME: deps.home };
  const child = spawnGroup(path, [], { cwd: join(deps.home, "scripts"), env, stdin: "ignore" });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exit = await superviseChild(child, { timeoutMs: SCRIPT_TIMEOUT_MS, signal: new AbortController().signal });
  if (exit.stopReason === "timeout")
    return { output: stdout, error: `the script ran over ${SCRIPT_TIMEOUT_MS / 1000} s` };
  if (exit.code !== 0)
    return {
      output: stdout,
      error: `the script failed (exit ${exit.code ?? exit.signal}): ${stderr.trim().slice(-500)}`,
    };
  return { output: stdout.trim() };
}

function latestOutput(home: string, jobId: string): string | undefined {
  const dir = outputDir(home, jobId);
  if (!existsSync(dir)) return undefined;
  const newest = readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .at(-1);
  return newest ? readFileSync(join(dir, newest), "utf8") : undefined;
}

function buildPrompt(job: CronJob, scriptOutput: string | undefined, deps: CronRunDeps): string {
  const { home } = deps;
  const parts: string[] = [];
  const skills = skillInstructions(jobSkills(job, home, skillDirsOf(deps)).skills);
  if (skills) parts.push(skills);
  for (const other of job.contextFrom) {
    // "self": this job's own previous output, so a recurring job can carry on from its last run.
    const id = other === "self" ? job.id : other;
    // An id is a directory name: anything else (an imported or hand-edited job) is not read.
    if (!isCronJobId(id)) continue;
    const output = latestOutput(home, id);
    if (output)
      parts.push(`${other === "self" ? "This job's previous output" : `Latest output of job ${id}`}:\n${output}`);
  }
  if (scriptOutput !== undefined) parts.push(`Output of the job's script:\n${scriptOutput}`);
  parts.push(job.prompt);
  return parts.join("\n\n");
}

function saveOutput(home: string, job: CronJob, text: string, at: number, keep: number): string {
  const dir = outputDir(home, job.id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${new Date(at).toISOString().replaceAll(":", "-")}.md`);
  writeFileSync(path, text, { mode: 0o600 });
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .sort();
  for (const old of files.slice(0, Math.max(0, files.length - keep))) rmSync(join(dir, old), { force: true });
  return path;
}

/** Toolsets no scheduled run gets, whatever the job enables. */
export const CRON_DISABLED_TOOLSETS = ["cronjob", "messaging", "clarify"];

async function runAgent(
  job: CronJob,
  prompt: string,
  deps: CronRunDeps,
): Promise<{ text: string; status: "ok" | "error" | "timed_out"; reason?: string }> {
  const agent = deps.runtime.createAgent({
    platform: "cron",
    toolsets: job.enabledToolsets ?? ["hermes-cron"],
    // A job does not schedule more jobs, message other chats (its output is delivered) or ask questions.
    disabledToolsets: CRON_DISABLED_TOOLSETS,
    interactive: false,
    // A job remembers nothing between fires, and reads project files only from its own directory.
    memory: false,
    loadContextFiles: Boolean(job.workdir),
    ...(job.workdir ? { cwd: job.workdir } : {}),
    ...(job.model
      ? { model: { model: job.model, provider: job.provider ?? undefined, baseUrl: job.baseUrl ?? undefined } }
      : {}),
  });
  // The limit is on inactivity: a run that keeps streaming or calling tools is not cut short.
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    if (deps.timeoutMs <= 0) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      agent.interrupt("the cron job went quiet for too long");
    }, deps.timeoutMs);
  };
  const stopWatching = agent.on(arm);
  arm();
  try {
    const result = await agent.runConversation(prompt);
    if (timedOut) {
      return {
        text: result.finalResponse,
        status: "timed_out",
        reason: `stopped after ${deps.timeoutMs / 1000} s without progress`,
      };
    }
    if (result.error) return { text: "", status: "error", reason: result.error };
    return { text: result.finalResponse, status: "ok" };
  } catch (error) {
    return { text: "", status: "error", reason: error instanceof Error ? error.message : String(error) };
  } finally {
    stopWatching();
    clearTimeout(timer);
  }
}

/** Runs the claimed `run` of `job` to its end and records the outcome. */
export async function executeRun(deps: CronRunDeps, job: CronJob, run: CronRun): Promise<CronRun> {
  const now = deps.now ?? Date.now;
  const finish = (result: CronRunResult) => deps.cron.finishRun(run.id, result, now());
  const failureTargets = job.failureDeliver ?? (job.origin ? "origin" : "local");
  const reportFailure = async (reason: string): Promise<CronDeliveryResult[]> =>
    queueDeliveries(
      job,
      failureTargets,
      `⚠ Cron job "${job.name}" failed: ${reason}`,
      deps.gateway,
      homeFromConfig(deps),
    );

  const blocked = preflight(job, deps.home, process.env, skillDirsOf(deps));
  if (blocked) {
    await deps.cron.updateJob(job.id, { state: "blocked", pausedReason: blocked, pausedAt: now() }, now());
    deps.log?.(`cron job ${job.id} (${job.name}) is blocked: ${blocked}`);
    return finish({ status: "skipped", reason: `blocked: ${blocked}`, deliveries: await reportFailure(blocked) });
  }
  try {
    let scriptOutput: string | undefined;
    if (job.script) {
      const script = await runScript(scriptPath(deps.home, job.script) as string, deps);
      if (script.error)
        return finish({ status: "error", reason: script.error, deliveries: await reportFailure(script.error) });
      scriptOutput = script.output;
    }
    let text: string;
    if (job.noAgent) {
      text = scriptOutput ?? "";
    } else {
      const outcome = await runAgent(job, buildPrompt(job, scriptOutput, deps), deps);
      if (outcome.status !== "ok") {
        const why = outcome.reason ?? "the agent failed";
        const partial = outcome.text.trim()
          ? { outputPath: saveOutput(deps.home, job, outcome.text, now(), deps.runtime.config.cron.output_retention) }
          : {};
        return finish({ status: outcome.status, reason: why, ...partial, deliveries: await reportFailure(why) });
      }
      text = outcome.text;
    }
    const outputPath = saveOutput(deps.home, job, text, now(), deps.runtime.config.cron.output_retention);
    if (!text.trim() || isSilentResponse(text))
      return finish({ status: "silent", outputPath, reason: text.trim() ? "silence marker" : "empty output" });
    const body = deps.runtime.config.cron.wrap_response ? `⏰ ${job.name}\n\n${text}` : text;
    const sessionKey = job.origin?.sessionKey;
    const mirror =
      deps.runtime.config.cron.mirror_delivery && sessionKey
        ? { sessionKey, text: `[Sent to this chat by the scheduled job "${job.name}":]\n${text.trim()}` }
        : undefined;
    const deliveries = await queueDeliveries(job, job.deliver, body, deps.gateway, homeFromConfig(deps), mirror);
    return finish({ status: "ok", outputPath, deliveries });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return finish({ status: "error", reason: why, deliveries: await reportFailure(why).catch(() => []) });
  }
}

function homeFromConfig(deps: CronRunDeps): (platform: string) => string | undefined {
  const config = deps.runtime.config;
  return (platform) => configuredHomeChannel(config, platform);
}
