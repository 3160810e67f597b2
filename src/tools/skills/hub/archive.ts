/**
 * Unpacking skill sources with the system tools, never through a shell: `.tar.gz` archives with
 * `tar` (after every entry was checked) and git repositories with a shallow `git clone`.
 *
 * An archive is read twice before anything is extracted: by the package's own tar reader, which
 * sees each entry's exact kind, and by `tar -tzf`, whose paths must be the same ones, so the two
 * parsers cannot be played against each other. Only plain files and folders with relative paths
 * that stay inside the archive are accepted; links, devices and FIFOs are refused.
 */
import { execFile } from "node:child_process";
import { createReadStream, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createGunzip } from "node:zlib";
import { readTar, TarFormatError } from "../../../util/tar.js";
import { HubError } from "./net.js";

/** Most entries, and most bytes once unpacked, an archive may hold. */
export const MAX_ARCHIVE_ENTRIES = 2000;
export const MAX_UNPACKED_BYTES = 64 * 1024 * 1024;
const TOOL_TIMEOUT_MS = 120_000;

interface RunResult {
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; label?: string } = {}) {
  const { label = `${command} ${args[0]}`, ...spawnOptions } = options;
  return new Promise<RunResult>((resolve, reject) => {
    execFile(
      command,
      args,
      { ...spawnOptions, timeout: TOOL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) {
          const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
          const detail = missing ? `${command} is not installed (or not on PATH)` : String(stderr).trim();
          reject(new HubError(`${label} failed: ${detail || error.message}`));
          return;
        }
        resolve({ stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** An archive path as a comparable relative path: no `./` prefix, no trailing slash. */
function normalEntry(path: string): string {
  return path.replace(/^(?:\.\/)+/, "").replace(/\/+$/, "");
}

/** Why this archive path may not be unpacked, or undefined when it may. */
function pathProblem(path: string): string | undefined {
  if (path.startsWith("/") || /^[a-zA-Z]:/.test(path) || path.includes("\\")) return "is an absolute path";
  if (path.split("/").includes("..")) return "climbs out of the archive with '..'";
  if (path.includes("\0")) return "holds a NUL character";
  return undefined;
}

/** Reads every header of the gzipped archive at `file`; throws a HubError naming the first bad entry. */
async function checkEntries(file: string): Promise<Set<string>> {
  const seen = new Set<string>();
  let entries = 0;
  let bytes = 0;
  try {
    const stream = createReadStream(file).pipe(createGunzip());
    for await (const entry of readTar(stream as AsyncIterable<Buffer>)) {
      const path = normalEntry(entry.path);
      if (++entries > MAX_ARCHIVE_ENTRIES) throw new HubError(`holds more than ${MAX_ARCHIVE_ENTRIES} entries`);
      if (entry.kind !== "file" && entry.kind !== "directory") {
        throw new HubError(`entry "${entry.path}" is a ${entry.kind}; skill archives may only hold files and folders`);
      }
      const problem = pathProblem(entry.path);
      if (problem) throw new HubError(`entry "${entry.path}" ${problem}`);
      bytes += entry.size;
      if (bytes > MAX_UNPACKED_BYTES) throw new HubError(`unpacks to more than ${MAX_UNPACKED_BYTES / 1024 / 1024} MB`);
      if (path) seen.add(path);
    }
  } catch (error) {
    if (error instanceof HubError) throw error;
    const reason = error instanceof TarFormatError ? error.message : (error as Error).message;
    throw new HubError(`is not a readable .tar.gz archive (${reason})`);
  }
  return seen;
}

/** Fails unless `tar -tzf` lists exactly the paths the package's reader saw. */
async function crossCheck(file: string, seen: Set<string>): Promise<void> {
  const listed = (await run("tar", ["-tzf", file])).stdout
    .split("\n")
    .map(normalEntry)
    .filter((line) => line.length > 0);
  const same = listed.length > 0 && listed.every((path) => seen.has(path)) && new Set(listed).size === seen.size;
  if (!same) throw new HubError("lists different entries to tar than to Hermes' reader; the archive is ambiguous");
}

/** Throws unless everything under `dir` is a plain file or folder (nothing else got unpacked). */
export function assertPlainTree(dir: string, label: string): void {
  const walk = (current: string, prefix: string): void => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      const stat = lstatSync(path);
      const rel = prefix ? `${prefix}/${name}` : name;
      if (stat.isDirectory()) walk(path, rel);
      else if (!stat.isFile()) throw new HubError(`${label}: "${rel}" is not a plain file; refused`);
    }
  };
  walk(dir, "");
}

/**
 * Unpacks the `.tar.gz` at `file` into the empty folder `dest`. `label` names the source in
 * messages. Throws a HubError (having unpacked nothing) when any entry is unsafe.
 */
export async function extractTarball(file: string, dest: string, label: string): Promise<void> {
  try {
    const seen = await checkEntries(file);
    await crossCheck(file, seen);
    await run("tar", ["-xzf", file, "-C", dest, "--no-same-owner", "--no-same-permissions"]);
    assertPlainTree(dest, label);
  } catch (error) {
    if (error instanceof HubError && !error.message.startsWith(label)) {
      throw new HubError(`${label} ${error.message}`);
    }
    throw error;
  }
}

/** Whether `url` looks like something git can clone (never an option: it may not start with '-'). */
export function isGitUrl(url: string): boolean {
  if (url.startsWith("-")) return false;
  return /^(?:https?|ssh|git|file):\/\//i.test(url) || /^[\w.-]+@[\w.-]+:[^\s]+$/.test(url);
}

/**
 * Clones `url` at depth 1 into `dest` (which must not exist yet) and returns the commit it got.
 * No prompts for credentials, no submodules, no `ext::` transports.
 */
export async function gitClone(url: string, dest: string): Promise<string> {
  if (!isGitUrl(url)) throw new HubError(`"${url}" is not a git URL`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    GCM_INTERACTIVE: "never",
  };
  const args = ["-c", "protocol.ext.allow=never", "clone", "--depth", "1", "--quiet", "--", url, dest];
  await run("git", args, { env, label: `git clone ${url}` });
  const head = await run("git", ["rev-parse", "HEAD"], { cwd: dest, env });
  return head.stdout.trim();
}
