import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { usesNodeApiBuild } from "../../src/state/sqlite-driver.js";

const DRIVER = resolve(import.meta.dirname, "..", "..", "src", "state", "sqlite-driver.ts");

test("Node 20 opens databases with the compiled build, Node 22 and newer with the Node-API one", () => {
  assert.equal(usesNodeApiBuild("20.19.0"), false);
  assert.equal(usesNodeApiBuild("22.0.0"), true);
  assert.equal(usesNodeApiBuild("24.21.0"), true);
});

test("a process that prepared many statements and dropped them exits cleanly", () => {
  // Statements left for the garbage collector at exit abort the process with better-sqlite3 12
  // on Node 24.19+; the driver must pick a build for which this is safe on the running Node.
  const dir = mkdtempSync(join(tmpdir(), "hermes-sqlite-driver-"));
  try {
    const script = `
      import { openSqliteDatabase } from ${JSON.stringify(DRIVER)};
      const db = openSqliteDatabase(${JSON.stringify(join(dir, "t.db"))});
      db.exec("create table t (x)");
      db.prepare("insert into t values (?)").run(1);
      for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 500; i++) db.prepare("select count(*) as n from t where x > " + i).get();
        // Garbage alongside, so the collector runs while dropped statements are waiting.
        const churn = [];
        for (let i = 0; i < 20000; i++) churn.push({ i, text: "x".repeat(50) });
      }
      console.log(db.prepare("select count(*) as n from t").get().n);
    `;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    assert.equal(run.status, 0, `exit ${run.status} signal ${run.signal}: ${run.stderr.slice(-500)}`);
    assert.equal(run.stdout.trim(), "1");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
