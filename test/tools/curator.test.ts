import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerCuratorCommands } from "../../src/cli/commands/curator.js";
import { LearningLedger } from "../../src/state/learning-ledger.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { lastCuratorRun, mergeCandidates, runCurator } from "../../src/tools/skills/curator.js";
import { discoverSkills } from "../../src/tools/skills/discovery.js";
import { registerSkillsTools } from "../../src/tools/skills/tools.js";
import { readUsage, recordSkillUse, updateUsage } from "../../src/tools/skills/usage.js";
import { run } from "../cli/commands/state-command-harness.js";
import { tempDir } from "../state/temp-dir.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 25);

function writeSkill(home: string, name: string, description: string, extra = ""): string {
  const dir = join(home, "skills", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n${extra}---\nSteps for ${name}.\n`,
  );
  return dir;
}

/** A home whose usage has been tracked for a year, with skills last used `ago` days before NOW. */
function homeWith(skills: Record<string, number>): string {
  const home = tempDir("hermes-curator-");
  for (const [name, ago] of Object.entries(skills)) {
    writeSkill(home, name, `the ${name} procedure`);
    recordSkillUse(home, name, "use", NOW - ago * DAY);
  }
  writeFileSync(join(home, "skills", ".curator.json"), JSON.stringify({ trackingSince: NOW - 365 * DAY }));
  return home;
}

const settings = { staleAfterDays: 30, archiveAfterDays: 90 };

test("a skill unused for 90 days is archived (backup first, recorded, undoable), one unused for 30 is marked stale, pinned and bundled ones stay", async () => {
  const home = homeWith({ "old-report": 120, "stale-lint": 40, "fresh-deploy": 1, "pinned-old": 400 });
  updateUsage(home, "pinned-old", (usage) => {
    usage.pinned = true;
  });
  writeSkill(home, "bundled-review", "bundled reviewing steps");
  writeFileSync(
    join(home, "skills", ".bundled_manifest.json"),
    JSON.stringify({ files: { "bundled-review/SKILL.md": "x" } }),
  );
  const ledger = new LearningLedger(home);
  const original = readFileSync(join(home, "skills", "old-report", "SKILL.md"), "utf8");

  const report = await runCurator({ home, now: NOW, ...settings, ledger });
  assert.deepEqual(
    report.archived.map((item) => item.name),
    ["old-report"],
  );
  assert.deepEqual(report.stale, ["stale-lint"]);
  assert.deepEqual(report.exempt.sort(), ["bundled-review", "pinned-old"]);
  assert.equal(existsSync(join(home, "skills", "old-report")), false);
  assert.equal(readFileSync(join(home, "skills", ".archive", "old-report", "SKILL.md"), "utf8"), original);
  assert.ok(report.backup && existsSync(join(report.backup, "old-report", "SKILL.md")), "the backup holds the skill");
  assert.equal(readUsage(home)["stale-lint"]?.staleSince, NOW);
  assert.equal(lastCuratorRun(home), NOW);
  assert.ok(
    !discoverSkills({ home }).skills.some((skill) => skill.name === "old-report"),
    "archived skills are not offered",
  );

  const [entry] = ledger.list();
  assert.equal(entry?.actor, "curator");
  ledger.undo(entry!.id);
  assert.equal(readFileSync(join(home, "skills", "old-report", "SKILL.md"), "utf8"), original);
  assert.deepEqual(readdirSync(join(home, "skills", ".archive")), [], "the archived copy is gone after the undo");
});

test("usage counted before tracking began does not make a skill stale: a first run archives nothing", async () => {
  const home = tempDir("hermes-curator-");
  writeSkill(home, "ancient", "written long ago");
  const report = await runCurator({ home, now: NOW + 1000 * DAY, ...settings });
  assert.deepEqual(report.archived, []);
  assert.deepEqual(report.stale, []);
  const later = await runCurator({ home, now: NOW + 1100 * DAY, ...settings });
  assert.deepEqual(
    later.archived.map((item) => item.name),
    ["ancient"],
    "100 days after tracking began it is archived",
  );
});

test("a dry run reports without changing anything; near-duplicate skills are proposed for merging, never merged", async () => {
  const home = homeWith({ "old-report": 120 });
  writeSkill(home, "release-notes", "Write release notes from the git log");
  writeSkill(home, "release-notes-git", "Write the release notes from git log");
  const report = await runCurator({ home, now: NOW, ...settings, dryRun: true });
  assert.deepEqual(
    report.archived.map((item) => item.name),
    ["old-report"],
  );
  assert.ok(existsSync(join(home, "skills", "old-report")), "a dry run moves nothing");
  assert.deepEqual(report.merges, [["release-notes", "release-notes-git"]]);
  assert.deepEqual(mergeCandidates(discoverSkills({ home }).skills.filter((s) => s.name === "old-report")), []);
});

test("skill_view counts a view; hermes curator status, pin and unpin", async () => {
  const home = homeWith({ "stale-lint": 40 });
  const registry = new ToolRegistry();
  registerSkillsTools(registry, { home });
  const view = registry.get("skill_view")!;
  await view.handler({ name: "stale-lint" }, { cwd: home, signal: new AbortController().signal });
  assert.equal(readUsage(home)["stale-lint"]?.views, 1);

  const curator = (...args: string[]) => run(registerCuratorCommands, home, ["curator", ...args]);
  assert.match((await curator("pin", "stale-lint")).out, /Pinned stale-lint/);
  assert.match((await curator("status")).out, /stale-lint: 1 views, 1 uses, last \d{4}-\d\d-\d\d, pinned/);
  await assert.rejects(curator("pin", "nope"), /no user skill named "nope"/);
  assert.equal((await curator("unpin", "stale-lint")).out, "Unpinned stale-lint.\n");
});

test("every run backs the skills folder up first, even with nothing to archive, and keeps the last five", async () => {
  const home = homeWith({ "fresh-deploy": 1 });
  for (let i = 0; i < 7; i++) {
    const report = await runCurator({ home, now: NOW + i * 1000, ...settings });
    assert.ok(report.backup && existsSync(join(report.backup, "fresh-deploy", "SKILL.md")));
  }
  assert.equal(readdirSync(join(home, "skills", ".curator-backups")).length, 5);
  assert.equal((await runCurator({ home, now: NOW + 9000, ...settings, dryRun: true })).backup, undefined);
});
