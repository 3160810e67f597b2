/**
 * Path handling shared by the file tools: resolve what the model passed against the working
 * directory, follow symlinks to the real location, and refuse writes to places whose
 * modification would hand over the machine or leak credentials.
 */
import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import type { ApprovalPolicy } from "../approval/policy.js";
import { classifyPersistenceTarget } from "../approval/sensitive-paths.js";
import type { ToolContext } from "../registry.js";

/** Expand a leading `~` and resolve a relative path against `cwd`. */
export function resolveToolPath(input: string, cwd: string): string {
  let path = input.trim();
  if (path === "~") path = homedir();
  else if (path.startsWith("~/")) path = join(homedir(), path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * The real location a path refers to, following every symlink, including a dangling final
 * link and links in parent directories of a file that does not exist yet.
 */
export function realLocation(path: string, depth = 0): string {
  if (depth > 40) return path;
  try {
    return realpathSync(path);
  } catch {
    // Not resolvable as a whole: a dangling link or a file that does not exist yet.
  }
  try {
    if (lstatSync(path).isSymbolicLink()) {
      const target = readlinkSync(path);
      return realLocation(resolve(dirname(path), target), depth + 1);
    }
  } catch {
    // Does not exist: resolve the parent and keep the last component.
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(realLocation(parent, depth + 1), basename(path));
}

function hermesHomeDir(): string {
  const fromEnv = process.env.HERMES_HOME?.trim();
  return fromEnv ? resolve(fromEnv) : join(homedir(), ".hermes");
}

/** Directories under the home directory that hold keys, tokens or cloud credentials. */
export const HOME_SECRET_DIRS = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker",
  ".config/gh",
  ".config/gcloud",
];
/** Files under the home directory that run on login or hold passwords. */
const HOME_SECRET_FILES = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".netrc",
  ".pgpass",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
];
/** System directories a tool never writes into. */
const SYSTEM_DIRS = [
  "/etc",
  "/private/etc",
  "/boot",
  "/usr/lib/systemd",
  "/lib/systemd",
  "/System",
  "/dev",
  "/proc",
  "/sys",
];

function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** Files of HERMES_HOME no tool reads: keys, the credential pool, the session database. */
export const HERMES_UNREADABLE = [
  ".env",
  "auth.json",
  "state.db",
  "state.db-wal",
  "state.db-shm",
  "store.db",
  "store.db-wal",
  "store.db-shm",
  // config.yaml as last validated: the settings, and any keys they hold.
  join("cache", "config-validated.json"),
];
/** Files of HERMES_HOME no tool writes: the above, plus what decides how the agent behaves. */
const HERMES_UNWRITABLE = [...HERMES_UNREADABLE, "config.yaml", "SOUL.md", join("cache", "skill-scans.json")];

function hermesFiles(names: readonly string[]): string[] {
  const home = hermesHomeDir();
  const homes = [home];
  // The same files seen through their real location, when HERMES_HOME itself is a link.
  const realHome = realLocation(home);
  if (realHome !== home) homes.push(realHome);
  return homes.flatMap((dir) => names.map((name) => join(dir, name)));
}

function fileIdentity(path: string): string | null {
  try {
    const stat = statSync(path);
    return stat.isFile() ? `${stat.dev}:${stat.ino}` : null;
  } catch {
    return null;
  }
}

/** Whether `real` is one of `files`, by path or as the same file under another name (a hard link). */
function isOneOf(real: string, files: readonly string[]): boolean {
  if (files.includes(real)) return true;
  const identity = fileIdentity(real);
  return identity !== null && files.some((file) => fileIdentity(file) === identity);
}

/**
 * A check for many paths at once (search results): the protected files are looked up once,
 * and each distinct path is judged once.
 */
export function secretFileFilter(): (path: string) => boolean {
  const files = hermesFiles(HERMES_UNREADABLE);
  const identities = new Set(files.map(fileIdentity).filter((id): id is string => id !== null));
  const verdicts = new Map<string, boolean>();
  return (path) => {
    let readable = verdicts.get(path);
    if (readable === undefined) {
      const real = realLocation(path);
      const identity = identities.size > 0 ? fileIdentity(real) : null;
      readable = !files.includes(real) && (identity === null || !identities.has(identity));
      verdicts.set(path, readable);
    }
    return readable;
  };
}

function sensitiveReason(real: string): string | null {
  for (const dir of SYSTEM_DIRS) {
    if (isInside(real, dir)) return `${dir} is a system directory`;
  }
  const home = realLocation(homedir());
  for (const dir of HOME_SECRET_DIRS) {
    if (isInside(real, join(home, dir))) return `~/${dir} holds keys or credentials`;
  }
  for (const file of HOME_SECRET_FILES) {
    if (real === join(home, file)) return `~/${file} runs at login or holds passwords`;
  }
  if (isOneOf(real, hermesFiles(HERMES_UNWRITABLE))) {
    return "it holds the agent's own secrets or settings (the user changes those with `hermes config set`)";
  }
  return null;
}

export type WriteCheck = { ok: true; path: string; real: string } | { ok: false; error: string };

/** Resolve a path for writing and refuse sensitive locations, judged on the real location. */
export function checkWritePath(input: string, cwd: string): WriteCheck {
  if (!input.trim()) return { ok: false, error: "path is empty" };
  const path = resolveToolPath(input, cwd);
  const real = realLocation(path);
  const reason = sensitiveReason(real) ?? sensitiveReason(path);
  if (reason) {
    const shown = real === path ? path : `${path} (resolves to ${real})`;
    return { ok: false, error: `Refusing to write ${shown}: ${reason}. Ask the user to make this change themselves.` };
  }
  return { ok: true, path, real };
}

/** Device files that never end (or block) when read. */
const ENDLESS_DEVICES = ["/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/tty", "/dev/full"];

/** Refuse reads that would hang or pull the agent's own credentials into the transcript. */
export function readRefusal(real: string): string | null {
  if (ENDLESS_DEVICES.includes(real) || real.startsWith("/proc/self/fd") || real.startsWith("/dev/fd/")) {
    return `Refusing to read ${real}: it is a device that never ends.`;
  }
  if (isOneOf(real, hermesFiles(HERMES_UNREADABLE))) {
    return `Refusing to read ${real}: it holds the agent's own secrets.`;
  }
  return null;
}

/** How to show a path to the model: relative to cwd when inside it, absolute otherwise. */
export function displayPath(path: string, cwd: string): string {
  const base = resolve(cwd);
  if (isInside(path, base) && path !== base) return path.slice(base.length + 1);
  return path;
}

/**
 * Asks (through the approval policy in the tool's context) before a file tool writes where
 * files run later; undefined when the write may go ahead, else the refusal for the model.
 */
export async function approvePersistentWrite(real: string, ctx: ToolContext): Promise<string | undefined> {
  const target = classifyPersistenceTarget(real);
  if (!target) return undefined;
  const policy = ctx.services?.approvals as ApprovalPolicy | undefined;
  if (!policy) return `Refusing to ${target.description} (${real}) without an approval policy to ask.`;
  const verdict = await policy.checkFileWrite(real, target, ctx);
  return verdict.allowed ? undefined : verdict.message;
}
