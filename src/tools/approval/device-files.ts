/**
 * Device files are part of the running machine: as root, `mv /dev/null ./x`, `rm /dev/zero` or
 * `ln -sf ./x /dev/null` break every program that opens them. Moving, removing or replacing
 * anything under /dev needs approval; writing into the few streams made for it does not.
 */
import type { Word } from "../../util/shell-words.js";
import { type Invocation, operands } from "./command-analysis.js";
import { normalizePath } from "./sensitive-paths.js";

const STREAMS = /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/;
const REMOVERS = new Set(["rm", "unlink", "rmdir"]);
/** Programs that write over their destination (install, and cp --remove-destination, unlink it first). */
const REPLACERS = new Set(["cp", "install", "rsync", "scp", "ditto"]);

/** `path` with `.`, `..` and repeated slashes resolved when it is /dev or under it, else null. */
function devicePath(path: string): string | null {
  if (!path.trim().startsWith("/")) return null;
  const parts: string[] = [];
  for (const part of normalizePath(path).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  // Files inside /dev/shm are scratch files on a tmpfs, like /tmp's; /dev/shm itself is not.
  if (parts[0] === "dev" && parts[1] === "shm" && parts.length > 2) return null;
  return parts[0] === "dev" ? `/${parts.join("/")}` : null;
}

const isUnderDev = (path: string) => devicePath(path) !== null;

/** /dev/null, /dev/stdout and the like: devices made to be written to. */
export function isOutputStream(path: string): boolean {
  return STREAMS.test(devicePath(path) ?? "");
}

const isDeviceNotStream = (path: string) => isUnderDev(path) && !isOutputStream(path);

/** The value of `-t DIR` / `--target-directory=DIR`, which names the destination of cp, mv, ln. */
function targetDirectory(args: Word[]): string | null {
  const at = args.findIndex((w) => w.value === "-t" || w.value.startsWith("--target-directory"));
  if (at < 0) return null;
  const option = args[at]!.value;
  return option.includes("=") ? option.slice(option.indexOf("=") + 1) : (args[at + 1]?.value ?? null);
}

function destinations(inv: Invocation): string[] {
  const files = operands(inv.args).map((w) => w.value);
  const target = targetDirectory(inv.args);
  if (target !== null) return [target];
  return files.length >= 2 ? [files.at(-1)!] : [];
}

/** `ln -f`/`--force` and backups (`-b`, `--backup`, `--suffix`) replace an existing destination. */
function lnReplaces(args: Word[]): boolean {
  return args.some((w) => /^-[a-zA-Z]*[fbS]/.test(w.value) || /^--(?:force|backup|suffix)/.test(w.value));
}

/**
 * The directory a `cd`/`pushd` moves to, given where the command line was before (null: not
 * known, e.g. `cd -`, `cd ~` or a relative move from an unknown place).
 */
export function directoryAfterCd(inv: Invocation, before: string | null): string | null {
  const target = operands(inv.args)[0]?.value;
  if (target === undefined) return null;
  return within(before, target);
}

/** `path` as seen from `dir` when it is relative and `dir` is known; otherwise `path` itself. */
function within(dir: string | null, path: string): string {
  if (dir === null || path.startsWith("/") || path.startsWith("~") || path.startsWith("-")) return path;
  return `${dir}/${path}`;
}

/** `cwd`: the directory an earlier `cd` of the same command line moved to, when known. */
export function changesDeviceFile(inv: Invocation, cwd: string | null = null): boolean {
  const here = (path: string) => within(cwd, path);
  if (inv.redirects.some((r) => r.op.includes(">") && isDeviceNotStream(here(r.target.value)))) return true;
  const files = operands(inv.args).map((w) => here(w.value));
  const to = destinations(inv).map(here);
  if (inv.name === "mv") return [...files, ...to].some(isUnderDev);
  if (REMOVERS.has(inv.name)) return files.some(isUnderDev);
  if (REPLACERS.has(inv.name)) return to.some(isUnderDev);
  if (inv.name === "ln") return lnReplaces(inv.args) && to.some(isUnderDev);
  if (inv.name === "tee") return files.some(isDeviceNotStream);
  return false;
}
