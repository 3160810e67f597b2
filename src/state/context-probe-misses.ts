/**
 * Servers that answered a context-window probe without telling the model's window, kept in
 * `$HERMES_HOME/cache/context_probe_misses.json` (`{"<model>@<base URL>": epoch ms}`), so the
 * runs of the next day do not spend up to three requests before their first one asking again.
 * An unreachable server is never recorded: it may simply not have been started yet.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { contextLengthKey } from "./context-length-cache.js";

/** How long a miss is believed before the server is asked again. */
export const PROBE_MISS_TTL_MS = 24 * 60 * 60 * 1000;

function missesPath(home: string): string {
  return join(home, "cache", "context_probe_misses.json");
}

function readMisses(home: string): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(missesPath(home), "utf8"));
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, number] => Number.isFinite(entry[1])),
    );
  } catch {
    return {};
  }
}

/** Whether the server at `baseUrl` answered without `model`'s window within the last day. */
export function recentProbeMiss(home: string, model: string, baseUrl: string, now = Date.now()): boolean {
  const at = readMisses(home)[contextLengthKey(model, baseUrl)];
  return at !== undefined && at <= now && now - at < PROBE_MISS_TTL_MS;
}

/** Records a miss for `model` at `baseUrl`, dropping the ones that have expired. */
export function rememberProbeMiss(home: string, model: string, baseUrl: string, now = Date.now()): void {
  const kept = Object.entries(readMisses(home)).filter(([, at]) => at <= now && now - at < PROBE_MISS_TTL_MS);
  const misses = Object.fromEntries([...kept, [contextLengthKey(model, baseUrl), now]]);
  // Written and renamed by hand: atomicWriteFile's random temp names would load node:crypto,
  // which a one-shot run otherwise never needs.
  const path = missesPath(home);
  const temporary = `${path}.${process.pid}.tmp`;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(temporary, `${JSON.stringify(misses, null, 2)}\n`);
  renameSync(temporary, path);
}
