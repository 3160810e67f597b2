/**
 * Which better-sqlite3 build opens our databases. Releases up to 12 derive their statements from
 * `node::ObjectWrap`, whose destructor aborts the whole process on Node 24.19 and later when a
 * statement is garbage-collected outside a JavaScript context (an idle GC, or exit). Release 13
 * is built on Node-API, ships prebuilt addons and has no such destructor, but crashes on Node 20.
 * So Node 20 opens databases with 12 (compiled at install) and Node 22 or newer with 13.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import NodeApiDatabase from "better-sqlite3-napi";

export type SqliteDatabase = Database.Database;
export type SqliteStatement<
  BindParameters extends unknown[] | object = unknown[],
  Result = unknown,
> = Database.Statement<BindParameters, Result>;

/** The package name the Node-API build is installed under (an npm alias of better-sqlite3 13). */
export const NODE_API_PACKAGE = "better-sqlite3-napi";

export function usesNodeApiBuild(nodeVersion = process.versions.node): boolean {
  return Number(nodeVersion.split(".")[0]) >= 22;
}

let chosen: { open: (path: string, options: Database.Options) => SqliteDatabase } | undefined;

/**
 * The directory a package is installed in, found the way Node's resolver would find it (the
 * nearest `node_modules/<name>` above this module) but without the resolver itself: its first
 * use costs a one-shot run a few milliseconds of compiling Node's own code. Falls back to
 * `require.resolve` for layouts the walk does not know.
 */
export function installedPackageDir(
  name: string,
  require: NodeJS.Require,
  from = dirname(fileURLToPath(import.meta.url)),
): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (!dir.endsWith(`${sep}node_modules`) && existsSync(join(dir, "node_modules", name, "package.json"))) {
      return join(dir, "node_modules", name);
    }
    if (dirname(dir) === dir) break;
  }
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

/** Whether this Linux process runs on musl, from the dynamic loader mapped into it. */
function onMusl(): boolean {
  try {
    return /\/ld-musl-[^/\s]*\.so/.test(readFileSync("/proc/self/maps", "latin1"));
  } catch {
    return false;
  }
}

/**
 * Where a build's addon is: compiled at install (`build/Release`) or, for the Node-API build,
 * the prebuilt one for this platform. Given to better-sqlite3 as `nativeBinding`, so it neither
 * probes a dozen paths through the `bindings` package (release 12) nor looks beside its own
 * files, which inside the CLI bundle are not where the package is (release 13).
 */
export function addonPath(packageDir: string, prebuilt: boolean): string | undefined {
  const compiled = join(packageDir, "build", "Release", "better_sqlite3.node");
  if (existsSync(compiled)) return compiled;
  if (!prebuilt) return undefined;
  const platform = process.platform === "linux" && onMusl() ? "linuxmusl" : process.platform;
  const path = join(packageDir, "prebuilds", `${platform}-${process.arch}.node`);
  return existsSync(path) ? path : undefined;
}

function driver(): NonNullable<typeof chosen> {
  if (chosen) return chosen;
  const require = createRequire(import.meta.url);
  const nodeApi = usesNodeApiBuild();
  const name = nodeApi ? NODE_API_PACKAGE : "better-sqlite3";
  const dir = installedPackageDir(name, require);
  const addon = dir === undefined ? undefined : addonPath(dir, nodeApi);
  const binding: Database.Options = addon === undefined ? {} : { nativeBinding: addon };
  const Build = nodeApi ? NodeApiDatabase : Database;
  chosen = { open: (path, options) => new Build(path, { ...options, ...binding }) };
  return chosen;
}

/** Opens `path` (or ":memory:") with the better-sqlite3 build that is safe on this Node. */
export function openSqliteDatabase(path: string, options: Database.Options = {}): SqliteDatabase {
  return driver().open(path, options);
}
