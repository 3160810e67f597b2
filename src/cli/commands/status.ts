/**
 * `hermes status`: one screen about this HERMES_HOME — the configured model, the session store,
 * the gateway, cron jobs and disk use. It reads local files only: no network, no model call.
 * Each section stands alone, so one unreadable part does not hide the others.
 */
import type { Command } from "commander";
import type { AdapterHealth } from "../../gateway/types.js";
import { type CommandIo, processIo } from "./config.js";
import { formatTime } from "./sessions.js";

const LABEL_WIDTH = 10;
const DISK_ENTRIES_SHOWN = 10;

const row = (label: string, text: string) => `${label.padEnd(LABEL_WIDTH)}  ${text}`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const failure = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0];

async function modelSection(home: string, env: Record<string, string | undefined>): Promise<string[]> {
  try {
    const { loadConfig } = await import("../../state/config.js");
    const { configuredProvider } = await import("./model.js");
    const current = await configuredProvider(loadConfig({ home }).config, env);
    if (!current.provider) {
      return [row("Model", `${current.model}, no provider configured (run hermes setup)`)];
    }
    const from = { config: "config.yaml", base_url: "model.base_url", environment: "an API key in the environment" };
    const where = current.source === "none" ? "" : ` (from ${from[current.source]})`;
    const base = current.baseUrl ? ` at ${current.baseUrl}` : "";
    return [row("Model", `${current.provider} / ${current.model}${base}${where}`)];
  } catch (error) {
    return [row("Model", `config.yaml cannot be read: ${failure(error)} (hermes config check)`)];
  }
}

async function storeFile(home: string): Promise<string | undefined> {
  const { existsSync } = await import("node:fs");
  const { hermesPaths } = await import("../../state/paths.js");
  const { storeFileFor } = await import("../../state/store-location.js");
  const file = storeFileFor(hermesPaths(home).stateDb);
  return existsSync(file) ? file : undefined;
}

async function sessionsSection(home: string): Promise<string[]> {
  const file = await storeFile(home);
  if (!file) return [row("Sessions", "none yet (no session store)")];
  try {
    const { openSessionStore } = await import("../../state/session-store.js");
    const { formatSize } = await import("../disk-usage.js");
    const store = await openSessionStore(file);
    try {
      const stats = await store.stats();
      return [
        row("Sessions", `${plural(stats.sessions, "session")}, ${plural(stats.messages, "message")}`),
        row("", `store ${store.location} (${formatSize(stats.bytes ?? 0)})`),
      ];
    } finally {
      store.close();
    }
  } catch (error) {
    return [row("Sessions", `the store cannot be read: ${failure(error)} (hermes sessions repair)`)];
  }
}

function describePlatform(name: string, health: AdapterHealth): string {
  return health.state === "reconnecting"
    ? `${name} reconnecting (attempt ${health.attempt}: ${health.lastError})`
    : `${name} ${health.state}`;
}

async function gatewaySection(home: string): Promise<string[]> {
  const { runningGateway } = await import("../gateway-service.js");
  const state = runningGateway(home);
  if (!state) return [row("Gateway", "not running (hermes gateway start)")];
  const lines = [row("Gateway", `running, pid ${state.pid}, since ${formatTime(state.startedAt)}`)];
  if (state.apiServer) lines.push(row("", `API server ${state.apiServer}`));
  const platforms = Object.entries(state.platforms);
  lines.push(
    row(
      "",
      platforms.length ? platforms.map(([name, health]) => describePlatform(name, health)).join(", ") : "no platforms",
    ),
  );
  return lines;
}

async function cronSection(home: string): Promise<string[]> {
  const file = await storeFile(home);
  if (!file) return [row("Cron", "no jobs")];
  try {
    const { openCronStore } = await import("../../state/cron-store.js");
    const cron = await openCronStore(file);
    try {
      const jobs = await cron.listJobs({ all: true });
      if (jobs.length === 0) return [row("Cron", "no jobs")];
      const active = jobs.filter((job) => job.state !== "completed");
      const scheduled = active.filter((job) => job.enabled && job.state === "scheduled" && job.nextRunAt !== null);
      const next = scheduled.sort((a, b) => (a.nextRunAt ?? 0) - (b.nextRunAt ?? 0))[0];
      const failed = jobs
        .filter((job) => job.lastStatus === "error" || job.lastStatus === "timed_out")
        .sort((a, b) => (b.lastRunAt ?? 0) - (a.lastRunAt ?? 0))[0];
      const paused = active.length - scheduled.length;
      return [
        row("Cron", `${plural(active.length, "job")}${paused > 0 ? ` (${paused} paused or blocked)` : ""}`),
        row("", next ? `next fire: ${next.name} at ${formatTime(next.nextRunAt)}` : "next fire: none"),
        row(
          "",
          failed
            ? `last failure: ${failed.name} at ${formatTime(failed.lastRunAt)}: ${failed.lastError ?? failed.lastStatus}`
            : "last failure: none",
        ),
      ];
    } finally {
      cron.close();
    }
  } catch (error) {
    return [row("Cron", `the jobs cannot be read: ${failure(error)}`)];
  }
}

async function diskSection(home: string): Promise<string[]> {
  const { formatSize, topLevelUsage } = await import("../disk-usage.js");
  const usage = topLevelUsage(home);
  const total = usage.reduce((sum, entry) => sum + entry.bytes, 0);
  const lines = [row("Disk", `${formatSize(total)} in all`)];
  const width = Math.max(0, ...usage.slice(0, DISK_ENTRIES_SHOWN).map((entry) => entry.name.length));
  for (const entry of usage.slice(0, DISK_ENTRIES_SHOWN)) {
    lines.push(row("", `${entry.name.padEnd(width)}  ${formatSize(entry.bytes).padStart(9)}`));
  }
  const rest = usage.slice(DISK_ENTRIES_SHOWN);
  if (rest.length > 0) {
    const bytes = rest.reduce((sum, entry) => sum + entry.bytes, 0);
    lines.push(row("", `${rest.length} other ${rest.length === 1 ? "entry" : "entries"}: ${formatSize(bytes)}`));
  }
  return lines;
}

/** The lines of `hermes status` for `home`. */
export async function statusLines(home: string, env: Record<string, string | undefined>): Promise<string[]> {
  const { existsSync } = await import("node:fs");
  if (!existsSync(home)) return [row("Home", `${home} (does not exist yet: run hermes setup)`)];
  const sections = await Promise.all([
    modelSection(home, env),
    sessionsSection(home),
    gatewaySection(home),
    cronSection(home),
    diskSection(home),
  ]);
  return [row("Home", home), ...sections.flat()];
}

export function registerStatusCommand(program: Command, io: CommandIo = processIo): Command {
  return program
    .command("status")
    .description("one screen: model, sessions, gateway, cron jobs and disk use of HERMES_HOME (no network)")
    .action(async () => {
      const { hermesHome } = await import("../../state/paths.js");
      for (const line of await statusLines(hermesHome(), process.env)) io.out(line);
    });
}
