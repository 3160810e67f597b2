import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { addonPath, installedPackageDir, usesNodeApiBuild } from "../../src/state/sqlite-driver.js";

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

function withTree(files: string[], run: (root: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), "hermes-sqlite-driver-tree-"));
  try {
    for (const file of files) {
      mkdirSync(join(root, file, ".."), { recursive: true });
      writeFileSync(join(root, file), "{}");
    }
    run(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test("a package is found in the nearest node_modules above the module, as Node's resolver finds it", () => {
  const require = createRequire(import.meta.url);
  withTree(["app/node_modules/pkg/package.json", "node_modules/pkg/package.json", "app/lib/deep/x"], (root) => {
    assert.equal(
      installedPackageDir("pkg", require, join(root, "app", "lib", "deep")),
      join(root, "app", "node_modules", "pkg"),
    );
  });
  // A dependency installed beside the package (node_modules/hermes-agent/dist/cli next to node_modules/pkg).
  withTree(["node_modules/pkg/package.json", "node_modules/hermes-agent/dist/cli/x"], (root) => {
    const from = join(root, "node_modules", "hermes-agent", "dist", "cli");
    assert.equal(installedPackageDir("pkg", require, from), join(root, "node_modules", "pkg"));
  });
  // No walk finds it: Node's resolver decides (here, this project's own install).
  withTree(["lib/x"], (root) => {
    assert.equal(
      installedPackageDir("better-sqlite3", require, join(root, "lib")),
      resolve("node_modules", "better-sqlite3"),
    );
    assert.equal(installedPackageDir("no-such-package-anywhere", require, join(root, "lib")), undefined);
  });
});

test("the addon is the one compiled at install, else the prebuilt one for this platform", () => {
  const prebuilt = `prebuilds/${process.platform}-${process.arch}.node`;
  withTree(["build/Release/better_sqlite3.node", prebuilt], (root) => {
    assert.equal(addonPath(root, true), join(root, "build", "Release", "better_sqlite3.node"));
  });
  withTree([prebuilt, "prebuilds/other-os.node"], (root) => {
    assert.equal(addonPath(root, true), join(root, prebuilt));
    assert.equal(addonPath(root, false), undefined, "release 12 ships no prebuilt addons");
  });
  withTree(["prebuilds/other-os.node"], (root) => assert.equal(addonPath(root, true), undefined));
});
