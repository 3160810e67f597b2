import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import {
  CONTEXT_LENGTH_CACHE_FILE,
  cachedContextLength,
  readCacheLayout,
  readContextLengths,
  rememberContextLength,
} from "../../src/state/context-length-cache.js";

async function withHome(run: (home: string) => Promise<void>): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "hermes-context-cache-"));
  try {
    await run(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const ORIGINAL_FILE = [
  "context_lengths:",
  "  qwen3:32b@http://localhost:11434/v1: 40960",
  "  openai/gpt-oss-20b@http://localhost:1234/v1: 131072",
  "  '@scoped/model@http://h/v1': 8192",
  "  'it''s@http://h/v1': 4096",
  '  "plain in quotes@http://h/v1": 2048',
  "",
].join("\n");

test("the layout the cache is written in reads the same as a YAML parser reads it", () => {
  const files = [
    ORIGINAL_FILE,
    "context_lengths: {}\n",
    "# learned windows\ncontext_lengths:\n\n  a@http://h/v1: 1\n",
    "context_lengths:\n",
  ];
  for (const text of files) {
    const fast = readCacheLayout(text);
    assert.ok(fast, text);
    const parsed = (parse(text) as { context_lengths: Record<string, number> | null }).context_lengths ?? {};
    assert.deepEqual(Object.fromEntries(fast), parsed, text);
  }
});

test("anything beyond that layout is left to the YAML parser", () => {
  for (const text of [
    "context_lengths: {a@http://h/v1: 1}\n", // flow mapping
    "context_lengths:\n    a@http://h/v1: 1\n", // other indent
    "context_lengths:\n  a: b@http://h/v1: 1\n", // a plain key may not hold ': '
    "context_lengths:\n  a@http://h/v1 #x: 1\n", // nor ' #'
    'context_lengths:\n  "esc\\"aped@h": 1\n', // escapes in double quotes
    "context_lengths:\n  'a'b'@h': 1\n", // a lone quote inside single quotes
    "context_lengths:\n  '@h': 1\n  '@h': 2\n", // repeated key
    "context_lengths:\n  a@h: 0\n", // not a window
    "context_lengths:\n  a@h: 1e3\n",
    "context_lengths:\r\n  a@h: 1\r\n",
    "other: 1\ncontext_lengths:\n  a@h: 1\n",
    "",
  ]) {
    assert.equal(readCacheLayout(text), undefined, text);
  }
});

test("a file beyond the layout is still read, keeping only positive whole windows", async () => {
  await withHome(async (home) => {
    writeFileSync(
      join(home, CONTEXT_LENGTH_CACHE_FILE),
      "other: true\ncontext_lengths: {a@http://h/v1: 1000, b@http://h/v1: -1, c@http://h/v1: x, d@h: 1.5}\n",
    );
    assert.deepEqual([...(await readContextLengths(home))], [["a@http://h/v1", 1000]]);
  });
});

test("a missing, broken or foreign file reads as an empty cache", async () => {
  await withHome(async (home) => {
    assert.equal((await readContextLengths(home)).size, 0);
    for (const text of ["context_lengths: [1, 2]\n", "{ not yaml: [\n", "- a\n- b\n", "null\n"]) {
      writeFileSync(join(home, CONTEXT_LENGTH_CACHE_FILE), text);
      assert.equal((await readContextLengths(home)).size, 0, text);
    }
  });
});

test("remembering a window keeps the other entries and writes keys sorted, in the original's layout", async () => {
  await withHome(async (home) => {
    const path = join(home, CONTEXT_LENGTH_CACHE_FILE);
    writeFileSync(path, ORIGINAL_FILE);
    await rememberContextLength(home, "m", "http://127.0.0.1:8080/v1", 65_536);
    await rememberContextLength(home, "qwen3:32b", "http://localhost:11434/v1", 32_768);
    const written = readFileSync(path, "utf8");
    const fast = readCacheLayout(written);
    assert.ok(fast, written);
    assert.deepEqual([...fast.keys()], [...fast.keys()].sort());
    assert.equal(fast.get("m@http://127.0.0.1:8080/v1"), 65_536);
    assert.equal(fast.get("qwen3:32b@http://localhost:11434/v1"), 32_768);
    assert.equal(fast.get("it's@http://h/v1"), 4096);
    assert.equal(fast.size, 6);
    assert.equal(await cachedContextLength(home, "@scoped/model", "http://h/v1"), 8192);
    assert.equal(await cachedContextLength(home, "m", "http://127.0.0.1:8080/v1/"), undefined, "the URL as given");
  });
});

test("a broken cache is replaced by the next window learned", async () => {
  await withHome(async (home) => {
    writeFileSync(join(home, CONTEXT_LENGTH_CACHE_FILE), "{ not yaml: [\n");
    await rememberContextLength(home, "m", "http://h/v1", 100_000);
    assert.deepEqual([...(await readContextLengths(home))], [["m@http://h/v1", 100_000]]);
  });
});
