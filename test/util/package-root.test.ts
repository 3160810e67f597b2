import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { pathToFileURL } from "node:url";
import { PACKAGE_NAME, packageRoot } from "../../src/util/package-root.js";

const base = mkdtempSync(join(tmpdir(), "hermes-package-root-"));
after(() => rmSync(base, { recursive: true, force: true }));

function layout(name: string, manifests: Record<string, unknown>): string {
  const root = join(base, name);
  for (const [dir, manifest] of Object.entries(manifests)) {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, "package.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
  }
  return root;
}

const moduleUrl = (path: string) => pathToFileURL(path).href;

test("finds the package from a module in src/, in tsc's dist/ and in a bundled chunk", () => {
  const root = layout("plain", { ".": { name: PACKAGE_NAME, version: "1.2.3" } });
  assert.equal(packageRoot(moduleUrl(join(root, "src/util/version.ts"))), root);
  assert.equal(packageRoot(moduleUrl(join(root, "dist/tools/skills/seed.js"))), root);
  assert.equal(packageRoot(moduleUrl(join(root, "dist/cli/chunks/chunk-ABC.js"))), root);
  assert.equal(packageRoot(moduleUrl(join(root, "dist/cli/main.js"))), root);
});

test("walks past package.json files of other packages and unreadable ones", () => {
  const app = layout("installed", {
    ".": { name: "my-app" },
    [`node_modules/${PACKAGE_NAME}`]: { name: PACKAGE_NAME },
    [`node_modules/${PACKAGE_NAME}/dist`]: { type: "module" },
    [`node_modules/${PACKAGE_NAME}/dist/cli`]: "{ not json",
  });
  const own = join(app, "node_modules", PACKAGE_NAME);
  assert.equal(packageRoot(moduleUrl(join(own, "dist/cli/chunks/program.js"))), own);
});

test("says where it looked when no package.json names the package", () => {
  const stray = layout("stray", { ".": { name: "something-else" } });
  const start = join(stray, "dist", "cli");
  assert.throws(
    () => packageRoot(moduleUrl(join(start, "main.js"))),
    (error: Error) => {
      assert.match(error.message, new RegExp(`"${PACKAGE_NAME}"`));
      assert.ok(error.message.includes(start));
      return true;
    },
  );
});
