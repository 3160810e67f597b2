/**
 * `hermes skills update [name]` and `uninstall <name>` for skills recorded in the hub lock.
 *
 * An update fetches the recorded source again into quarantine and scans it. When the user has
 * edited installed files since (their hash differs from the lock) and upstream differs from those
 * edits, nothing is overwritten: the result carries a unified diff from the local copy to
 * upstream, and `--force` takes upstream. Unedited skills are replaced.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { unifiedDiff } from "../../../util/unified-diff.js";
import { userSkillsDir } from "../discovery.js";
import { SKILL_FILE } from "../frontmatter.js";
import { deleteSkillDir, locateUserSkill } from "../manage.js";
import { isInside, isText } from "../skill-files.js";
import type { HubConfig } from "./hub-index.js";
import { type Candidate, fetchCandidate, judge, lockEntryFor, placeSkill } from "./install.js";
import { changedFiles, type HubLockEntry, hashFiles, readHubLock, removeLockEntry, setLockEntry } from "./lock.js";
import { HubError } from "./net.js";
import type { ScanReport } from "./scan.js";
import { describeSource } from "./sources.js";

export type UpdateStatus = "updated" | "up-to-date" | "local-edits" | "refused" | "failed" | "missing";

export interface SkillUpdate {
  name: string;
  status: UpdateStatus;
  message: string;
  /** Unified diffs from the local copy to upstream, one per locally edited file (local-edits). */
  diffs: string[];
  /** Files whose local edits --force replaced with upstream (updated). */
  overwritten: string[];
  report?: ScanReport;
  warnings: string[];
}

export interface UpdateOptions {
  hubs?: readonly HubConfig[];
  /** Replace local edits, and let the policy's --force cases through. */
  force?: boolean;
}

export interface UpdateOutcome {
  results: SkillUpdate[];
  /** Set when nothing could be attempted (unknown name, ...). */
  error?: string;
}

function readOr(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch {
    return Buffer.alloc(0);
  }
}

/** A unified diff of one file from the local copy (`---`) to upstream (`+++`). */
export function fileDiff(name: string, file: string, localDir: string, upstreamDir: string): string {
  const local = readOr(join(localDir, file));
  const upstream = readOr(join(upstreamDir, file));
  if (!isText(local) || !isText(upstream)) return `Binary file ${name}/${file} differs between local and upstream\n`;
  const diff = unifiedDiff(local.toString("utf8"), upstream.toString("utf8"), file);
  const lines = diff.split("\n");
  lines[0] = `--- local/${name}/${file}`;
  lines[1] = `+++ upstream/${name}/${file}`;
  return lines.join("\n");
}

async function updateOne(
  home: string,
  name: string,
  entry: HubLockEntry,
  hubs: readonly HubConfig[],
  force: boolean,
): Promise<SkillUpdate> {
  const result: SkillUpdate = { name, status: "failed", message: "", diffs: [], overwritten: [], warnings: [] };
  const local = join(userSkillsDir(home), entry.path);
  if (!isInside(userSkillsDir(home), local)) {
    result.message = `the hub lock gives "${name}" the path ${entry.path}, outside the skills folder; not touched`;
    return result;
  }
  if (!existsSync(join(local, SKILL_FILE))) {
    result.status = "missing";
    result.message = `"${name}" is no longer at ${local}; install it again, or forget it with hermes skills uninstall ${name}`;
    return result;
  }
  let candidate: Candidate;
  try {
    candidate = await fetchCandidate(home, entry.source, hubs, name);
  } catch (error) {
    const reason = error instanceof HubError ? error.message : String((error as Error).message ?? error);
    result.message = `"${name}" could not be fetched from ${describeSource(entry.source)}: ${reason}`;
    return result;
  }
  try {
    result.report = candidate.report;
    const upstream = candidate.report.files;
    const localFiles = hashFiles(local);
    const edited = changedFiles(entry.files, localFiles);
    const conflicts = edited.filter((file) => localFiles[file] !== upstream[file]);
    if (!changedFiles(entry.files, upstream).length) {
      result.status = "up-to-date";
      const kept = edited.length ? ` (your local edits to ${edited.join(", ")} are kept)` : "";
      result.message = `"${name}" is up to date${kept}`;
      return result;
    }
    const decision = judge(candidate, force);
    if (!decision.allowed) {
      result.status = "refused";
      result.message = `the new version of "${name}" from ${describeSource(entry.source)} ${decision.refusal}; the installed one is kept`;
      return result;
    }
    if (conflicts.length && !force) {
      result.status = "local-edits";
      result.diffs = conflicts.map((file) => fileDiff(name, file, local, candidate.stage));
      result.message =
        `"${name}" changed upstream, and you edited ${conflicts.join(", ")} locally: not updated. ` +
        `The diff shows local → upstream; hermes skills update ${name} --force takes upstream and drops your edits.`;
      return result;
    }
    placeSkill(candidate, local, local);
    setLockEntry(home, name, lockEntryFor(home, candidate, entry.source, local, entry));
    result.status = "updated";
    result.overwritten = conflicts;
    result.message = `updated "${name}" (${candidate.report.verdict}, ${candidate.trust} source)`;
    if (conflicts.length) result.warnings.push(`"${name}": your local edits to ${conflicts.join(", ")} were replaced`);
    if (decision.warning) result.warnings.push(`"${name}" ${decision.warning}`);
    return result;
  } catch (error) {
    result.message = `"${name}" could not be updated: ${(error as Error).message}`;
    return result;
  } finally {
    candidate.quarantine.dispose();
  }
}

/** Updates the skill `name`, or every skill in the lock when no name is given. */
export async function updateSkills(
  home: string,
  name: string | undefined,
  options: UpdateOptions = {},
): Promise<UpdateOutcome> {
  const lock = readHubLock(home);
  const hubs = options.hubs ?? [];
  let names: string[];
  if (name) {
    if (!lock.skills[name]) {
      const error = locateUserSkill(home, name)
        ? `"${name}" was not installed with hermes skills install, so there is no source to update it from`
        : `no installed skill named "${name}"`;
      return { results: [], error };
    }
    names = [name];
  } else names = Object.keys(lock.skills).sort();
  const results: SkillUpdate[] = [];
  for (const skill of names)
    results.push(await updateOne(home, skill, lock.skills[skill]!, hubs, Boolean(options.force)));
  return { results };
}

export type UninstallResult = { ok: true; message: string; path?: string } | { ok: false; error: string };

/** Removes the user skill `name` and its lock entry. */
export function uninstallSkill(home: string, name: string): UninstallResult {
  const dir = locateUserSkill(home, name);
  if (dir) {
    const removed = deleteSkillDir(home, dir, name);
    if (!removed.success) return { ok: false, error: removed.error };
  }
  const forgotten = removeLockEntry(home, name);
  if (!dir && !forgotten) return { ok: false, error: `no installed skill named "${name}" (see hermes skills list)` };
  if (!dir) return { ok: true, message: `"${name}" was already gone; removed it from the hub lock` };
  return { ok: true, message: `Removed skill "${name}" (${dir})`, path: dir };
}
