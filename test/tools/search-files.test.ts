import assert from "node:assert/strict";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { matchesFileGlob } from "../../src/tools/builtin/glob.js";
import {
  chooseSearchBackend,
  compilePattern,
  nodeBackend,
  ripgrepBackend,
  type SearchBackend,
} from "../../src/tools/builtin/search-backends.js";
import {
  registerSearchFilesTool,
  type SearchFilesArgs,
  searchFilesTool,
} from "../../src/tools/builtin/search-files.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { findExecutable } from "../../src/util/executable.js";
import { callTool, makeContext, tempDir } from "./tool-harness.js";

const root = tempDir("search");
const files: Record<string, string | Buffer> = {
  "src/app.ts": "const alpha = 1;\nfunction beta() {}\n// TODO fix\n",
  "src/util.py": "def beta():\n    return 'TODO'\n",
  ".gitignore": "build/\n*.log\n",
  "build/out.js": "TODO in build\n",
  "debug.log": "TODO in log\n",
  "node_modules/pkg/index.js": "TODO in dependency\n",
  ".git/config": "TODO in git\n",
  "image.bin": Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from("TODO in binary\n")]),
  "docs/readme.md": "Nothing here\nTODO docs\n",
  ".hidden/notes.txt": "TODO hidden\n",
  "sub/.gitignore": "local.txt\n",
  "sub/local.txt": "TODO local\n",
  "sub/kept.txt": "TODO kept\n",
};
let age = 0;
for (const [path, content] of Object.entries(files)) {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
  // Distinct modification times, older for files listed first.
  age++;
  const when = new Date(Date.UTC(2024, 0, 1, 0, age));
  utimesSync(full, when, when);
}
const ctx = makeContext(root);

const rg = findExecutable("rg");
const backends: SearchBackend[] = [nodeBackend, ...(rg ? [ripgrepBackend(rg)] : [])];

async function search(backend: SearchBackend, args: SearchFilesArgs): Promise<Record<string, unknown>> {
  return JSON.parse(await searchFilesTool(args, ctx, { backend }));
}

for (const backend of backends) {
  test(`[${backend.name}] content search honours .gitignore and skips .git, node_modules and binaries`, async () => {
    const result = await search(backend, { pattern: "TODO" });
    const matches = result.matches as Array<{ path: string; line: number; content: string }>;
    assert.deepEqual(
      matches.map((m) => `${m.path}:${m.line}`),
      [".hidden/notes.txt:1", "docs/readme.md:2", "src/app.ts:3", "src/util.py:2", "sub/kept.txt:1"],
    );
    assert.equal(result.total_count, 5);
    assert.equal(matches[2]?.content, "// TODO fix");
  });

  test(`[${backend.name}] file_glob narrows the files searched`, async () => {
    const result = await search(backend, { pattern: "beta", file_glob: "*.py" });
    assert.deepEqual(result.matches, [{ path: "src/util.py", line: 1, content: "def beta():" }]);
  });

  test(`[${backend.name}] context lines come with each match`, async () => {
    const result = await search(backend, { pattern: "function beta", context: 1 });
    assert.deepEqual(result.matches, [
      {
        path: "src/app.ts",
        line: 2,
        content: "function beta() {}",
        context_before: ["     1|const alpha = 1;"],
        context_after: ["     3|// TODO fix"],
      },
    ]);
  });

  test(`[${backend.name}] files_only and count output modes`, async () => {
    const only = await search(backend, { pattern: "beta", output_mode: "files_only" });
    assert.deepEqual(only.files, ["src/app.ts", "src/util.py"]);
    const counts = await search(backend, { pattern: "TODO|beta", output_mode: "count", path: "src" });
    assert.deepEqual(counts.counts, [
      { path: "src/app.ts", count: 2 },
      { path: "src/util.py", count: 2 },
    ]);
  });

  test(`[${backend.name}] pages long results with a note giving the next offset`, async () => {
    const first = await search(backend, { pattern: "TODO", limit: 2 });
    assert.equal((first.matches as unknown[]).length, 2);
    assert.match(String(first.note), /offset=2/);
    const second = await search(backend, { pattern: "TODO", limit: 2, offset: 4 });
    assert.deepEqual(
      (second.matches as Array<{ path: string }>).map((m) => m.path),
      ["sub/kept.txt"],
    );
    assert.equal(second.note, undefined);
  });

  test(`[${backend.name}] files target lists names matching a glob, newest first`, async () => {
    const text = await search(backend, { pattern: "*.txt", target: "files" });
    assert.deepEqual(text.files, ["sub/kept.txt", ".hidden/notes.txt"]);
    const bare = await search(backend, { pattern: "readme", target: "files" });
    assert.deepEqual(bare.files, ["docs/readme.md"]);
  });

  test(`[${backend.name}] a bad regular expression is an error result`, async () => {
    const result = await search(backend, { pattern: "([" });
    assert.equal(typeof result.error, "string");
  });

  test(`[${backend.name}] searching a single file works whatever the glob`, async () => {
    const result = await search(backend, { pattern: "alpha", path: "src/app.ts", file_glob: "*.py" });
    assert.equal(result.total_count, 1);
  });
}

test("HERMES_SEARCH_BACKEND=node forces the Node walker", () => {
  assert.equal(chooseSearchBackend("node").name, "node");
  if (rg) assert.equal(chooseSearchBackend("auto").name, "rg");
});

test("findExecutable only finds programs on the given PATH", () => {
  assert.equal(findExecutable("rg", "/nonexistent-dir"), undefined);
});

test("the registered tool reports a missing path and is parallel-safe", async () => {
  const registry = new ToolRegistry();
  registerSearchFilesTool(registry, { backend: nodeBackend });
  const result = await callTool(registry, "search_files", { pattern: "x", path: "no/such/dir" }, ctx);
  assert.match(String(result.error), /not found/);
  assert.equal(registry.get("search_files")?.parallelSafe, true);
});

test("inline (?i) flags work in the Node backend", () => {
  assert.equal(compilePattern("(?i)todo").test("TODO"), true);
});

test("file globs match names at any depth, or paths when they hold a slash", () => {
  assert.equal(matchesFileGlob("a/b/c.ts", "*.ts"), true);
  assert.equal(matchesFileGlob("a/b/c.ts", "a/*.ts"), false);
  assert.equal(matchesFileGlob("a/b/c.ts", "a/**/*.ts"), true);
  assert.equal(matchesFileGlob("a/c.tsx", "*.{ts,tsx}"), true);
});
