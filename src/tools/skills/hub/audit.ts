/**
 * `hermes skills audit [name]`: scans installed user skills again and reports each one's verdict,
 * trust level (from the hub lock; bundled skills are builtin; skills written here are trusted) and
 * which of its files were edited since install. Changed verdicts are written back to the lock.
 */
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { discoverSkills, userSkillsDir } from "../discovery.js";
import { locateUserSkill } from "../manage.js";
import { SEED_MANIFEST } from "../seed.js";
import { changedFiles, readHubLock, writeHubLock } from "./lock.js";
import { type ScanReport, scanSkill } from "./scan.js";
import { describeSource, type TrustLevel } from "./sources.js";

export interface SkillAudit {
  name: string;
  dir: string;
  trust: TrustLevel;
  /** Where the skill came from, for display. */
  origin: string;
  report: ScanReport;
  /** Files changed since install (hub-installed skills only). */
  edited: string[];
}

export interface AuditOutcome {
  audits: SkillAudit[];
  error?: string;
}

function bundledFolders(home: string): Set<string> {
  try {
    const manifest = JSON.parse(readFileSync(join(userSkillsDir(home), SEED_MANIFEST), "utf8")) as {
      files?: Record<string, string>;
    };
    return new Set(Object.keys(manifest.files ?? {}).map((rel) => rel.split("/").slice(0, -1).join("/")));
  } catch {
    return new Set();
  }
}

/** Audits the user skill `name`, or every user skill (and every skill in the lock) without one. */
export function auditInstalledSkills(home: string, name?: string): AuditOutcome {
  const root = userSkillsDir(home);
  const lock = readHubLock(home);
  const names = name
    ? [name]
    : [...new Set([...discoverSkills({ home }).skills.map((s) => s.name), ...Object.keys(lock.skills)])].sort();
  const bundled = bundledFolders(home);
  const audits: SkillAudit[] = [];
  let lockChanged = false;
  for (const skill of names) {
    const dir = locateUserSkill(home, skill);
    if (!dir) {
      if (name) return { audits, error: `no installed skill named "${skill}" (see hermes skills list)` };
      continue;
    }
    const report = scanSkill(dir, skill);
    const entry = lock.skills[skill];
    const rel = relative(root, dir).split(sep).join("/");
    let trust: TrustLevel = "trusted";
    let origin = "written here (not installed from a source)";
    if (entry) {
      trust = entry.trust;
      origin = describeSource(entry.source);
      if (entry.verdict !== report.verdict) {
        entry.verdict = report.verdict;
        lockChanged = true;
      }
    } else if (bundled.has(rel)) {
      trust = "builtin";
      origin = "bundled with Hermes";
    }
    const edited = entry ? changedFiles(entry.files, report.files) : [];
    audits.push({ name: skill, dir, trust, origin, report, edited });
  }
  if (lockChanged) writeHubLock(home, lock);
  return { audits };
}
