import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

function hermes(args: string[], home: string): string {
  return execFileSync(process.execPath, ["dist/cli/main.js", ...args], {
    encoding: "utf8",
    env: { ...process.env, HERMES_HOME: home },
  });
}

function withHome(run: (home: string) => void): void {
  const home = mkdtempSync(join(tmpdir(), "hermes-bundle-"));
  try {
    run(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

test("the bundled CLI reads package.json from the bundle in dist/cli/", () => {
  withHome((home) => assert.equal(hermes(["version"], home).trim(), `hermes ${pkg.version}`));
});

test("the bundled CLI seeds the package's skills/ folder", () => {
  withHome((home) => {
    const out = hermes(["skills", "list"], home);
    assert.match(out, /debugging/);
    assert.ok(existsSync(join(home, "skills", "software-development", "debugging", "SKILL.md")));
  });
});

test("tsc's dist/ tree finds package.json and skills/ from its own layout", () => {
  const script = `
    const { packageVersion } = await import("./dist/util/version.js");
    const { bundledSkillsDir } = await import("./dist/tools/skills/seed.js");
    console.log(JSON.stringify({ version: packageVersion(), skills: bundledSkillsDir() }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.deepEqual(JSON.parse(out), { version: pkg.version, skills: resolve("skills") });
});

test("the library entry stays tsc's unbundled output", () => {
  const library = readFileSync("dist/index.js", "utf8");
  assert.doesNotMatch(library, /hermes-cli-bundle/);
  assert.match(library, /from "\.\/agent\/agent\.js"/);
  const meta = JSON.parse(readFileSync("dist/cli/bundle-meta.json", "utf8")) as { outputs: Record<string, unknown> };
  assert.deepEqual(
    Object.keys(meta.outputs).filter((file) => !file.startsWith("dist/cli/")),
    [],
  );
});

test("the published package holds the bundle and the skills, not the metafile or code caches", () => {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { encoding: "utf8" });
  const [packed] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
  const files = new Set(packed?.files.map((f) => f.path));
  for (const file of [
    "dist/cli/main.js",
    "dist/cli/hermes.cjs",
    "dist/index.js",
    "skills/software-development/debugging/SKILL.md",
  ]) {
    assert.ok(files.has(file), `${file} is packed`);
  }
  assert.ok(!files.has("dist/cli/bundle-meta.json"));
  assert.deepEqual(
    [...files].filter((file) => file.endsWith(".v8cache")),
    [],
  );
  const chunks = readFileSync("dist/cli/bundle-meta.json", "utf8");
  const outputs = Object.keys((JSON.parse(chunks) as { outputs: Record<string, unknown> }).outputs);
  assert.deepEqual(
    outputs.filter((file) => !files.has(file)),
    [],
  );
});

const BUNDLES = ["dist/cli/hermes.cjs", "dist/cli/hermes-more.cjs"];

test("the bundles load packages with require(), never import(), which a cached script cannot use on Node 20", () => {
  const texts = BUNDLES.map((file) => readFileSync(file, "utf8"));
  for (const text of texts) assert.doesNotMatch(text, /\bimport\(/);
  assert.ok(
    texts.some((text) => /require\("@modelcontextprotocol\/sdk\/client\/index\.js"\)/.test(text)),
    "the MCP client is required from node_modules",
  );
});

test("the bundles are ASCII, so the loader reads them as latin1 into one-byte strings", () => {
  for (const file of BUNDLES) {
    const bundle = readFileSync(file);
    const offending = bundle.findIndex((byte) => byte > 0x7f);
    assert.equal(offending, -1, `${file}: non-ASCII byte at ${offending}`);
  }
  // The sources do use non-ASCII characters in regular expressions; the build escapes them.
  assert.ok(BUNDLES.some((file) => /\\u201c\\u201d\\u2018\\u2019/.test(readFileSync(file, "latin1"))));
});

test("each module is in one bundle, and the bundles reach each other's modules by name", () => {
  const meta = JSON.parse(readFileSync("dist/cli/bundle-meta.json", "utf8")) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  const [first, more] = BUNDLES.map((file) => Object.keys(meta.outputs[file]?.inputs ?? {}));
  const shared = first!.filter((input) => more!.includes(input) && !input.includes(".entry.js"));
  assert.deepEqual(shared, []);
  assert.ok(
    more!.some((input) => input.startsWith("dist/cli/tui/")),
    "the terminal UI is in the second bundle",
  );
  assert.ok(first!.includes("dist/agent/agent.js"), "the agent is in the first bundle");
  assert.match(readFileSync(BUNDLES[1]!, "latin1"), /require\("hermes-chunk:dist\/util\/[\w-]+\.js"\)/);
});
