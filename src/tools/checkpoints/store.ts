/**
 * Checkpoints of a project directory: snapshots of its working tree kept in a shadow git
 * repository under `<home>/checkpoints/<hash16>/`, so the agent's file changes can be
 * listed, diffed and rolled back without touching the project's own `.git`.
 */
import { createHash } from "node:crypto";
import { lstatSync, rmdirSync, type Stats } from "node:fs";
import { realpath, rm, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import {
  AFTER_TURN_REF,
  ensureShadowRepo,
  isInitialized,
  runGit,
  type ShadowRepo,
  serialized,
  type TreeChange,
  treeChanges,
} from "./git.js";
import { listCommits, type PruneLimits, pruneLimits, pruneShadowRepo, toCheckpoint } from "./prune.js";
import { commitSnapshot, currentTree } from "./stage.js";

export interface CheckpointStoreOptions {
  /** The hermes home; shadow repositories live in `<home>/checkpoints/`. */
  home: string;
  projectDir: string;
  /** Clock in milliseconds since the epoch (injected by tests). */
  now?: () => number;
  /** Checkpoints kept per project by prune() (default 20). */
  maxSnapshots?: number;
  /** Size of the shadow repository prune() brings it under (default 500 MB). */
  maxTotalSizeMb?: number;
  /** Files larger than this are left out of snapshots (default 10 MB). */
  maxFileSizeMb?: number;
  /** prune() drops checkpoints older than this (default 7 days). */
  retentionDays?: number;
  /** The git binary (default "git" on PATH). */
  gitBinary?: string;
}

export interface Checkpoint {
  /** The first 12 hex digits of the checkpoint's commit; changes when prune() rewrites history. */
  id: string;
  /** Milliseconds since the epoch, from the store's clock. */
  createdAt: number;
  reason: string;
  turn: number | null;
  sessionId: string | null;
  /** Files added, changed or deleted since the previous checkpoint (all files for the first). */
  filesChanged: number;
  totalFiles: number;
  /** Files left out because they were over maxFileSizeMb (or unreadable). */
  skipped: string[];
}

export interface SnapshotInfo {
  reason: string;
  turn?: number;
  sessionId?: string;
}

/** What restoring a checkpoint does to one path. */
export interface ChangedFile {
  path: string;
  change: "modify" | "create" | "remove";
}

export interface RestoreOptions {
  /** Restore only this file (or directory), relative to the project or absolute. */
  file?: string;
  /** Overwrite hand edits and files the safety checkpoint could not save. */
  force?: boolean;
}

export interface RestoreResult {
  /** Files written back (modified or re-created). */
  restoredFiles: string[];
  /** Files deleted because the checkpoint does not have them. */
  removedFiles: string[];
  /** Files left alone because they were edited by hand after the agent's last turn. */
  keptHandEdits: string[];
  /** Files left alone because the safety checkpoint could not save them (over the size limit, ignored). */
  keptUnsaved: string[];
  /** Taken just before restoring, so the restore can be undone; null when nothing had changed. */
  safetyCheckpoint: Checkpoint | null;
}

/**
 * A checkpoint reference: an id (or a unique prefix of at least 4 hex digits), or a position
 * 1..n in list() order (1 = newest), as a number or a string of up to 3 digits.
 */
export type CheckpointRef = string | number;

interface Entry {
  commit: string;
  checkpoint: Checkpoint;
}

/** The shadow repository of a project: first 16 hex digits of sha256 of its realpath. */
export function shadowDirFor(home: string, realProjectDir: string): string {
  const hash = createHash("sha256").update(realProjectDir).digest("hex").slice(0, 16);
  return join(home, "checkpoints", hash);
}

export async function openCheckpointStore(options: CheckpointStoreOptions): Promise<CheckpointStore> {
  const given = resolve(options.projectDir);
  const info = await stat(given).catch(() => null);
  if (!info?.isDirectory()) throw new Error(`Cannot keep checkpoints of ${given}: it is not a directory.`);
  return new CheckpointStore(options, await realpath(given), given);
}

export class CheckpointStore {
  readonly projectDir: string;
  readonly shadowDir: string;
  private readonly repo: ShadowRepo;
  private readonly now: () => number;
  private readonly limits: PruneLimits;
  private readonly maxFileBytes: number;

  /** Use openCheckpointStore(). */
  constructor(
    private readonly options: CheckpointStoreOptions,
    realProjectDir: string,
    private readonly givenDir: string = realProjectDir,
  ) {
    this.projectDir = realProjectDir;
    this.shadowDir = shadowDirFor(options.home, realProjectDir);
    this.repo = { binary: options.gitBinary ?? "git", gitDir: this.shadowDir, workTree: realProjectDir };
    this.now = options.now ?? Date.now;
    this.limits = pruneLimits(options);
    const maxFileSizeMb = options.maxFileSizeMb ?? 10;
    if (!(maxFileSizeMb > 0)) throw new RangeError(`maxFileSizeMb must be a positive number, got ${maxFileSizeMb}.`);
    this.maxFileBytes = maxFileSizeMb * 1024 * 1024;
  }

  /**
   * Commit the working tree as it is now (additions, changes and deletions since the last
   * checkpoint). Returns null, and commits nothing, when nothing changed.
   */
  snapshot(info: SnapshotInfo): Promise<Checkpoint | null> {
    return serialized(this.shadowDir, () => this.snapshotLocked(info));
  }

  /**
   * Every checkpoint, newest first. Users number them 1..n in this order (1 is the newest),
   * and every method taking a CheckpointRef accepts that number.
   */
  async list(): Promise<Checkpoint[]> {
    return (await this.entries()).map((entry) => entry.checkpoint);
  }

  /** One checkpoint by id, id prefix or position (1 = newest); throws when there is none. */
  async get(ref: CheckpointRef): Promise<Checkpoint> {
    return (await this.resolve(ref)).checkpoint;
  }

  /** A unified diff of what restoring `ref` would change in the working tree now. */
  diff(ref: CheckpointRef): Promise<string> {
    return serialized(this.shadowDir, async () => {
      const target = await this.resolve(ref);
      const tree = await currentTree(this.repo, this.maxFileBytes);
      const args = ["diff", "--no-color", "--no-ext-diff", "--no-renames", tree, target.commit];
      return (await runGit(this.repo, args)).stdout;
    });
  }

  /** The files restoring `ref` would modify, re-create or remove. */
  changedFiles(ref: CheckpointRef): Promise<ChangedFile[]> {
    return serialized(this.shadowDir, async () => {
      const target = await this.resolve(ref);
      const tree = await currentTree(this.repo, this.maxFileBytes);
      const changes = await treeChanges(this.repo, tree, target.commit);
      return changes.map((change) => ({ path: change.path, change: changeKind(change) }));
    });
  }

  /**
   * Record the working tree as the agent's turn left it. A later restore treats files that
   * differ from this mark as hand edits and keeps them unless forced.
   */
  markTurnEnd(): Promise<void> {
    return serialized(this.shadowDir, async () => {
      await ensureShadowRepo(this.repo, join(this.options.home, "checkpoints"), this.now());
      const tree = await currentTree(this.repo, this.maxFileBytes);
      await runGit(this.repo, ["update-ref", AFTER_TURN_REF, tree]);
    });
  }

  /**
   * Bring the working tree (or one file or directory) back to checkpoint `ref`. A safety
   * checkpoint of the current state is taken first, so restoring it undoes this restore.
   * Only files the store tracks are removed; ignored and oversized files are never touched.
   */
  restore(ref: CheckpointRef, options: RestoreOptions = {}): Promise<RestoreResult> {
    return serialized(this.shadowDir, () => this.restoreLocked(ref, options));
  }

  /**
   * Apply the caps: at most maxSnapshots, none older than retentionDays, and the repository
   * under maxTotalSizeMb (the newest checkpoint is always kept for that one). Kept checkpoints
   * are re-chained, so their ids change when older ones are dropped.
   */
  prune(options: { now?: number } = {}): Promise<{ removedSnapshots: number; removedProjects: number }> {
    return serialized(this.shadowDir, async () => {
      if (!(await isInitialized(this.repo))) return { removedSnapshots: 0, removedProjects: 0 };
      const result = await pruneShadowRepo(this.repo, this.limits, options.now ?? this.now());
      return { removedSnapshots: result.removedSnapshots, removedProjects: 0 };
    });
  }

  private async snapshotLocked(info: SnapshotInfo): Promise<Checkpoint | null> {
    const createdAt = this.now();
    await ensureShadowRepo(this.repo, join(this.options.home, "checkpoints"), createdAt);
    return commitSnapshot(this.repo, this.maxFileBytes, { ...info, createdAt });
  }

  private async restoreLocked(ref: CheckpointRef, options: RestoreOptions): Promise<RestoreResult> {
    const target = await this.resolve(ref);
    const only = options.file === undefined ? undefined : this.projectPath(options.file);
    const safetyCheckpoint = await this.snapshotLocked({ reason: "before restore" });
    const current = (await listCommits(this.repo, 1))[0]!.tree;
    const changes = await treeChanges(this.repo, current, target.commit, only);
    if (only !== undefined && changes.length === 0) {
      const known = await runGit(this.repo, ["ls-tree", "--name-only", target.commit, "--", `:(literal)${only}`]);
      if (!known.stdout.trim()) throw new Error(`"${only}" is not in checkpoint ${target.checkpoint.id}.`);
    }
    const mark = await this.afterTurnMark();
    const handEdited = new Set(
      mark ? (await treeChanges(this.repo, mark, current, only)).map((change) => change.path) : [],
    );
    const result: RestoreResult = {
      restoredFiles: [],
      removedFiles: [],
      keptHandEdits: [],
      keptUnsaved: [],
      safetyCheckpoint,
    };
    let write: TreeChange[] = [];
    const remove: TreeChange[] = [];
    for (const change of changes) {
      // Nested repositories are recorded as links to commits we do not have; leave them be.
      if (change.oldMode === "160000" || change.newMode === "160000") continue;
      if (!options.force && handEdited.has(change.path)) result.keptHandEdits.push(change.path);
      else (change.status === "D" ? remove : write).push(change);
    }
    for (const change of remove) {
      await rm(join(this.projectDir, change.path), { force: true });
      this.removeEmptyParents(change.path);
      result.removedFiles.push(change.path);
    }
    // Something on disk where the checkpoint has a file, yet not in the safety checkpoint
    // (ignored, over the size limit, or a directory still holding such files): not saved
    // anywhere, so kept. Files give way to force; directories never do.
    write = write.filter((change) => {
      const found = change.status === "A" ? lstatOrNull(join(this.projectDir, change.path)) : null;
      if (!found || (options.force && !found.isDirectory())) return true;
      result.keptUnsaved.push(change.path);
      return false;
    });
    if (write.length > 0) {
      const index = join(this.shadowDir, `restore-${process.pid}.index`);
      try {
        await runGit(this.repo, ["read-tree", target.commit], { indexFile: index });
        const input = `${write.map((change) => change.path).join("\0")}\0`;
        await runGit(this.repo, ["checkout-index", "-f", "-z", "--stdin"], { indexFile: index, input });
      } finally {
        await rm(index, { force: true });
      }
      result.restoredFiles.push(...write.map((change) => change.path));
    }
    if (mark) await this.moveMark(mark, [...write, ...remove]);
    return result;
  }

  /**
   * The restored state is not a hand edit: carry the restored paths into the after-turn mark
   * so a following restore (say, undoing this one) does not keep them as hand edits.
   */
  private async moveMark(mark: string, applied: TreeChange[]): Promise<void> {
    if (applied.length === 0) return;
    const index = join(this.shadowDir, `mark-${process.pid}.index`);
    const zero = "0".repeat(40);
    try {
      await runGit(this.repo, ["read-tree", mark], { indexFile: index });
      const lines = applied.map((change) =>
        change.status === "D" ? `0 ${zero}\t${change.path}` : `${change.newMode} ${change.newId}\t${change.path}`,
      );
      await runGit(this.repo, ["update-index", "-z", "--index-info"], {
        indexFile: index,
        input: `${lines.join("\0")}\0`,
      });
      const tree = (await runGit(this.repo, ["write-tree"], { indexFile: index })).stdout.trim();
      await runGit(this.repo, ["update-ref", AFTER_TURN_REF, tree]);
    } finally {
      await rm(index, { force: true });
    }
  }

  private async afterTurnMark(): Promise<string | null> {
    const found = await runGit(this.repo, ["rev-parse", "-q", "--verify", `${AFTER_TURN_REF}^{tree}`], {
      okCodes: [1],
    });
    return found.code === 0 ? found.stdout.trim() : null;
  }

  private async entries(): Promise<Entry[]> {
    if (!(await isInitialized(this.repo))) return [];
    return (await listCommits(this.repo)).map((commit) => ({
      commit: commit.commit,
      checkpoint: toCheckpoint(commit),
    }));
  }

  private async resolve(ref: CheckpointRef): Promise<Entry> {
    const entries = await this.entries();
    const where = `in the checkpoints of ${this.projectDir}`;
    if (typeof ref === "number" || /^\d{1,3}$/.test(ref.trim())) {
      const position = Number(ref);
      const entry = Number.isInteger(position) ? entries[position - 1] : undefined;
      if (!entry) throw new Error(`No checkpoint number ${position} ${where} (there are ${entries.length}).`);
      return entry;
    }
    const prefix = ref.trim().toLowerCase();
    const matches = /^[0-9a-f]{4,40}$/.test(prefix) ? entries.filter((entry) => entry.commit.startsWith(prefix)) : [];
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) throw new Error(`Checkpoint id "${ref}" is ambiguous ${where}: give more digits.`);
    throw new Error(`No checkpoint "${ref}" ${where}.`);
  }

  /** A path given by the caller as a path relative to the project, with forward slashes. */
  private projectPath(file: string): string {
    for (const base of [this.givenDir, this.projectDir]) {
      const rel = relative(base, isAbsolute(file) ? file : resolve(base, file));
      const outside = rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
      if (rel && !outside) return rel.split(sep).join("/");
    }
    throw new Error(`"${file}" is not inside the project ${this.projectDir}.`);
  }

  private removeEmptyParents(path: string): void {
    for (let dir = dirname(path); dir !== "." && dir !== "/"; dir = dirname(dir)) {
      try {
        rmdirSync(join(this.projectDir, dir));
      } catch {
        return;
      }
    }
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function changeKind(change: TreeChange): ChangedFile["change"] {
  if (change.status === "A") return "create";
  if (change.status === "D") return "remove";
  return "modify";
}
