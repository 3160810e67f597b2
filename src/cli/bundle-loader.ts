/**
 * Runs the CLI from dist/cli/hermes.cjs, the whole command tree bundled into one script, with
 * a V8 code cache beside it. Compiling the CLI's JavaScript was the largest single cost of a
 * one-shot run; with the cache, V8 reuses the bytecode of the previous run instead. The cache
 * file is named after the build (so a rebuild never meets a stale one) and after the kind of
 * run (one-shot, interactive chat or other command, which compile different code), and written
 * only by a run its caller deems typical of its kind. V8 itself rejects a cache made by another
 * Node version or other flags; the run then writes a fresh one as it exits. Where
 * dist/ is read-only the CLI simply runs without a cache. The bundle loads packages with
 * require() only: Node 20 cannot give import() to a script compiled from a code cache.
 */
import type { Script } from "node:vm";
import { publishBuildId } from "../util/build-id.js";

// See util/package-root.ts for why builtins come through process.getBuiltinModule here.
const { readFileSync, renameSync, writeFileSync } = process.getBuiltinModule("node:fs");
const { createRequire } = process.getBuiltinModule("node:module");
const { dirname, join } = process.getBuiltinModule("node:path");
const { fileURLToPath } = process.getBuiltinModule("node:url");
const vm = process.getBuiltinModule("node:vm");

export interface CliModule {
  runCli(argv: string[]): Promise<number>;
}

/**
 * The parameters the bundle's code sees as module-scope names (CommonJS plus its own URL). The
 * build writes the bundles already wrapped (scripts/bundle-cli.mjs): read as latin1, a file over
 * 1 MB becomes one external string V8 compiles in place, where wrapping it here would make V8
 * copy the whole source into its heap (and keep both copies until a full collection).
 */
export const BUNDLE_WRAPPER = {
  head: "(function (exports, require, module, __filename, __dirname, __hermesBundleUrl) {",
  tail: "\n})",
} as const;

/**
 * One cache per build, kind of run and V8 version: a cache made by another Node is rejected by
 * V8, and with one shared name two Node versions would keep replacing each other's.
 */
export function cachePathFor(bundlePath: string, bundleId: string, kind: string): string {
  const v8 = process.versions.v8.replace(/[^0-9A-Za-z.-]/g, "_");
  return join(dirname(bundlePath), `hermes-${bundleId}-${kind}-v8-${v8}.v8cache`);
}

function readCache(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function writeCache(path: string, script: Script): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, script.createCachedData());
    renameSync(temporary, path);
  } catch {
    // A read-only install runs without a cache.
  }
}

export interface LoadOptions {
  /** Asked at exit, when a cache is to be written: whether this run compiled what runs of its kind need. */
  worthCaching?: () => boolean;
}

/** What each bundle exports besides the CLI: its modules the other bundle imports (scripts/bundle-cli.mjs). */
interface ChunkExports {
  chunkModule?: (name: string) => unknown;
}

/** How the bundles name each other's modules in require(). */
const CHUNK_PREFIX = "hermes-chunk:";
/** The second bundle, beside the first: the modules a one-shot run does not need. */
const MORE_BUNDLE = "hermes-more.cjs";

/** Compiles one bundle (from its code cache when there is one) and runs it with `require`. */
function runBundle(path: string, url: string, cachePath: string, require: NodeJS.Require, options: LoadOptions) {
  const cachedData = readCache(cachePath);
  // The build writes the bundle in ASCII (scripts/bundle-cli.mjs), so latin1 reads it as is,
  // without UTF-8 decoding, into the one-byte string V8 scans fastest.
  const source = readFileSync(path, "latin1");
  const { head, tail } = BUNDLE_WRAPPER;
  const script = new vm.Script(source.startsWith(head) ? source : `${head}${source}${tail}`, {
    filename: path,
    ...(cachedData ? { cachedData } : {}),
  });
  // Written at exit, so it holds the bytecode of every function this run compiled; only by a
  // run that succeeded, since one that stopped early (a usage error) compiled little, and that
  // the caller deems typical of its kind.
  if (!cachedData || script.cachedDataRejected) {
    process.once("exit", (code) => {
      if (code === 0 && (options.worthCaching?.() ?? true)) writeCache(cachePath, script);
    });
  }
  const module = { exports: {} as ChunkExports };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, require, module, path, dirname(path), url);
  return module.exports;
}

export function loadBundledCli(bundleUrl: URL, bundleId: string, kind: string, options: LoadOptions = {}): CliModule {
  const path = fileURLToPath(bundleUrl);
  const nodeRequire = createRequire(path);
  publishBuildId(bundleId);
  let first: ChunkExports = {};
  let more: ChunkExports | undefined;
  const loadMore = (): ChunkExports => {
    if (more) return more;
    const morePath = join(dirname(path), MORE_BUNDLE);
    more = {};
    more = runBundle(
      morePath,
      new URL(MORE_BUNDLE, bundleUrl).href,
      cachePathFor(path, bundleId, `${kind}-more`),
      bundleRequire,
      options,
    );
    return more;
  };
  // A module of the other bundle comes from it: the second bundle loads on the first such import.
  const bundleRequire = Object.assign(
    (id: string): unknown => {
      if (!id.startsWith(CHUNK_PREFIX)) return nodeRequire(id);
      const name = id.slice(CHUNK_PREFIX.length);
      const found = first.chunkModule?.(name) ?? loadMore().chunkModule?.(name);
      if (found === undefined) throw new Error(`the CLI bundles hold no module ${name}: run npm run build again`);
      return found;
    },
    {
      resolve: nodeRequire.resolve,
      cache: nodeRequire.cache,
      main: nodeRequire.main,
      extensions: nodeRequire.extensions,
    },
  ) as NodeJS.Require;
  first = runBundle(path, bundleUrl.href, cachePathFor(path, bundleId, kind), bundleRequire, options);
  return first as ChunkExports & CliModule;
}
