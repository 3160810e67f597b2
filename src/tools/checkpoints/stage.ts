/**
 * Recording the working tree. One `git status` over the shadow index finds what changed
 * since the last snapshot (unchanged files are settled by the index's stat cache); only the
 * changed files are checked against the size limit and read. The usual snapshot then runs
 * two git processes side by side: `git fast-import` commits the changes on top of the newest
 * checkpoint (and moves the branch), and `git update-index` brings the index's stat cache up
 * to date for the next status. When the index does not match the newest checkpoint, or many
 * files changed, the index is staged and written as a tree first and that tree is committed.
 */
import { lstatSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import { copyFile, rm, utimes } from "node:fs/promises";
import { basename, join } from "node:path";
import { CHECKPOINT_REF, META_PREFIX, runGit, type ShadowRepo, splitNul, treeChanges } from "./git.js";
import { parseMeta } from "./prune.js";
import type { Checkpoint, SnapshotInfo } from "./store.js";

/** Above these, the snapshot stages and writes a tree instead of streaming file contents. */
const STREAM_MAX_FILES = 500;
const STREAM_MAX_BYTES = 64 * 1024 * 1024;
/** Above this many files to hash, the index update writes them into one pack. */
const BULK_FILES = 100;

interface Change {
  path: string;
  /** Null when the path is gone (or is now a directory): the entry is removed. */
  info: Stats | null;
  tracked: boolean;
}

interface Scan {
  /** The newest checkpoint's commit when the scan began; null before the first. */
  head: string | null;
  /** The index had no changes against `head`, so `changes` are exactly the changes against it. */
  indexMatchesHead: boolean;
  changes: Change[];
  /** Tracked paths to drop although they exist: now ignored, or over the size limit. */
  forceRemove: string[];
  skipped: string[];
  counts: { added: number; deleted: number; modified: number };
}

/** Per shadow repository: the mtime of the project's .git/info/exclude when last checked. */
const rulesChecked = new Map<string, number>();

async function scan(repo: ShadowRepo, maxFileBytes: number, indexFile?: string): Promise<Scan> {
  const excludeFile = join(repo.workTree, ".git", "info", "exclude");
  const excludeMtime = lstatOrNull(excludeFile)?.mtimeMs ?? -1;
  const run = { indexFile, config: excludeMtime >= 0 ? [`core.excludesFile=${excludeFile}`] : [] };
  const statusArgs = ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames"];
  const status = await runGit(repo, [...statusArgs, "--ignore-submodules=all"], run);
  let head: string | null = null;
  const entries: { path: string; tracked: boolean; xy: string }[] = [];
  for (const record of splitNul(status.stdout)) {
    if (record.startsWith("# branch.oid ")) {
      const oid = record.slice("# branch.oid ".length);
      head = oid === "(initial)" ? null : oid;
    } else if (record.startsWith("1 ")) {
      const fields = record.split(" ");
      entries.push({ path: fields.slice(8).join(" "), tracked: true, xy: fields[1] ?? ".." });
    } else if (record.startsWith("? ")) {
      entries.push({ path: record.slice(2), tracked: false, xy: ".." });
    }
  }
  // A tracked file becomes ignored only when ignore rules change, so ask git for those
  // files only then (and once per repository in this process).
  const rulesMayHaveChanged =
    indexFile !== undefined ||
    rulesChecked.get(repo.gitDir) !== excludeMtime ||
    entries.some((entry) => basename(entry.path) === ".gitignore");
  const ignored = rulesMayHaveChanged
    ? splitNul((await runGit(repo, ["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"], run)).stdout)
    : [];
  if (indexFile === undefined) rulesChecked.set(repo.gitDir, excludeMtime);
  const ignoredTracked = new Set(ignored);
  const result: Scan = {
    head,
    indexMatchesHead: true,
    changes: [],
    forceRemove: [...ignoredTracked],
    skipped: [],
    counts: { added: 0, deleted: ignoredTracked.size, modified: 0 },
  };
  const groups = process.getgroups?.() ?? [];
  for (const { path, tracked, xy } of entries) {
    // An untracked nested repository: its files belong to that repository, not to this snapshot.
    if (path.endsWith("/") || ignoredTracked.has(path)) continue;
    if (xy[0] !== ".") result.indexMatchesHead = false;
    if (tracked && xy[1] === ".") continue;
    const found = xy[1] === "D" ? null : lstatOrNull(join(repo.workTree, path));
    if (!tracked && (!found || found.isDirectory())) continue;
    if (found?.isFile() && (found.size > maxFileBytes || !readable(found, groups))) {
      result.skipped.push(path);
      if (tracked) {
        result.forceRemove.push(path);
        result.counts.deleted++;
      }
      continue;
    }
    const info = found?.isDirectory() ? null : found;
    result.changes.push({ path, info, tracked });
    if (!tracked) result.counts.added++;
    else if (info) result.counts.modified++;
    else result.counts.deleted++;
  }
  result.skipped.sort();
  return result;
}

async function updateIndex(repo: ShadowRepo, found: Scan, indexFile?: string): Promise<void> {
  if (found.changes.length > 0) {
    const input = `${found.changes.map((change) => change.path).join("\0")}\0`;
    // Many new files (a first snapshot) go into one pack rather than a loose file each; the
    // pack is not delta-compressed until prune repacks, which is fine for a one-off.
    const config = found.changes.length > BULK_FILES ? ["core.bigFileThreshold=1"] : [];
    await runGit(repo, ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], {
      indexFile,
      input,
      config,
    });
  }
  if (found.forceRemove.length > 0) {
    const input = `${found.forceRemove.join("\0")}\0`;
    await runGit(repo, ["update-index", "--force-remove", "-z", "--stdin"], { indexFile, input });
  }
}

/**
 * The working tree as a tree object, staged in a scratch copy of the shadow index so the
 * shadow index keeps matching the newest checkpoint (which keeps snapshots cheap).
 */
export async function currentTree(repo: ShadowRepo, maxFileBytes: number): Promise<string> {
  const indexFile = join(repo.gitDir, `scratch-${process.pid}.index`);
  try {
    const main = join(repo.gitDir, "index");
    const original = lstatOrNull(main);
    if (original) {
      await copyFile(main, indexFile);
      // Git trusts cached stat data only for files older than the index file itself, so the
      // copy keeps the original's time; a fresh one would hide same-size edits made just now.
      await utimes(indexFile, original.atime, original.mtime);
    }
    await updateIndex(repo, await scan(repo, maxFileBytes, indexFile), indexFile);
    return (await runGit(repo, ["write-tree"], { indexFile })).stdout.trim();
  } finally {
    await rm(indexFile, { force: true });
  }
}

/** Total file counts of checkpoint commits (immutable, so safe to keep for the process). */
const totals = new Map<string, number>();

async function totalFilesOf(repo: ShadowRepo, commit: string): Promise<number> {
  const known = totals.get(commit);
  if (known !== undefined) return known;
  const meta = parseMeta((await runGit(repo, ["log", "-1", "--format=%B", commit, "--"])).stdout)?.totalFiles;
  return typeof meta === "number" ? meta : countFiles(repo, commit);
}

async function countFiles(repo: ShadowRepo, treeish: string): Promise<number> {
  return splitNul((await runGit(repo, ["ls-tree", "-r", "-z", "--name-only", treeish])).stdout).length;
}

/**
 * Snapshot the working tree as the next checkpoint, with its metadata as JSON in the commit
 * message; null when nothing changed since the newest checkpoint.
 */
export async function commitSnapshot(
  repo: ShadowRepo,
  maxFileBytes: number,
  info: SnapshotInfo & { createdAt: number },
): Promise<Checkpoint | null> {
  const found = await scan(repo, maxFileBytes);
  const { head } = found;
  const unchanged = found.changes.length === 0 && found.forceRemove.length === 0;
  if (head && found.indexMatchesHead && unchanged) return null;
  const bytes = found.changes.reduce((sum, change) => sum + (change.info?.size ?? 0), 0);
  const stream =
    head !== null && found.indexMatchesHead && found.changes.length <= STREAM_MAX_FILES && bytes <= STREAM_MAX_BYTES;
  let counts = found.counts;
  let totalFiles: number;
  let commands: Buffer[];
  let staging: Promise<void>;
  if (stream) {
    totalFiles = (await totalFilesOf(repo, head)) + counts.added - counts.deleted;
    commands = changeCommands(repo, found);
    staging = updateIndex(repo, found);
  } else {
    await updateIndex(repo, found);
    const tree = (await runGit(repo, ["write-tree"])).stdout.trim();
    if (head) {
      const changes = await treeChanges(repo, head, tree);
      if (changes.length === 0) return null;
      const count = (status: string) => changes.filter((change) => change.status === status).length;
      counts = { added: count("A"), deleted: count("D"), modified: changes.length - count("A") - count("D") };
      totalFiles = (await totalFilesOf(repo, head)) + counts.added - counts.deleted;
    } else {
      // A first snapshot from an empty index: every file was scanned as new.
      totalFiles = found.indexMatchesHead ? counts.added : await countFiles(repo, tree);
      counts = { added: totalFiles, deleted: 0, modified: 0 };
    }
    commands = [Buffer.from(`M 040000 ${tree} ""\n`)];
    staging = Promise.resolve();
  }
  const fields: Omit<Checkpoint, "id"> = {
    createdAt: info.createdAt,
    reason: info.reason,
    turn: info.turn ?? null,
    sessionId: info.sessionId ?? null,
    filesChanged: counts.added + counts.deleted + counts.modified,
    totalFiles,
    skipped: found.skipped,
  };
  const subject = info.reason.replace(/\s+/g, " ").trim().slice(0, 200) || "checkpoint";
  const message = Buffer.from(`${subject}\n\n${META_PREFIX}${JSON.stringify({ v: 1, ...fields })}\n`);
  const who = `hermes <hermes@localhost> ${Math.floor(info.createdAt / 1000)} +0000`;
  const header = [`commit ${CHECKPOINT_REF}`, "mark :1", `author ${who}`, `committer ${who}`, `data ${message.length}`];
  const input = Buffer.concat([
    Buffer.from(`${header.join("\n")}\n`),
    message,
    Buffer.from(head ? `from ${head}\n` : ""),
    ...commands,
    Buffer.from("\nget-mark :1\n"),
  ]);
  // fast-import refuses to move the branch unless the new commit descends from its tip, so a
  // checkpoint written meanwhile by another process is never lost.
  const importing = runGit(repo, ["fast-import", "--quiet"], { input, config: ["fastimport.unpackLimit=0"] });
  // Both settle before the lock is released. A failed index update alone does not fail the
  // snapshot: the commit exists, and the next snapshot sees the index out of step and stages afresh.
  const [imported] = await Promise.allSettled([importing, staging]);
  if (imported.status === "rejected") throw imported.reason;
  const commit = imported.value.stdout.trim();
  if (totals.size > 10_000) totals.clear();
  totals.set(commit, totalFiles);
  return { id: commit.slice(0, 12), ...fields };
}

/** fast-import file commands for the scanned changes, with contents read now. */
function changeCommands(repo: ShadowRepo, found: Scan): Buffer[] {
  const out: Buffer[] = [];
  for (const { path, info } of found.changes) {
    const full = join(repo.workTree, path);
    if (!info) {
      out.push(Buffer.from(`D ${quote(path)}\n`));
      continue;
    }
    const link = info.isSymbolicLink();
    let content: Buffer;
    try {
      content = link ? readlinkSync(full, { encoding: "buffer" }) : readFileSync(full);
    } catch {
      // Gone since the scan: record it as deleted, as the index update will.
      out.push(Buffer.from(`D ${quote(path)}\n`));
      continue;
    }
    const mode = link ? "120000" : info.mode & 0o100 ? "100755" : "100644";
    out.push(Buffer.from(`M ${mode} inline ${quote(path)}\ndata ${content.length}\n`), content, Buffer.from("\n"));
  }
  for (const path of found.forceRemove) out.push(Buffer.from(`D ${quote(path)}\n`));
  return out;
}

/** A path as fast-import reads it: C-quoted when it starts with a quote or holds a newline. */
function quote(path: string): string {
  if (!path.startsWith('"') && !path.includes("\n")) return path;
  return `"${path.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Whether this process may read the file, from its mode bits (no extra system call). */
function readable(info: Stats, groups: number[]): boolean {
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0) return true;
  if (info.uid === uid) return (info.mode & 0o400) !== 0;
  if (groups.includes(info.gid) || info.gid === process.getgid?.()) return (info.mode & 0o040) !== 0;
  return (info.mode & 0o004) !== 0;
}
