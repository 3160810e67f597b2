"use strict";
// The better-sqlite3 build hermes uses on this Node, opened the way the floor scripts need it
// (bench/one-shot-floor.cjs, bench/api-server-floor.cjs): release 13 (Node-API) on Node 22 and
// newer, release 12 before, with the compiled addon or else the prebuilt one.
const { existsSync } = require("node:fs");
const { join } = require("node:path");

function openFloorDatabase(file) {
  const nodeApi = Number(process.versions.node.split(".")[0]) >= 22;
  const pkg = join(__dirname, "..", "node_modules", nodeApi ? "better-sqlite3-napi" : "better-sqlite3");
  const compiled = join(pkg, "build", "Release", "better_sqlite3.node");
  const nativeBinding = existsSync(compiled)
    ? compiled
    : join(pkg, "prebuilds", `${process.platform}-${process.arch}.node`);
  const Database = require(pkg);
  const db = new Database(file, { nativeBinding });
  db.pragma("journal_mode = WAL");
  return db;
}

module.exports = { openFloorDatabase };
