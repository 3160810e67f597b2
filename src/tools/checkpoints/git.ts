/**
 * The shadow git repository behind a checkpoint store: running git against it, creating it,
 * and comparing trees.
 *
 * Every git run gets GIT_DIR=<shadow>, GIT_WORK_TREE=<project>, its own index file and an
 * environment cut off from the user's git setup (no system or global config, HOME and
 * XDG_CONFIG_HOME inside the shadow dir, no inherited GIT_* variables), so the project's own
 * `.git` and the user's settings never take part.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, mkdir, stat, writeFile } from "node:fs/promises";
import { devNull } from "node:os";
import { isAbsolute, join, relative, sep } from "node:path";

/** The branch holding the chain of checkpoints, newest at the tip. */
export const CHECKPOINT_REF = "refs/heads/checkpoints";
/** A tree (not a commit) recording the project as the agent's last turn left it. */
export const AFTER_TURN_REF = "refs/hermes/after-turn";
/** Marks the line of a commit message that carries the checkpoint's metadata as JSON. */
export const META_PREFIX = "hermes-checkpoint: ";

const CONFIG_FLAGS = ["-c", "core.autocrlf=false", "-c", "core.quotepath=off", "-c", "commit.gpgsign=false"];

/** Written into the shadow config once; `gc.auto=0` because pruning runs gc itself. */
const SHADOW_CONFIG = `[core]
\tuntrackedCache = true
\tfsmonitor = false
\tpreloadIndex = true
\tlogAllRefUpdates = false
\tautocrlf = false
\tsymlinks = true
\tfileMode = true
[gc]
\tauto = 0
[commit]
\tgpgsign = false
`;

/**
 * Highest-precedence attributes: store and restore exact bytes whatever the project's
 * .gitattributes say (no end-of-line conversion, no filters, no ident expansion).
 */
const SHADOW_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n";

export interface ShadowRepo {
  /** The git binary: "git" looks it up on PATH. */
  binary: string;
  /** The shadow repository, `<home>/checkpoints/<hash16>`. */
  gitDir: string;
  /** The project directory (realpath), used as the work tree. */
  workTree: string;
}

export interface GitRunOptions {
  input?: string | Buffer;
  /** Index file to use instead of `<shadow>/index`. */
  indexFile?: string;
  /** Extra environment, e.g. author and committer dates. */
  env?: Record<string, string>;
  /** Extra `-c name=value` settings. */
  config?: string[];
  /** Exit codes besides 0 that are not failures. */
  okCodes?: number[];
  /** Working directory; the project directory unless given. */
  cwd?: string;
}

export interface GitResult {
  stdout: string;
  stderr: string;
  code: number;
}

export class GitError extends Error {
  constructor(
    message: string,
    readonly args: string[],
    readonly stderr = "",
    readonly exitCode: number | null = null,
    /** True when the git binary itself could not be started (missing, not executable). */
    readonly gitMissing = false,
  ) {
    super(message);
    this.name = "GitError";
  }
}

/** A git date for `GIT_AUTHOR_DATE`/`GIT_COMMITTER_DATE` from milliseconds since the epoch. */
export function gitDate(ms: number): string {
  return `@${Math.floor(ms / 1000)} +0000`;
}

function gitEnv(repo: ShadowRepo, options: GitRunOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("GIT_")) env[name] = value;
  return {
    ...env,
    GIT_DIR: repo.gitDir,
    GIT_WORK_TREE: repo.workTree,
    GIT_INDEX_FILE: options.indexFile ?? join(repo.gitDir, "index"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_TERMINAL_PROMPT: "0",
    HOME: repo.gitDir,
    XDG_CONFIG_HOME: join(repo.gitDir, "no-xdg"),
    GIT_AUTHOR_NAME: "hermes",
    GIT_AUTHOR_EMAIL: "hermes@localhost",
    GIT_COMMITTER_NAME: "hermes",
    GIT_COMMITTER_EMAIL: "hermes@localhost",
    LC_ALL: "C",
    // Git's zlib streams allocate and free large buffers per object; without a top pad glibc
    // hands that memory back to the kernel each time, which made a first snapshot several times slower.
    GLIBC_TUNABLES: [env.GLIBC_TUNABLES, "glibc.malloc.trim_threshold=67108864:glibc.malloc.top_pad=16777216"]
      .filter(Boolean)
      .join(":"),
    ...options.env,
  };
}

/** Run `git args` against the shadow repository; rejects with a GitError on failure. */
export function runGit(repo: ShadowRepo, args: string[], options: GitRunOptions = {}): Promise<GitResult> {
  const extra = (options.config ?? []).flatMap((setting) => ["-c", setting]);
  const fullArgs = [...CONFIG_FLAGS, ...extra, ...args];
  const cwd = options.cwd ?? repo.workTree;
  return new Promise((resolve, reject) => {
    let settled = false;
    const child = spawn(repo.binary, fullArgs, {
      cwd,
      env: gitEnv(repo, options),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.stdin.on("error", () => {
      // git may exit before reading all its input; the exit code tells what happened.
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      // spawn reports a missing working directory as ENOENT too.
      if (!existsSync(cwd)) reject(new GitError(`the directory ${cwd} does not exist`, args));
      else {
        const missing = error.code === "ENOENT" || error.code === "EACCES";
        reject(new GitError(`could not run git (${repo.binary}): ${error.message}`, args, "", null, missing));
      }
    });
    child.on("close", (code) => {
      if (settled) return;
      settled = true;
      const result = { stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") };
      const exit = code ?? -1;
      if (exit === 0 || options.okCodes?.includes(exit)) resolve({ ...result, code: exit });
      else
        reject(
          new GitError(`git ${args[0]} failed (exit ${exit}): ${result.stderr.trim()}`, args, result.stderr, exit),
        );
    });
    child.stdin.end(options.input ?? "");
  });
}

const queues = new Map<string, Promise<unknown>>();

/**
 * Run `task` after every earlier task queued under `key` has settled. Keyed by shadow
 * directory, so two stores of one project in this process never share the index at once.
 */
export function serialized<T>(key: string, task: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(task, task);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}

export function splitNul(text: string): string[] {
  return text.split("\0").filter((part) => part !== "");
}

/** One changed path between two trees, from `git diff-tree -r -z` raw output. */
export interface TreeChange {
  path: string;
  /** A: only in the second tree, D: only in the first, M: changed, T: type changed. */
  status: "A" | "D" | "M" | "T";
  oldMode: string;
  newMode: string;
  newId: string;
}

/** Paths that differ between two trees (or commits), optionally limited to one literal path. */
export async function treeChanges(repo: ShadowRepo, from: string, to: string, only?: string): Promise<TreeChange[]> {
  const args = ["diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", from, to];
  if (only !== undefined) args.push("--", `:(literal)${only}`);
  const parts = splitNul((await runGit(repo, args)).stdout);
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [oldMode = "", newMode = "", , newId = "", status = ""] = parts[i]!.replace(/^:/, "").split(" ");
    const kind = status.charAt(0);
    if (kind !== "A" && kind !== "D" && kind !== "M" && kind !== "T") continue;
    changes.push({ path: parts[i + 1]!, status: kind, oldMode, newMode, newId });
  }
  return changes;
}

/** Whether the shadow repository is complete: `project.json` is written last when creating it. */
export async function isInitialized(repo: ShadowRepo): Promise<boolean> {
  return stat(join(repo.gitDir, "project.json")).then(
    () => true,
    () => false,
  );
}

/**
 * Create the shadow repository if it does not exist yet: `git init` without templates, our
 * config, `.git` (and the checkpoint root when it lies inside the project) in info/exclude,
 * byte-exact attributes, and `project.json` naming the project. Creation interrupted midway
 * is simply redone.
 */
export async function ensureShadowRepo(repo: ShadowRepo, checkpointsRoot: string, now: number): Promise<void> {
  if (await isInitialized(repo)) return;
  await mkdir(join(repo.gitDir, "info"), { recursive: true });
  const excludes = [".git"];
  const inside = relative(repo.workTree, checkpointsRoot);
  if (inside && inside !== ".." && !inside.startsWith(`..${sep}`) && !isAbsolute(inside)) {
    excludes.push(`/${inside.split(sep).join("/")}/`);
  }
  await writeFile(join(repo.gitDir, "info", "exclude"), `${excludes.join("\n")}\n`);
  await writeFile(join(repo.gitDir, "info", "attributes"), SHADOW_ATTRIBUTES);
  await runGit(repo, ["init", "-q", "--template=", "--initial-branch=checkpoints"]);
  await appendFile(join(repo.gitDir, "config"), SHADOW_CONFIG);
  await writeFile(
    join(repo.gitDir, "project.json"),
    `${JSON.stringify({ projectDir: repo.workTree, createdAt: now }, null, 2)}\n`,
  );
}
