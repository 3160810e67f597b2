/**
 * Keeping checkpoint storage bounded: a count cap, an age limit and a size cap per project,
 * applied by re-chaining the kept commits and collecting the rest, and a sweep over every
 * project's shadow repository that also drops those of deleted project directories.
 */
import { lstat, readdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { AFTER_TURN_REF, CHECKPOINT_REF, META_PREFIX, runGit, type ShadowRepo, serialized } from "./git.js";
import type { Checkpoint } from "./store.js";

export interface PruneLimits {
  maxSnapshots: number;
  maxTotalBytes: number;
  retentionMs: number;
}

export interface PruneLimitOptions {
  maxSnapshots?: number;
  maxTotalSizeMb?: number;
  retentionDays?: number;
}

/** Validated limits with their defaults: 20 checkpoints, 500 MB, 7 days. */
export function pruneLimits(options: PruneLimitOptions): PruneLimits {
  const check = (name: string, value: number) => {
    if (!(Number.isFinite(value) && value > 0))
      throw new RangeError(`${name} must be a positive number, got ${value}.`);
    return value;
  };
  return {
    maxSnapshots: Math.max(1, Math.floor(check("maxSnapshots", options.maxSnapshots ?? 20))),
    maxTotalBytes: check("maxTotalSizeMb", options.maxTotalSizeMb ?? 500) * 1024 * 1024,
    retentionMs: check("retentionDays", options.retentionDays ?? 7) * 86_400_000,
  };
}

export interface CommitInfo {
  commit: string;
  tree: string;
  /** Committer time in seconds. */
  time: number;
  /** Raw git dates ("<seconds> <zone>"), reused when the commit is recreated. */
  authorDate: string;
  committerDate: string;
  message: string;
}

/** The checkpoint commits, newest first (at most `limit`); empty before the first one. */
export async function listCommits(repo: ShadowRepo, limit?: number): Promise<CommitInfo[]> {
  const args = ["log", "--format=%H%x1f%T%x1f%ct%x1f%ad%x1f%cd%x1f%B%x1e", "--date=raw"];
  if (limit !== undefined) args.push(`--max-count=${limit}`);
  const result = await runGit(repo, [...args, CHECKPOINT_REF, "--"], { okCodes: [128] });
  if (result.code !== 0) {
    const exists = await runGit(repo, ["rev-parse", "-q", "--verify", CHECKPOINT_REF], { okCodes: [1] });
    if (exists.code === 0) throw new Error(`git log failed: ${result.stderr.trim()}`);
    return [];
  }
  const commits: CommitInfo[] = [];
  for (const record of result.stdout.split("\x1e")) {
    const fields = record.replace(/^\n/, "").split("\x1f");
    if (fields.length < 6) continue;
    const [commit = "", tree = "", time = "0", authorDate = "", committerDate = ""] = fields;
    commits.push({
      commit,
      tree,
      time: Number(time),
      authorDate,
      committerDate,
      message: fields.slice(5).join("\x1f"),
    });
  }
  return commits;
}

type Meta = { [K in keyof Checkpoint]?: unknown };

/** The metadata a checkpoint commit carries as JSON on its `hermes-checkpoint:` line. */
export function parseMeta(message: string): Meta | null {
  const line = message.split("\n").find((text) => text.startsWith(META_PREFIX));
  if (!line) return null;
  try {
    const value: unknown = JSON.parse(line.slice(META_PREFIX.length));
    return value && typeof value === "object" ? (value as Meta) : null;
  } catch {
    return null;
  }
}

export function toCheckpoint(commit: CommitInfo): Checkpoint {
  const meta = parseMeta(commit.message) ?? {};
  const number = (value: unknown) => (typeof value === "number" ? value : null);
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    id: commit.commit.slice(0, 12),
    createdAt: number(meta.createdAt) ?? commit.time * 1000,
    reason: text(meta.reason) ?? commit.message.split("\n")[0] ?? "",
    turn: number(meta.turn),
    sessionId: text(meta.sessionId),
    filesChanged: number(meta.filesChanged) ?? 0,
    totalFiles: number(meta.totalFiles) ?? 0,
    skipped: Array.isArray(meta.skipped) ? meta.skipped.filter((path): path is string => typeof path === "string") : [],
  };
}

/** When a checkpoint was taken, in ms: from its metadata, else its commit time. */
function createdAt(commit: CommitInfo): number {
  const value = parseMeta(commit.message)?.createdAt;
  return typeof value === "number" ? value : commit.time * 1000;
}

export interface PruneOutcome {
  removedSnapshots: number;
  remaining: number;
}

/** Apply `limits` to one shadow repository; the caller holds its lock. */
export async function pruneShadowRepo(repo: ShadowRepo, limits: PruneLimits, now: number): Promise<PruneOutcome> {
  const commits = await listCommits(repo);
  const head = commits[0];
  if (!head) return { removedSnapshots: 0, remaining: 0 };
  let keep = commits.slice(0, limits.maxSnapshots).filter((commit) => createdAt(commit) >= now - limits.retentionMs);
  let tip: string | null = head.commit;
  if (keep.length < commits.length) {
    tip = await rechain(repo, tip, keep);
    await collectGarbage(repo);
  } else if ((await dirSize(repo.gitDir)) > limits.maxTotalBytes) {
    // Packing loose objects may be enough to get under the cap without losing history.
    await collectGarbage(repo);
  }
  while (tip && keep.length > 1 && (await dirSize(repo.gitDir)) > limits.maxTotalBytes) {
    keep = keep.slice(0, -1);
    tip = await rechain(repo, tip, keep);
    await collectGarbage(repo);
  }
  return { removedSnapshots: commits.length - keep.length, remaining: keep.length };
}

/**
 * Point the checkpoint branch (now at `tip`) at a fresh chain of `keep` (newest first),
 * recreated oldest first with the same trees, messages and dates; returns the new tip. A
 * kept run that already starts the old chain gets the same ids, the commits being identical.
 */
async function rechain(repo: ShadowRepo, tip: string, keep: CommitInfo[]): Promise<string | null> {
  if (keep.length === 0) {
    await runGit(repo, ["update-ref", "-d", CHECKPOINT_REF, tip]);
    await runGit(repo, ["update-ref", "-d", AFTER_TURN_REF]);
    return null;
  }
  let parent: string | undefined;
  for (const commit of [...keep].reverse()) {
    const env = { GIT_AUTHOR_DATE: `@${commit.authorDate}`, GIT_COMMITTER_DATE: `@${commit.committerDate}` };
    const args = ["commit-tree", commit.tree, ...(parent ? ["-p", parent] : []), "-F", "-"];
    parent = (await runGit(repo, args, { input: commit.message, env })).stdout.trim();
  }
  await runGit(repo, ["update-ref", CHECKPOINT_REF, parent!, tip]);
  return parent!;
}

async function collectGarbage(repo: ShadowRepo): Promise<void> {
  await runGit(repo, ["reflog", "expire", "--expire=now", "--all"]);
  await runGit(repo, ["gc", "--prune=now", "-q"]);
}

async function dirSize(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await dirSize(path);
    else total += (await lstat(path).catch(() => null))?.size ?? 0;
  }
  return total;
}

export interface PruneAllOptions extends PruneLimitOptions {
  home: string;
  /** Milliseconds since the epoch (default Date.now()). */
  now?: number;
  /** Remove the checkpoints of project directories that no longer exist. */
  deleteOrphans?: boolean;
  gitBinary?: string;
}

export interface PruneAllResult {
  removedSnapshots: number;
  removedProjects: number;
  /** Projects that could not be pruned, with the reason; the sweep goes on past them. */
  errors: string[];
}

/**
 * Prune every project under `<home>/checkpoints/`. A project's shadow repository is removed
 * whole when its directory is gone (with deleteOrphans) or when none of its checkpoints is
 * left. Directories that do not look like shadow repositories are left alone.
 */
export async function pruneAllCheckpoints(options: PruneAllOptions): Promise<PruneAllResult> {
  const limits = pruneLimits(options);
  const now = options.now ?? Date.now();
  const result: PruneAllResult = { removedSnapshots: 0, removedProjects: 0, errors: [] };
  const root = join(options.home, "checkpoints");
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names.filter((entry) => /^[0-9a-f]{16}$/.test(entry))) {
    const gitDir = join(root, name);
    const projectDir = await recordedProject(gitDir);
    if (projectDir === null) continue;
    try {
      const present = (await stat(projectDir).catch(() => null))?.isDirectory() ?? false;
      const outcome = await serialized(gitDir, async () => {
        let pruned: PruneOutcome = { removedSnapshots: 0, remaining: 0 };
        if (present || !options.deleteOrphans) {
          // An orphan's work tree is gone; nothing here needs one, so point git at the shadow dir.
          const repo = { binary: options.gitBinary ?? "git", gitDir, workTree: present ? projectDir : gitDir };
          pruned = await pruneShadowRepo(repo, limits, now);
        }
        if (pruned.remaining === 0) await rm(gitDir, { recursive: true, force: true });
        return pruned;
      });
      result.removedSnapshots += outcome.removedSnapshots;
      if (outcome.remaining === 0) result.removedProjects++;
    } catch (error) {
      result.errors.push(`${gitDir} (${projectDir}): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return result;
}

async function recordedProject(gitDir: string): Promise<string | null> {
  try {
    const value: unknown = JSON.parse(await readFile(join(gitDir, "project.json"), "utf8"));
    const dir = (value as { projectDir?: unknown } | null)?.projectDir;
    return typeof dir === "string" && dir !== "" ? dir : null;
  } catch {
    return null;
  }
}
