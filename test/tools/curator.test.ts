import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerCuratorCommands } from "../../src/cli/commands/curator.js";
import { LearningLedger } from "../../src/state/learning-ledger.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { lastCuratorRun, mergeCandidates, runCurator } from "../../src/tools/skills/curator.js";
import { discoverSkills } from "../../src/tools/skills/discovery.js";
import { seedBundledSkills } from "../../src/tools/skills/seed.js";
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

test("a skill unused for 90 days is archived (backup first, recorded, undoable), one unused for 30 is marked stale, pinned and (without pruneBuiltins) bundled ones stay", async () => {
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

  const report = await runCurator({ home, now: NOW, ...settings, ledger, pruneBuiltins: false });
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

test("backup.enabled false skips the backup but still archives; backup.keep decides how many are kept", async () => {
  const home = homeWith({ "old-report": 120, "fresh-deploy": 1 });
  const off = await runCurator({ home, now: NOW, ...settings, backup: { enabled: false, keep: 5 } });
  assert.equal(off.backup, undefined);
  assert.equal(existsSync(join(home, "skills", ".curator-backups")), false, "no backup folder at all");
  assert.deepEqual(
    off.archived.map((item) => item.name),
    ["old-report"],
  );
  for (let i = 1; i <= 4; i++) {
    const report = await runCurator({ home, now: NOW + i * 1000, ...settings, backup: { enabled: true, keep: 2 } });
    assert.ok(report.backup && existsSync(join(report.backup, "fresh-deploy", "SKILL.md")));
  }
  const kept = readdirSync(join(home, "skills", ".curator-backups")).sort();
  assert.equal(kept.length, 2);
  assert.ok(kept[1]!.startsWith(new Date(NOW + 4000).toISOString().replace(/[:.]/g, "-")), "the newest are kept");
});

test("pruneBuiltins: an unused bundled skill is archived like the user's own when on, left alone when off; pinned stays either way", async () => {
  const bundled = (pruneBuiltins: boolean) => {
    const home = homeWith({ "bundled-review": 120, "bundled-pinned": 400, "bundled-stale": 40 });
    updateUsage(home, "bundled-pinned", (usage) => {
      usage.pinned = true;
    });
    writeFileSync(
      join(home, "skills", ".bundled_manifest.json"),
      JSON.stringify({
        files: {
          "bundled-review/SKILL.md": "x",
          "bundled-review/references/notes.md": "y",
          "bundled-pinned/SKILL.md": "x",
          "bundled-stale/SKILL.md": "x",
        },
      }),
    );
    return runCurator({ home, now: NOW, ...settings, pruneBuiltins }).then((report) => ({ home, report }));
  };
  const on = await bundled(true);
  assert.deepEqual(
    on.report.archived.map((item) => item.name),
    ["bundled-review"],
  );
  assert.deepEqual(on.report.stale, ["bundled-stale"]);
  assert.deepEqual(on.report.exempt, ["bundled-pinned"]);
  assert.equal(existsSync(join(on.home, "skills", "bundled-review")), false);
  const bundleDir = tempDir("hermes-bundle-");
  mkdirSync(join(bundleDir, "bundled-review"), { recursive: true });
  writeFileSync(
    join(bundleDir, "bundled-review", "SKILL.md"),
    "---\nname: bundled-review\ndescription: d\n---\nSteps.\n",
  );
  seedBundledSkills(on.home, { bundleDir });
  assert.equal(existsSync(join(on.home, "skills", "bundled-review")), false, "a later seeding does not bring it back");

  const off = await bundled(false);
  assert.deepEqual(off.report.archived, []);
  assert.deepEqual(off.report.stale, []);
  assert.deepEqual(off.report.exempt.sort(), ["bundled-pinned", "bundled-review", "bundled-stale"]);
  assert.ok(existsSync(join(off.home, "skills", "bundled-review", "SKILL.md")));
  assert.equal(readUsage(off.home)["bundled-stale"]?.staleSince, undefined, "not marked stale either");
});
