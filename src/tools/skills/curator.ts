/**
 * The skills curator: user skills unused for `staleAfterDays` are marked stale, and after
 * `archiveAfterDays` moved to `skills/.archive/` (never deleted). Pinned skills are exempt, and
 * bundled ones too unless `pruneBuiltins`. Skills that say nearly the same thing are listed as
 * merge candidates. Every run (but a dry one) first copies the skills folder to
 * `skills/.curator-backups/<time>/` (unless the backup is off; the newest `keep` are kept), and
 * every archive is recorded in the change ledger, so `hermes learn undo` brings a skill back.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { type ChangeLedger, type FileChange, filesUnder, snapshotFiles } from "../../util/change-ledger.js";
import { discoverSkills, type Skill, userSkillsDir } from "./discovery.js";
import { SEED_MANIFEST } from "./seed.js";
import { atomicWrite } from "./skill-files.js";
import { readUsage, type UsageTable, writeUsage } from "./usage.js";

export const ARCHIVE_DIR = ".archive";
export const BACKUP_DIR = ".curator-backups";
const STATE_FILE = ".curator.json";
const DEFAULT_BACKUP: BackupSettings = { enabled: true, keep: 5 };
const DAY_MS = 86_400_000;
/** Skills whose descriptions share this much of their words are proposed for merging. */
const MERGE_SIMILARITY = 0.6;

export interface BackupSettings {
  enabled: boolean;
  /** The newest this many backups are kept. */
  keep: number;
}

export interface CuratorOptions {
  home: string;
  now?: number;
  staleAfterDays: number;
  archiveAfterDays: number;
  /** Report what would happen without changing anything. */
  dryRun?: boolean;
  ledger?: ChangeLedger;
  /** Judge bundled skills like the user's own (default true); false leaves them alone. */
  pruneBuiltins?: boolean;
  /** Default: a backup before every run, the newest 5 kept. */
  backup?: BackupSettings;
}

export interface CuratorReport {
  ranAt: number;
  /** Unused past the stale threshold (and not archived now). */
  stale: string[];
  archived: Array<{ name: string; to: string }>;
  /** Pinned, or bundled while `pruneBuiltins` is off: never archived. */
  exempt: string[];
  merges: Array<[string, string]>;
  backup?: string;
}

/** Names of the skills seeded from the package (their SKILL.md is in the seed manifest). */
export function bundledNames(home: string): Set<string> {
  try {
    const manifest = JSON.parse(readFileSync(join(userSkillsDir(home), SEED_MANIFEST), "utf8")) as {
      files?: Record<string, string>;
    };
    return new Set(
      Object.keys(manifest.files ?? {}).flatMap((path) => {
        const parts = path.split("/");
        return parts.length >= 2 && parts[parts.length - 1] === "SKILL.md" ? [parts[parts.length - 2]!] : [];
      }),
    );
  } catch {
    return new Set();
  }
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
}

function similarity(a: string, b: string): number {
  const left = words(a);
  const right = words(b);
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared / (left.size + right.size - shared);
}

/** Pairs of skills whose descriptions overlap enough to be one skill. */
export function mergeCandidates(skills: readonly Skill[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < skills.length; i++) {
    for (let j = i + 1; j < skills.length; j++) {
      const a = skills[i]!;
      const b = skills[j]!;
      if (similarity(`${a.name} ${a.description}`, `${b.name} ${b.description}`) >= MERGE_SIMILARITY) {
        pairs.push([a.name, b.name]);
      }
    }
  }
  return pairs;
}

/**
 * The last sign of life of a skill: its last view or use, else its last edit, but never before
 * usage was first tracked here (a skill is not stale because nobody was counting).
 */
function lastActivity(skill: Skill, usage: UsageTable, trackingSince: number): number {
  return Math.max(usage[skill.name]?.lastUsedAt ?? statSync(skill.skillFile).mtimeMs, trackingSince);
}

export function isPinned(skill: Skill, usage: UsageTable): boolean {
  return usage[skill.name]?.pinned === true || (skill.frontmatter as { pinned?: unknown }).pinned === true;
}

/** Copies the skills folder (but its archive and backups) to a new backup; drops all but the newest `keep`. */
export function backupSkills(root: string, now: number, keep: number): string {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, "-");
  let target = join(root, BACKUP_DIR, stamp);
  for (let n = 2; existsSync(target); n++) target = join(root, BACKUP_DIR, `${stamp}-${n}`);
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(root)) {
    if (entry === BACKUP_DIR || entry === ARCHIVE_DIR) continue;
    cpSync(join(root, entry), join(target, entry), { recursive: true });
  }
  const backups = readdirSync(join(root, BACKUP_DIR)).sort();
  for (const old of backups.slice(0, Math.max(0, backups.length - keep))) {
    rmSync(join(root, BACKUP_DIR, old), { recursive: true, force: true });
  }
  return target;
}

export function archiveTarget(root: string, name: string): string {
  let target = join(root, ARCHIVE_DIR, name);
  for (let n = 2; existsSync(target); n++) target = join(root, ARCHIVE_DIR, `${name}-${n}`);
  return target;
}

/** Moves a skill's folder into `skills/.archive/`; returns where, and the file changes for the ledger. */
export function moveToArchive(root: string, skill: Pick<Skill, "name" | "dir">): { to: string; files: FileChange[] } {
  const target = archiveTarget(root, skill.name);
  const before = snapshotFiles(filesUnder(skill.dir));
  mkdirSync(join(root, ARCHIVE_DIR), { recursive: true });
  renameSync(skill.dir, target);
  const after = snapshotFiles(filesUnder(target));
  const files = [
    ...[...before].map(([path, content]) => ({ path, before: content, after: null })),
    ...[...after].map(([path, content]) => ({ path, before: null, after: content })),
  ];
  return { to: target, files };
}

interface CuratorState {
  lastRunAt?: number;
  /** When usage counting began for this home. */
  trackingSince?: number;
}

function readState(home: string): CuratorState {
  try {
    return JSON.parse(readFileSync(join(userSkillsDir(home), STATE_FILE), "utf8")) as CuratorState;
  } catch {
    return {};
  }
}

export function lastCuratorRun(home: string): number | undefined {
  const { lastRunAt } = readState(home);
  return typeof lastRunAt === "number" ? lastRunAt : undefined;
}

export async function runCurator(options: CuratorOptions): Promise<CuratorReport> {
  const now = options.now ?? Date.now();
  const root = userSkillsDir(options.home);
  const skills = discoverSkills({ home: options.home }).skills.filter((skill) => skill.source === "user");
  const usage = readUsage(options.home);
  const state = readState(options.home);
  const trackingSince = typeof state.trackingSince === "number" ? state.trackingSince : now;
  const bundled = options.pruneBuiltins === false ? bundledNames(options.home) : new Set<string>();
  const backup = options.backup ?? DEFAULT_BACKUP;
  const report: CuratorReport = { ranAt: now, stale: [], archived: [], exempt: [], merges: [] };
  const toArchive: Skill[] = [];
  for (const skill of skills) {
    if (isPinned(skill, usage) || bundled.has(skill.name)) {
      report.exempt.push(skill.name);
      continue;
    }
    const idleDays = (now - lastActivity(skill, usage, trackingSince)) / DAY_MS;
    if (idleDays >= options.archiveAfterDays) toArchive.push(skill);
    else if (idleDays >= options.staleAfterDays) report.stale.push(skill.name);
  }
  const kept = skills.filter((skill) => !toArchive.includes(skill));
  report.merges = mergeCandidates(kept);
  if (options.dryRun) {
    report.archived = toArchive.map((skill) => ({ name: skill.name, to: archiveTarget(root, skill.name) }));
    return report;
  }
  if (backup.enabled && existsSync(root)) report.backup = backupSkills(root, now, backup.keep);
  for (const skill of toArchive) {
    const { to: target, files } = moveToArchive(root, skill);
    await options.ledger?.record({
      actor: "curator",
      sessionId: "",
      kind: "skill",
      target: skill.name,
      action: "archive",
      summary: `archived skill ${skill.name} to ${relative(root, target)} (unused for ${options.archiveAfterDays}+ days)`,
      files,
    });
    report.archived.push({ name: skill.name, to: target });
  }
  for (const name of Object.keys(usage)) {
    const entry = usage[name]!;
    if (report.stale.includes(name)) entry.staleSince ??= now;
    else delete entry.staleSince;
  }
  for (const name of report.stale) usage[name] ??= { views: 0, uses: 0, staleSince: now };
  mkdirSync(root, { recursive: true });
  writeUsage(options.home, usage);
  atomicWrite(join(root, STATE_FILE), `${JSON.stringify({ lastRunAt: now, trackingSince })}\n`);
  return report;
}
