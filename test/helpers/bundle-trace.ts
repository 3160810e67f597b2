/** Which source modules a run of the bundled CLI loaded, through the build's esbuild metafile. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";

interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

/** Output file URL → URLs of the modules bundled into it, from the metafile the build writes. */
export function bundleContents(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync("dist/cli/bundle-meta.json", "utf8")) as Metafile;
  const contents = new Map<string, string[]>();
  for (const [output, { inputs }] of Object.entries(meta.outputs)) {
    const modules = Object.keys(inputs).map((input) => pathToFileURL(resolve(input)).href);
    contents.set(pathToFileURL(resolve(output)).href, modules);
  }
  return contents;
}

export interface TraceOptions {
  /** HERMES_HOME for the run; a fresh temp dir when left out. */
  home?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Every file: URL the process loaded while running `hermes <args>` (ESM resolutions and
 * CommonJS requires). Asynchronous, so a fake provider in this process can answer the run.
 */
export async function filesLoadedBy(args: string[], options: TraceOptions = {}): Promise<string[]> {
  return (await traceRun(args, options)).files;
}

/** The files (as filesLoadedBy) and Node's own modules (`crypto`, `internal/...`) a run loaded. */
export async function traceRun(
  args: string[],
  options: TraceOptions = {},
): Promise<{ files: string[]; builtins: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-trace-"));
  const traceFile = join(dir, "trace.txt");
  try {
    await promisify(execFile)(
      process.execPath,
      ["--import", "./test/helpers/import-trace.mjs", "dist/cli/main.js", ...args],
      { env: { ...process.env, ...options.env, IMPORT_TRACE_FILE: traceFile, HERMES_HOME: options.home ?? dir } },
    );
    const lines = readFileSync(traceFile, "utf8").split("\n").filter(Boolean);
    return {
      files: [...new Set(lines.filter((line) => line.startsWith("file:")))],
      builtins: lines.filter((line) => line.startsWith("builtin:")).map((line) => line.slice("builtin:".length)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The source modules and packages behind the loaded files: a bundle file stands for the modules
 * the metafile lists for it. A file of dist/cli/ the metafile does not know means a stale build.
 */
export function modulesBehind(files: string[]): string[] {
  const contents = bundleContents();
  const cliDir = pathToFileURL(resolve("dist/cli")).href;
  return files.flatMap((url) => {
    const modules = contents.get(url);
    if (modules) return modules;
    assert.ok(!url.startsWith(`${cliDir}/`), `${url} is not an output of the last bundle`);
    return [url];
  });
}
