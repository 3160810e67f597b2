import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { configCachePath, writeCachedConfig } from "../../src/state/config-cache.js";
import { loadConfigAsync } from "../../src/state/config-load.js";
import { publishBuildId } from "../../src/util/build-id.js";

let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "hermes-config-cache-"));
  publishBuildId("build-a");
});

afterEach(() => {
  delete (globalThis as Record<string, unknown>).__hermesBuildId;
  rmSync(home, { recursive: true, force: true });
});

function writeConfig(text: string): void {
  writeFileSync(join(home, "config.yaml"), text);
}

/** Rewrites the cached result, so a load that returns the change can only have read the cache. */
function tamperWithCache(change: (config: { agent: { max_turns: number } }) => void): void {
  const file = JSON.parse(readFileSync(configCachePath(home), "utf8")) as {
    result: { config: { agent: { max_turns: number } } };
  };
  change(file.result.config);
  writeFileSync(configCachePath(home), JSON.stringify(file));
}

test("a start whose config.yaml is unchanged takes the validated config from the cache, warnings included", async () => {
  writeConfig("agent:\n  max_turns: 12\n  max_turn: 5\n");
  const first = await loadConfigAsync({ home });
  assert.equal(first.config.agent.max_turns, 12);
  assert.equal(statSync(configCachePath(home)).mode & 0o777, 0o600);
  tamperWithCache((config) => {
    config.agent.max_turns = 77;
  });
  const second = await loadConfigAsync({ home });
  assert.equal(second.config.agent.max_turns, 77);
  assert.deepEqual(second.warnings, first.warnings);
  assert.match(second.warnings.join("\n"), /unknown key "agent.max_turn"/);
  assert.equal(second.path, join(home, "config.yaml"));
});

test("a changed config.yaml is validated again: a bad value fails though a cache exists", async () => {
  writeConfig("agent:\n  max_turns: 12\n");
  await loadConfigAsync({ home });
  writeConfig("compression:\n  threshold: 7\n");
  await assert.rejects(loadConfigAsync({ home }), /compression\.threshold/);
  writeConfig("agent:\n  max_turns: 13\n");
  assert.equal((await loadConfigAsync({ home })).config.agent.max_turns, 13);
});

test("a file beyond the simple subset is cached like any other", async () => {
  writeConfig("agent:\n  max_turns: &n 21\ndelegation:\n  max_iterations: *n\n");
  assert.equal((await loadConfigAsync({ home })).config.delegation.max_iterations, 21);
  tamperWithCache((config) => {
    config.agent.max_turns = 5;
  });
  assert.equal((await loadConfigAsync({ home })).config.agent.max_turns, 5);
});

test("another build's cache, a damaged one, or another home's is not used", async () => {
  writeConfig("agent:\n  max_turns: 12\n");
  await loadConfigAsync({ home });
  tamperWithCache((config) => {
    config.agent.max_turns = 77;
  });
  publishBuildId("build-b");
  assert.equal((await loadConfigAsync({ home })).config.agent.max_turns, 12);
  writeFileSync(configCachePath(home), "{not json");
  assert.equal((await loadConfigAsync({ home })).config.agent.max_turns, 12);

  const other = mkdtempSync(join(tmpdir(), "hermes-config-cache-other-"));
  try {
    writeConfig("agent:\n  max_turns: 12\n");
    writeFileSync(join(other, "config.yaml"), "agent:\n  max_turns: 12\n");
    tamperWithCache((config) => {
      config.agent.max_turns = 77;
    });
    // The same text under another home: the cache names the file it validated.
    const copied = readFileSync(configCachePath(home), "utf8");
    await loadConfigAsync({ home: other });
    writeFileSync(configCachePath(other), copied);
    assert.equal((await loadConfigAsync({ home: other })).config.agent.max_turns, 12);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test("from source (no build id) nothing is cached", async () => {
  delete (globalThis as Record<string, unknown>).__hermesBuildId;
  writeConfig("agent:\n  max_turns: 12\n");
  await loadConfigAsync({ home });
  assert.equal(existsSync(configCachePath(home)), false);
});

test("a result JSON cannot carry whole is not cached", () => {
  writeCachedConfig(home, join(home, "config.yaml"), "", {
    config: { agent: { max_turns: Number.POSITIVE_INFINITY } } as never,
    warnings: [],
    notActedOn: [],
  });
  assert.equal(existsSync(configCachePath(home)), false);
});
