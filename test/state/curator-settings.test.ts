import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerCuratorCommands } from "../../src/cli/commands/curator.js";
import { ConfigError, loadConfig } from "../../src/state/config.js";
import { describeHours, resolveCuratorSettings } from "../../src/state/curator-settings.js";
import { run, tempHome } from "../cli/commands/state-command-harness.js";

function homeWith(yaml: string): string {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), yaml);
  return home;
}

const settingsOf = (yaml: string) => resolveCuratorSettings(loadConfig({ home: homeWith(yaml) }).config);

test("with nothing set the curator runs on the original's defaults", () => {
  assert.deepEqual(settingsOf(""), {
    enabled: true,
    intervalHours: 168,
    minIdleHours: 2,
    staleAfterDays: 30,
    archiveAfterDays: 90,
    consolidate: false,
    pruneBuiltins: true,
    backup: { enabled: true, keep: 5 },
  });
});

test("every curator.* key is read", () => {
  const settings = settingsOf(
    [
      "curator:",
      "  enabled: false",
      "  interval_hours: 36",
      "  min_idle_hours: 0.5",
      "  stale_after_days: 10",
      "  archive_after_days: 20",
      "  consolidate: true",
      "  prune_builtins: false",
      "  backup:",
      "    enabled: false",
      "    keep: 3",
      "",
    ].join("\n"),
  );
  assert.deepEqual(settings, {
    enabled: false,
    intervalHours: 36,
    minIdleHours: 0.5,
    staleAfterDays: 10,
    archiveAfterDays: 20,
    consolidate: true,
    pruneBuiltins: false,
    backup: { enabled: false, keep: 3 },
  });
});

test("a learning.curator.* key that is set wins over curator.*, key by key; interval_days counts in days", () => {
  const both = settingsOf(
    "curator:\n  interval_hours: 12\n  stale_after_days: 10\n  archive_after_days: 20\nlearning:\n  curator:\n    interval_days: 3\n    stale_after_days: 45\n",
  );
  assert.equal(both.intervalHours, 72, "interval_days: 3 is 72 hours and wins over interval_hours");
  assert.equal(both.staleAfterDays, 45);
  assert.equal(both.archiveAfterDays, 20, "unset under learning.curator: curator.* applies");
  const legacyOnly = settingsOf("learning:\n  curator:\n    archive_after_days: 60\n");
  assert.equal(legacyOnly.archiveAfterDays, 60);
  assert.equal(legacyOnly.intervalHours, 168);
});

test("bad curator values are refused with their path", () => {
  for (const [yaml, path] of [
    ["curator:\n  backup:\n    keep: 0\n", "curator.backup.keep"],
    ["curator:\n  min_idle_hours: -1\n", "curator.min_idle_hours"],
    ["curator:\n  interval_hours: 0\n", "curator.interval_hours"],
    ["curator:\n  prune_builtins: sometimes\n", "curator.prune_builtins"],
    ["learning:\n  curator:\n    interval_days: 0\n", "learning.curator.interval_days"],
  ] as const) {
    assert.throws(
      () => loadConfig({ home: homeWith(yaml) }),
      (error: unknown) => error instanceof ConfigError && error.message.includes(path),
      path,
    );
  }
});

test("the original's curator keys count as acted on", () => {
  const { notActedOn } = loadConfig({
    home: homeWith(
      "curator:\n  enabled: true\n  interval_hours: 168\n  min_idle_hours: 2\n  stale_after_days: 30\n  archive_after_days: 90\n  consolidate: false\n  prune_builtins: true\n  backup:\n    enabled: true\n    keep: 5\n",
    ),
  });
  assert.deepEqual(notActedOn, []);
});

test("hermes curator status shows the resolved schedule and rules", async () => {
  const home = homeWith("curator:\n  interval_hours: 36\n  min_idle_hours: 1\n  backup:\n    keep: 3\n");
  const out = (await run(registerCuratorCommands, home, ["curator", "status"])).out;
  assert.match(out, /^last run: never \(every 36 hours when a session starts, after 1 hour without a session\)\n/);
  assert.match(
    out,
    /stale after 30 days, archived after 90; bundled skills judged like yours; backups: the newest 3 kept; consolidation: off/,
  );
  const off = homeWith("curator:\n  enabled: false\n  prune_builtins: false\n  backup:\n    enabled: false\n");
  const offOut = (await run(registerCuratorCommands, off, ["curator", "status"])).out;
  assert.match(offOut, /scheduled runs off \(curator\.enabled: false\)/);
  assert.match(offOut, /bundled skills left alone; backups: off/);
  assert.equal(describeHours(168), "7 days");
});
