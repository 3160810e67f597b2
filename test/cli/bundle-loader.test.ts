import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { BUNDLE_WRAPPER, cachePathFor } from "../../src/cli/bundle-loader.js";

/** A stand-in bundle: CommonJS that uses what the real one uses (require, its own URL). */
const BUNDLE = `
const { basename } = require("node:path");
exports.runCli = async (argv) => {
  const { EOL } = await Promise.resolve().then(() => require("node:os"));
  process.stdout.write(JSON.stringify({ file: basename(__filename), url: __hermesBundleUrl, args: argv.slice(2), eol: EOL }));
  return argv.includes("--fail") ? 2 : 0;
};
`;

const LOADER = pathToFileURL(resolve("src/cli/bundle-loader.ts")).href;

function runLoader(bundle: string, ...args: string[]): Record<string, unknown> {
  return JSON.parse(runLoaderRaw(bundle, ...args).stdout) as Record<string, unknown>;
}

function runLoaderRaw(bundle: string, ...args: string[]): { status: number | null; stdout: string } {
  return runLoaderWith(bundle, "{}", ...args);
}

/** `options`: the loader's options, as JavaScript source. */
function runLoaderWith(bundle: string, options: string, ...args: string[]): { status: number | null; stdout: string } {
  const script = `
    const { loadBundledCli } = await import(${JSON.stringify(LOADER)});
    const cli = loadBundledCli(new URL(${JSON.stringify(pathToFileURL(bundle).href)}), "test-id", "chat", ${options});
    process.exitCode = await cli.runCli(["node", "hermes", ...process.argv.slice(1)]);`;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, "--", ...args], {
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout };
}

test("the bundle runs with CommonJS names and its own URL, and leaves a code cache", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-loader-"));
  try {
    const bundle = join(dir, "hermes.cjs");
    writeFileSync(bundle, BUNDLE);
    const result = runLoader(bundle, "chat", "-q", "hi");
    assert.deepEqual(result, {
      file: "hermes.cjs",
      url: pathToFileURL(bundle).href,
      args: ["chat", "-q", "hi"],
      eol: "\n",
    });
    const cache = cachePathFor(bundle, "test-id", "chat");
    assert.ok(existsSync(cache), "a code cache was written");
    const written = statSync(cache).mtimeMs;
    runLoader(bundle);
    assert.equal(statSync(cache).mtimeMs, written, "an accepted cache is reused, not rewritten");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a bundle the build wrapped runs as it is, with a code cache like any other", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-loader-"));
  try {
    const bundle = join(dir, "hermes.cjs");
    writeFileSync(bundle, `${BUNDLE_WRAPPER.head}${BUNDLE}${BUNDLE_WRAPPER.tail}`);
    assert.deepEqual(runLoader(bundle, "wrapped").args, ["wrapped"]);
    assert.ok(existsSync(cachePathFor(bundle, "test-id", "chat")), "a code cache was written");
    assert.deepEqual(runLoader(bundle, "again").args, ["again"], "and it is accepted");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the built bundles are written wrapped, so the loader compiles their text without copying it", () => {
  for (const file of ["hermes.cjs", "hermes-more.cjs"]) {
    const text = readFileSync(resolve("dist/cli", file), "latin1");
    assert.ok(text.startsWith(BUNDLE_WRAPPER.head), `${file} starts with the wrapper`);
    assert.ok(text.endsWith(BUNDLE_WRAPPER.tail), `${file} ends with it`);
  }
});

test("a corrupt code cache is ignored and replaced", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-loader-"));
  try {
    const bundle = join(dir, "hermes.cjs");
    writeFileSync(bundle, BUNDLE);
    const cache = cachePathFor(bundle, "test-id", "chat");
    writeFileSync(cache, "not a code cache");
    assert.deepEqual(runLoader(bundle, "x").args, ["x"]);
    assert.notEqual(readFileSync(cache, "utf8"), "not a code cache");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a run that fails leaves no code cache; the first one that succeeds writes it", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-loader-"));
  try {
    const bundle = join(dir, "hermes.cjs");
    writeFileSync(bundle, BUNDLE);
    const cache = cachePathFor(bundle, "test-id", "chat");
    assert.equal(runLoaderRaw(bundle, "--fail").status, 2);
    assert.equal(existsSync(cache), false);
    assert.equal(runLoaderRaw(bundle, "ok").status, 0);
    assert.equal(existsSync(cache), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("each V8 version has its own code cache, so two Nodes sharing an install do not replace each other's", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-loader-"));
  try {
    const bundle = join(dir, "hermes.cjs");
    writeFileSync(bundle, BUNDLE);
    const otherNodes = join(dir, "hermes-test-id-chat-v8-1.0.0.v8cache");
    writeFileSync(otherNodes, "made by another Node");
    runLoader(bundle);
    const cache = cachePathFor(bundle, "test-id", "chat");
    assert.ok(cache.endsWith(`-v8-${process.versions.v8}.v8cache`));
    assert.ok(existsSync(cache));
    assert.equal(readFileSync(otherNodes, "utf8"), "made by another Node");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a successful run that its caller deems untypical writes no code cache", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-loader-"));
  try {
    const bundle = join(dir, "hermes.cjs");
    writeFileSync(bundle, BUNDLE);
    const cache = cachePathFor(bundle, "test-id", "chat");
    // Asked at exit, not at load: the run decides what it was while it runs.
    const decidedLate = "{ worthCaching: () => globalThis.typicalRun === true }";
    assert.equal(runLoaderWith(bundle, decidedLate, "help").status, 0);
    assert.equal(existsSync(cache), false);
    assert.equal(runLoaderWith(bundle, `(globalThis.typicalRun = false, ${decidedLate})`, "x").status, 0);
    assert.equal(existsSync(cache), false);
    assert.equal(
      runLoaderWith(bundle, `(setTimeout(() => { globalThis.typicalRun = true; }), ${decidedLate})`, "x").status,
      0,
    );
    assert.equal(existsSync(cache), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
