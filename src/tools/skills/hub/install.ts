/**
 * `hermes skills install <source>` through the hub: fetch into quarantine, scan, apply the trust
 * policy, then move the skill into `$HERMES_HOME/skills/` and record it in the lock file. A
 * refusal leaves nothing behind: the quarantine folder is removed whatever the outcome.
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { userSkillsDir } from "../discovery.js";
import { skillNameProblem } from "../frontmatter.js";
import { locateUserSkill } from "../manage.js";
import type { HubConfig } from "./hub-index.js";
import { type HubLockEntry, setLockEntry } from "./lock.js";
import { HubError } from "./net.js";
import { openQuarantine, type Quarantine, stageSkill } from "./quarantine.js";
import { type Decision, decide, type ScanReport, scanSkill } from "./scan.js";
import {
  describeSource,
  type Fetched,
  fallbackName,
  fetchSource,
  locateSkillRoot,
  resolveSource,
  type SourceRef,
  type TrustLevel,
} from "./sources.js";

export interface HubInstallOptions {
  /** The configured hubs (`skills.hubs`). */
  hubs?: readonly HubConfig[];
  /** Allow a caution verdict from a community source, a dangerous one from a trusted source, and replacing an installed skill. */
  force?: boolean;
  /** The skill to take from a source holding several; also checked against a single skill's name. */
  name?: string;
  /** Category folder to install into. */
  category?: string;
}

export interface HubInstallResult {
  ok: boolean;
  name?: string;
  /** Where the skill now is (ok). */
  path?: string;
  source?: SourceRef;
  trust?: TrustLevel;
  report?: ScanReport;
  /** Things the user should read even though the install went through. */
  warnings: string[];
  /** Why nothing was installed (not ok). */
  error?: string;
}

/** A fetched, staged and scanned skill waiting in quarantine. */
export interface Candidate {
  quarantine: Quarantine;
  /** The staged skill folder, named after the skill. */
  stage: string;
  name: string;
  fetched: Fetched;
  trust: TrustLevel;
  report: ScanReport;
}

/**
 * Fetches `source` into a new quarantine folder, picks the skill (`wanted`, or the only one),
 * stages it without hidden files and scans it. The caller must dispose of the quarantine.
 */
export async function fetchCandidate(
  home: string,
  source: SourceRef,
  hubs: readonly HubConfig[],
  wanted?: string,
): Promise<Candidate> {
  const label = wanted ?? source.entry ?? fallbackName(source);
  const quarantine = openQuarantine(home, label);
  try {
    const fetched = await fetchSource(source, quarantine.work, hubs);
    const pick = wanted ?? fetched.entryName;
    const root = locateSkillRoot(fetched.dir, fallbackName(source), pick);
    if (pick && root.name !== pick) {
      throw new HubError(`the skill found is called "${root.name}" (in its SKILL.md), not "${pick}"`);
    }
    const badName = skillNameProblem(root.name);
    if (badName) throw new HubError(badName);
    const stage = join(quarantine.dir, "stage", root.name);
    mkdirSync(dirname(stage), { recursive: true });
    stageSkill(root.dir, stage);
    return { quarantine, stage, name: root.name, fetched, trust: fetched.trust, report: scanSkill(stage, root.name) };
  } catch (error) {
    quarantine.dispose();
    throw error;
  }
}

/** The refusal for a candidate, or the policy decision when it is a usable skill. */
export function judge(candidate: Candidate, force: boolean): Decision {
  if (candidate.report.problems.length) {
    return { allowed: false, refusal: "is not a valid skill (see the problems below)" };
  }
  return decide(candidate.report.verdict, candidate.trust, force);
}

/**
 * Moves the staged folder to `dest`, replacing the folder at `existing` (if any) atomically
 * enough: the old folder is moved aside into the quarantine first and put back on failure.
 */
export function placeSkill(candidate: Candidate, dest: string, existing: string | undefined): void {
  const trash = join(candidate.quarantine.dir, "replaced");
  if (existing) renameSync(existing, trash);
  try {
    mkdirSync(dirname(dest), { recursive: true });
    renameSync(candidate.stage, dest);
  } catch (error) {
    if (existing) renameSync(trash, existing);
    throw error;
  }
}

/** The lock entry for a candidate installed at `dest`. */
export function lockEntryFor(
  home: string,
  candidate: Candidate,
  source: SourceRef,
  dest: string,
  previous?: HubLockEntry,
): HubLockEntry {
  const now = new Date().toISOString();
  const recorded: SourceRef = { ...source, ...(candidate.fetched.url ? { url: candidate.fetched.url } : {}) };
  return {
    path: relative(userSkillsDir(home), dest).split(sep).join("/"),
    source: recorded,
    trust: candidate.trust,
    verdict: candidate.report.verdict,
    ...(candidate.fetched.sha256 ? { sha256: candidate.fetched.sha256 } : {}),
    ...(candidate.fetched.revision ? { revision: candidate.fetched.revision } : {}),
    installedAt: previous?.installedAt ?? now,
    ...(previous ? { updatedAt: now } : {}),
    files: candidate.report.files,
  };
}

function failure(error: unknown, extra: Partial<HubInstallResult> = {}): HubInstallResult {
  const message = error instanceof HubError ? error.message : `${(error as Error).message ?? String(error)}`;
  return { ok: false, warnings: [], error: message, ...extra };
}

/** Installs the skill `spec` names (see resolveSource) through quarantine and the scan. */
export async function installSkill(
  home: string,
  spec: string,
  options: HubInstallOptions = {},
): Promise<HubInstallResult> {
  const hubs = options.hubs ?? [];
  const force = Boolean(options.force);
  if (options.category) {
    const bad = skillNameProblem(options.category, "category");
    if (bad) return failure(new HubError(bad));
  }
  if (options.name) {
    const bad = skillNameProblem(options.name);
    if (bad) return failure(new HubError(bad));
  }
  let source: SourceRef;
  let candidate: Candidate;
  try {
    source = await resolveSource(spec, hubs);
    candidate = await fetchCandidate(home, source, hubs, options.name);
  } catch (error) {
    return failure(error);
  }
  const { name, report, trust } = candidate;
  try {
    const base = { name, source, trust, report };
    const decision = judge(candidate, force);
    if (!decision.allowed) {
      return {
        ok: false,
        ...base,
        warnings: [],
        error: `"${name}" from ${describeSource(source)} ${decision.refusal}`,
      };
    }
    const root = userSkillsDir(home);
    const existing = locateUserSkill(home, name);
    if (existing && !force) {
      const error = `a skill named "${name}" is already installed at ${existing}; use --force to replace it (or hermes skills update ${name})`;
      return { ok: false, ...base, warnings: [], error };
    }
    const dest = options.category ? join(root, options.category, name) : (existing ?? join(root, name));
    if (dest !== existing && existsSync(dest)) {
      return { ok: false, ...base, warnings: [], error: `${dest} already exists and is not a skill` };
    }
    placeSkill(candidate, dest, existing);
    setLockEntry(home, name, lockEntryFor(home, candidate, source, dest));
    const warnings = decision.warning ? [`"${name}" ${decision.warning}`] : [];
    return { ok: true, ...base, path: dest, warnings };
  } catch (error) {
    return failure(error, { name, source, trust, report });
  } finally {
    candidate.quarantine.dispose();
  }
}
