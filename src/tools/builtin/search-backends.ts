/**
 * The two ways `search_files` looks through a tree: ripgrep in a child process when it is on
 * PATH, else a walk in Node. Both yield the same raw results in path order, so the tool formats
 * them one way.
 */
import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { findExecutable } from "../../util/executable.js";
import { isBinaryFile } from "./file-io.js";
import { walkFiles } from "./file-walker.js";
import { matchesFileGlob } from "./glob.js";

export interface RawMatch {
  path: string;
  line: number;
  text: string;
}

export interface ContentQuery {
  root: string;
  pattern: string;
  fileGlob?: string;
  /** Stop after this many matches; the result then says it was capped. */
  maxMatches: number;
  signal?: AbortSignal;
}

export interface ContentResult {
  matches: RawMatch[];
  capped: boolean;
  error?: string;
}

export interface FileQuery {
  root: string;
  glob: string;
  maxFiles: number;
  signal?: AbortSignal;
}

export interface FileResult {
  files: string[];
  capped: boolean;
  error?: string;
}

export type SearchBackendName = "rg" | "node";

export interface SearchBackend {
  name: SearchBackendName;
  content(query: ContentQuery): Promise<ContentResult>;
  files(query: FileQuery): Promise<FileResult>;
}

/** Files larger than this are skipped by the Node backend rather than loaded whole. */
const NODE_MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * ripgrep when installed, unless HERMES_SEARCH_BACKEND=node (or the `prefer` argument) asks
 * for the Node walker.
 */
export function chooseSearchBackend(prefer = process.env.HERMES_SEARCH_BACKEND): SearchBackend {
  if (prefer !== "node") {
    const rg = findExecutable("rg");
    if (rg) return ripgrepBackend(rg);
  }
  return nodeBackend;
}

/** Turn ripgrep-style inline flags at the start, like `(?i)`, into JavaScript flags. */
export function compilePattern(pattern: string): RegExp {
  const inline = /^\(\?([imsx]+)\)/.exec(pattern);
  let flags = "";
  let body = pattern;
  if (inline) {
    body = pattern.slice(inline[0].length);
    flags = [...new Set((inline[1] ?? "").replace(/x/g, ""))].join("");
  }
  return new RegExp(body, flags);
}

export const nodeBackend: SearchBackend = {
  name: "node",
  async content(query) {
    let regex: RegExp;
    try {
      regex = compilePattern(query.pattern);
    } catch (error) {
      return { matches: [], capped: false, error: `Invalid regular expression: ${(error as Error).message}` };
    }
    const matches: RawMatch[] = [];
    for (const file of filesUnder(query.root, query.signal)) {
      if (query.fileGlob && !file.explicit && !matchesFileGlob(file.relative, query.fileGlob)) continue;
      let text: string;
      try {
        if (statSync(file.path).size > NODE_MAX_FILE_BYTES || isBinaryFile(file.path)) continue;
        text = readFileSync(file.path, "utf8");
      } catch {
        continue;
      }
      const lines = text.split("\n");
      for (const [index, raw] of lines.entries()) {
        if (index === lines.length - 1 && raw === "") break;
        const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
        if (!regex.test(line)) continue;
        matches.push({ path: file.path, line: index + 1, text: line });
        if (matches.length >= query.maxMatches) return { matches, capped: true };
      }
    }
    return { matches, capped: false };
  },
  async files(query) {
    const files: string[] = [];
    for (const file of filesUnder(query.root, query.signal)) {
      if (!file.explicit && !matchesFileGlob(file.relative, query.glob)) continue;
      files.push(file.path);
      if (files.length >= query.maxFiles) return { files, capped: true };
    }
    return { files, capped: false };
  },
};

/** The files to search; a root that is itself a file is searched whatever the glob says, as ripgrep does. */
function* filesUnder(
  root: string,
  signal?: AbortSignal,
): Generator<{ path: string; relative: string; explicit?: boolean }> {
  let isFile = false;
  try {
    isFile = statSync(root).isFile();
  } catch {
    return;
  }
  if (isFile) {
    yield { path: root, relative: basename(root), explicit: true };
    return;
  }
  yield* walkFiles(root, signal);
}

const RG_COMMON = ["--hidden", "--no-require-git", "--sort", "path", "-g", "!.git", "-g", "!node_modules"];

export function ripgrepBackend(rgPath: string): SearchBackend {
  return {
    name: "rg",
    async content(query) {
      const args = ["--json", ...RG_COMMON, ...typeFilter(query.fileGlob), "--regexp", query.pattern, "--", query.root];
      const keep = globFilter(query.root, query.fileGlob);
      const matches: RawMatch[] = [];
      let capped = false;
      const run = await runLines(rgPath, args, query.signal, (line) => {
        const event = parseRgEvent(line);
        if (!event || !keep(event.path)) return true;
        matches.push(event);
        if (matches.length >= query.maxMatches) {
          capped = true;
          return false;
        }
        return true;
      });
      if (run.code === 2 && matches.length === 0) return { matches, capped, error: rgError(run.stderr) };
      return { matches, capped };
    },
    async files(query) {
      const args = ["--files", ...RG_COMMON, ...typeFilter(query.glob), "--", query.root];
      const keep = globFilter(query.root, query.glob);
      const files: string[] = [];
      let capped = false;
      const run = await runLines(rgPath, args, query.signal, (line) => {
        if (!line || !keep(line)) return true;
        files.push(line);
        if (files.length >= query.maxFiles) {
          capped = true;
          return false;
        }
        return true;
      });
      if (run.code === 2 && files.length === 0) return { files, capped, error: rgError(run.stderr) };
      return { files, capped };
    },
  };
}

/**
 * ripgrep's own `-g` would override .gitignore, so a name glob is passed as a file type (which
 * respects ignore rules) and every path is also checked here, exactly as the Node walker does.
 */
function typeFilter(glob: string | undefined): string[] {
  if (!glob || glob.includes("/")) return [];
  return ["--type-add", `hermesglob:${glob}`, "--type", "hermesglob"];
}

function globFilter(root: string, glob: string | undefined): (path: string) => boolean {
  if (!glob) return () => true;
  const prefix = root.endsWith("/") ? root : `${root}/`;
  // A root that is itself a file is searched whatever the glob says.
  return (path) => !path.startsWith(prefix) || matchesFileGlob(path.slice(prefix.length), glob);
}

function rgError(stderr: string): string {
  const text = stderr.trim().split("\n").slice(0, 6).join("\n");
  return text || "ripgrep failed";
}

function parseRgEvent(line: string): RawMatch | null {
  let event: { type?: string; data?: Record<string, unknown> };
  try {
    event = JSON.parse(line);
  } catch {
    return null;
  }
  if (event.type !== "match" || !event.data) return null;
  const data = event.data as {
    path?: { text?: string; bytes?: string };
    lines?: { text?: string; bytes?: string };
    line_number?: number;
  };
  const path = data.path?.text ?? (data.path?.bytes ? Buffer.from(data.path.bytes, "base64").toString() : "");
  const text = data.lines?.text ?? (data.lines?.bytes ? Buffer.from(data.lines.bytes, "base64").toString() : "");
  return { path, line: data.line_number ?? 0, text: text.replace(/\r?\n$/, "") };
}

/**
 * Run a command and hand each stdout line to `onLine`; returning false stops the process.
 * Resolves with the exit code (null when stopped early) and stderr.
 */
function runLines(
  command: string,
  args: string[],
  signal: AbortSignal | undefined,
  onLine: (line: string) => boolean,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let buffered = "";
    let stderr = "";
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      child.kill();
    };
    signal?.addEventListener("abort", stop, { once: true });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (stopped) return;
      buffered += chunk;
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (!onLine(line)) {
          stop();
          return;
        }
        newline = buffered.indexOf("\n");
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      signal?.removeEventListener("abort", stop);
      if (!stopped && buffered) onLine(buffered);
      resolvePromise({ code: stopped ? null : code, stderr });
    });
  });
}
