/**
 * How the user's skills are used, for the curator: views (skill_view), successful uses (a
 * completed task that loaded the skill), the last time either happened, and pins that keep a
 * skill from being archived. Kept in `$HERMES_HOME/skills/.usage.json`; counters, so a lost
 * update between two processes costs a count, never a skill.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { userSkillsDir } from "./discovery.js";
import { atomicWrite } from "./skill-files.js";

export const USAGE_FILE = ".usage.json";

export interface SkillUsage {
  views: number;
  uses: number;
  /** Milliseconds since the epoch of the last view or use. */
  lastUsedAt?: number;
  pinned?: boolean;
  /** When the curator first found it unused for `stale_after_days`. */
  staleSince?: number;
}

export type UsageTable = Record<string, SkillUsage>;

function usagePath(home: string): string {
  return join(userSkillsDir(home), USAGE_FILE);
}

export function readUsage(home: string): UsageTable {
  const path = usagePath(home);
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as UsageTable) : {};
  } catch {
    return {};
  }
}

export function writeUsage(home: string, table: UsageTable): void {
  atomicWrite(usagePath(home), `${JSON.stringify(table, null, 2)}\n`);
}

export function updateUsage(home: string, name: string, change: (usage: SkillUsage) => void): SkillUsage {
  const table = readUsage(home);
  const usage = table[name] ?? { views: 0, uses: 0 };
  change(usage);
  table[name] = usage;
  writeUsage(home, table);
  return usage;
}

/** A view (skill_view) or a successful use (a completed task that loaded it); both un-stale it. */
export function recordSkillUse(home: string, name: string, kind: "view" | "use", now = Date.now()): void {
  updateUsage(home, name, (usage) => {
    if (kind === "view") usage.views++;
    else usage.uses++;
    usage.lastUsedAt = now;
    delete usage.staleSince;
  });
}
