/**
 * The job fields the agent's `cronjob` tool may set beyond schedule, prompt, name and delivery:
 * skills, a script, script-only delivery, other jobs' output as context, toolsets, a working
 * directory and a model. A tool call can come from a chat or from text the agent read, so each
 * value is checked here before it is stored: a script only from $HERMES_HOME/scripts/, a working
 * directory outside $HERMES_HOME, context only from jobs the caller can see, and a base URL only
 * where the key it would carry already goes (see `baseUrlRefusal`).
 */
import { statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { resolveProvider } from "../llm/providers.js";
import { namedEndpoints } from "../state/config-providers.js";
import type { HermesConfig } from "../state/config-schema.js";
import type { CronJob } from "../state/cron-store.js";
import type { CronToolJobSpec } from "../tools/builtin/cronjob.js";
import { discoverSkills, findSkill } from "../tools/skills/discovery.js";
import { listToolsets, validateToolset } from "../tools/toolsets.js";
import { baseUrlProblem, isLoopbackHost } from "../util/base-url.js";
import { scriptPath } from "./job-preflight.js";

/** The fields as the tool receives them; an empty string or list clears a field on update. */
export type CronJobFieldsInput = Pick<CronToolJobSpec, (typeof CRON_FIELD_NAMES)[number]>;

export const CRON_FIELD_NAMES = [
  "skills",
  "script",
  "no_agent",
  "context_from",
  "enabled_toolsets",
  "workdir",
  "model",
  "provider",
  "base_url",
] as const satisfies ReadonlyArray<keyof CronToolJobSpec>;

export interface CronFieldsContext {
  home: string;
  /**
   * Hosts the owner already sends a key to from config.yaml (`model.base_url`, custom
   * providers): a job's base URL may name one of them.
   */
  configuredHosts: ReadonlySet<string>;
  /** Whether the caller may see job `id` (the same chat, or any job from the terminal). */
  canSee(id: string): Promise<boolean>;
  /** `skills.external_dirs`, resolved: skills there count as installed. */
  externalDirs?: readonly string[];
}

export type CronJobFields = Partial<
  Pick<
    CronJob,
    "skills" | "script" | "noAgent" | "contextFrom" | "enabledToolsets" | "workdir" | "model" | "provider" | "baseUrl"
  >
>;

const JOB_ID = /^[0-9a-f]{12}$/;

/** Whether `id` has the form of a job id (so it can name a directory under cron/output/). */
export function isCronJobId(id: string): boolean {
  return JOB_ID.test(id);
}

function names(list: readonly string[]): string[] {
  return [...new Set(list.map((item) => item.trim()).filter(Boolean))];
}

function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

/** The hosts of the base URLs in `urls` that parse; for `configuredHosts`. */
export function hostsOf(urls: Iterable<string | undefined>): Set<string> {
  const hosts = new Set<string>();
  for (const url of urls) {
    if (url && !baseUrlProblem(url)) hosts.add(hostOf(url.trim()));
  }
  return hosts;
}

/** The hosts config.yaml sends requests (and keys) to: the model's base URL and named endpoints. */
export function configuredHosts(config: HermesConfig): Set<string> {
  return hostsOf([config.model.base_url, ...namedEndpoints(config).map((endpoint) => endpoint.baseUrl)]);
}

/**
 * Why a job may not send requests for `provider` to `baseUrl`, or undefined when it may. A
 * run sends the provider's key (or OPENAI_API_KEY for a custom endpoint) to its base URL, so a
 * tool call that could name any host could hand that key to anyone. Allowed: the provider's
 * own endpoint, a server on this machine, and a host config.yaml already points at.
 */
export function baseUrlRefusal(
  provider: string | null,
  baseUrl: string,
  configuredHosts: ReadonlySet<string>,
): string | undefined {
  const problem = baseUrlProblem(baseUrl);
  if (problem) return `base_url "${baseUrl}" is not usable: ${problem}`;
  const host = hostOf(baseUrl.trim());
  if (isLoopbackHost(host) || configuredHosts.has(host)) return undefined;
  const spec = resolveProvider(provider ?? "custom");
  if (spec?.defaultBaseUrl && hostOf(spec.defaultBaseUrl) === host) return undefined;
  return (
    `base_url "${baseUrl}" is refused: a scheduled job may send its key only to the provider's own endpoint, ` +
    "a server on this machine, or an endpoint config.yaml already uses. To use another endpoint, set it " +
    "in config.yaml or create the job in a terminal with hermes cron create --model ... --base-url ..."
  );
}

function checkScript(home: string, script: string): string {
  if (isAbsolute(script) || script.startsWith("~")) {
    throw new Error(`script "${script}" must be a file name under ${resolve(home, "scripts")} (relative, no ~)`);
  }
  const path = scriptPath(home, script);
  if (typeof path !== "string") throw new Error(path.problem);
  return script;
}

function checkWorkdir(home: string, workdir: string): string {
  if (!isAbsolute(workdir)) throw new Error(`workdir "${workdir}" must be an absolute path`);
  const dir = resolve(workdir);
  const inside = relative(resolve(home), dir);
  if (!inside.startsWith("..") && !isAbsolute(inside)) {
    throw new Error(`workdir "${dir}" is inside the Hermes home (${home}); pick a project directory`);
  }
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`workdir "${dir}" is not an existing directory`);
  }
  return dir;
}

function checkSkills(
  home: string,
  requested: string[],
  workdir: string | null,
  externalDirs: readonly string[] = [],
): string[] {
  if (requested.length === 0) return requested;
  const { skills } = discoverSkills({ home, cwd: workdir ?? home, externalDirs });
  const missing = requested.filter((name) => !findSkill(skills, name.toLowerCase()));
  if (missing.length > 0) {
    throw new Error(
      `skill${missing.length > 1 ? "s" : ""} not installed: ${missing.join(", ")} (skills_list shows them)`,
    );
  }
  return requested;
}

async function checkContextFrom(ids: string[], ctx: CronFieldsContext): Promise<string[]> {
  for (const id of ids) {
    if (id === "self") continue;
    // Another chat's job is reported exactly like a missing one.
    if (!JOB_ID.test(id) || !(await ctx.canSee(id))) throw new Error(`context_from: no job ${id}; list shows the ids`);
  }
  return ids;
}

function checkToolsets(requested: string[]): string[] {
  const unknown = requested.filter((name) => !validateToolset(name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown toolset${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")} (known: ${listToolsets().join(", ")})`,
    );
  }
  return requested;
}

/**
 * The checked fields to store for `input`, on top of `current` (null when creating). Throws an
 * Error whose message tells the agent what to change.
 */
export async function cronJobFields(
  input: CronJobFieldsInput,
  current: CronJob | null,
  ctx: CronFieldsContext,
): Promise<CronJobFields> {
  const fields: CronJobFields = {};
  const text = (value: string | undefined) => (value === undefined ? undefined : value.trim() || null);

  const workdir = text(input.workdir);
  if (workdir !== undefined) fields.workdir = workdir === null ? null : checkWorkdir(ctx.home, workdir);
  const script = text(input.script);
  if (script !== undefined) fields.script = script === null ? null : checkScript(ctx.home, script);
  if (input.no_agent !== undefined) fields.noAgent = input.no_agent;
  if ((fields.noAgent ?? current?.noAgent) && !(fields.script !== undefined ? fields.script : current?.script)) {
    throw new Error("no_agent needs a script: the script's output is what gets delivered");
  }
  if (input.skills !== undefined) {
    fields.skills = checkSkills(
      ctx.home,
      names(input.skills),
      fields.workdir ?? current?.workdir ?? null,
      ctx.externalDirs,
    );
  }
  if (input.context_from !== undefined) fields.contextFrom = await checkContextFrom(names(input.context_from), ctx);
  if (input.enabled_toolsets !== undefined) {
    const toolsets = checkToolsets(names(input.enabled_toolsets));
    fields.enabledToolsets = toolsets.length > 0 ? toolsets : null;
  }

  const model = text(input.model);
  if (model !== undefined) fields.model = model;
  const provider = text(input.provider);
  if (provider !== undefined) {
    const spec = provider === null ? null : resolveProvider(provider);
    if (provider !== null && !spec)
      throw new Error(`unknown provider "${provider}" (hermes help providers lists them)`);
    fields.provider = spec?.id ?? null;
  }
  const baseUrl = text(input.base_url);
  if (baseUrl !== undefined) fields.baseUrl = baseUrl === null ? null : baseUrl.replace(/\/+$/, "");
  // Checked on every change of model, provider or URL: an old job's URL must not be paired with a new provider.
  const effectiveUrl = fields.baseUrl !== undefined ? fields.baseUrl : (current?.baseUrl ?? null);
  const effectiveProvider = fields.provider !== undefined ? fields.provider : (current?.provider ?? null);
  const effectiveModel = fields.model !== undefined ? fields.model : (current?.model ?? null);
  if (effectiveUrl && (fields.baseUrl !== undefined || fields.provider !== undefined)) {
    const refusal = baseUrlRefusal(effectiveProvider, effectiveUrl, ctx.configuredHosts);
    if (refusal) throw new Error(refusal);
    if (!effectiveModel) throw new Error("base_url goes with model: name the model the endpoint serves");
    if (!effectiveProvider) fields.provider = "custom";
  }
  if ((fields.provider !== undefined || fields.model !== undefined) && effectiveProvider && !effectiveModel) {
    throw new Error("provider goes with model: name the model to run on it");
  }
  return fields;
}
