/**
 * Which better-sqlite3 build opens our databases. Releases up to 12 derive their statements from
 * `node::ObjectWrap`, whose destructor aborts the whole process on Node 24.19 and later when a
 * statement is garbage-collected outside a JavaScript context (an idle GC, or exit). Release 13
 * is built on Node-API, ships prebuilt addons and has no such destructor, but crashes on Node 20.
 * So Node 20 opens databases with 12 (compiled at install) and Node 22 or newer with 13.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import Database from "better-sqlite3";

export type SqliteDatabase = Database.Database;
export type SqliteStatement<
  BindParameters extends unknown[] | object = unknown[],
  Result = unknown,
> = Database.Statement<BindParameters, Result>;
type DatabaseClass = typeof Database;

/** The package name the Node-API build is installed under (an npm alias of better-sqlite3 13). */
export const NODE_API_PACKAGE = "better-sqlite3-napi";

export function usesNodeApiBuild(nodeVersion = process.versions.node): boolean {
  return Number(nodeVersion.split(".")[0]) >= 22;
}

let chosen: { open: (path: string, options: Database.Options) => SqliteDatabase } | undefined;

/**
 * Where the compiled addon of the Node 20 build is, when it is where npm builds it: otherwise
 * better-sqlite3 finds it through the `bindings` package, which probes a dozen paths per start.
 */
function compiledAddon(require: NodeJS.Require): Database.Options {
  try {
    const manifest = require.resolve("better-sqlite3/package.json");
    const addon = manifest.replace(/package\.json$/, "build/Release/better_sqlite3.node");
    return existsSync(addon) ? { nativeBinding: addon } : {};
  } catch {
    return {};
  }
}

function driver(): NonNullable<typeof chosen> {
  if (chosen) return chosen;
  const require = createRequire(import.meta.url);
  if (usesNodeApiBuild()) {
    const NodeApiDatabase = require(NODE_API_PACKAGE) as DatabaseClass;
    chosen = { open: (path, options) => new NodeApiDatabase(path, options) };
  } else {
    const addon = compiledAddon(require);
    chosen = { open: (path, options) => new Database(path, { ...options, ...addon }) };
  }
  return chosen;
}

/** Opens `path` (or ":memory:") with the better-sqlite3 build that is safe on this Node. */
export function openSqliteDatabase(path: string, options: Database.Options = {}): SqliteDatabase {
  return driver().open(path, options);
}
