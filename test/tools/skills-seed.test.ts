import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { auditSkillDir } from "../../src/tools/skills/audit.js";
import { discoverSkills } from "../../src/tools/skills/discovery.js";
import { bundledSkillsDir, SEED_MANIFEST, seedBundledSkills } from "../../src/tools/skills/seed.js";
import { skillMd, tempDir, writeSkill } from "./skills-helpers.js";

function bundle() {
  const dir = tempDir("bundle");
  writeSkill(dir, "review", {
    category: "dev",
    text: skillMd("review", "Review v1."),
    files: { "references/checklist.md": "v1 checklist\n" },
  });
  writeSkill(dir, "debugging", { text: skillMd("debugging", "Debug v1.") });
  return dir;
}

test("seeds the bundled skills once and records them in a manifest", () => {
  const home = tempDir("home");
  const bundleDir = bundle();
  const first = seedBundledSkills(home, { bundleDir });
  assert.deepEqual(first.copied, ["debugging/SKILL.md", "dev/review/SKILL.md", "dev/review/references/checklist.md"]);
  assert.equal(
    readFileSync(join(home, "skills", "dev", "review", "references", "checklist.md"), "utf8"),
    "v1 checklist\n",
  );
  const manifest = JSON.parse(readFileSync(join(home, "skills", SEED_MANIFEST), "utf8")) as { files: object };
  assert.deepEqual(Object.keys(manifest.files).sort(), first.copied);

  const second = seedBundledSkills(home, { bundleDir });
  assert.deepEqual(second, { copied: [], updated: [], kept: [], skipped: [] });
});

test("a re-seed updates files the user left alone and keeps the ones they edited or deleted", () => {
  const home = tempDir("home");
  const bundleDir = bundle();
  seedBundledSkills(home, { bundleDir });
  const userReview = join(home, "skills", "dev", "review", "SKILL.md");
  const edited = skillMd("review", "Review, my way.");
  writeFileSync(userReview, edited);
  rmSync(join(home, "skills", "debugging"), { recursive: true });

  writeFileSync(join(bundleDir, "dev", "review", "SKILL.md"), skillMd("review", "Review v2."));
  writeFileSync(join(bundleDir, "dev", "review", "references", "checklist.md"), "v2 checklist\n");
  writeFileSync(join(bundleDir, "debugging", "SKILL.md"), skillMd("debugging", "Debug v2."));
  writeSkill(bundleDir, "brand-new", { text: skillMd("brand-new", "New in v2.") });

  const report = seedBundledSkills(home, { bundleDir });
  assert.deepEqual(report.updated, ["dev/review/references/checklist.md"]);
  assert.deepEqual(report.kept, ["debugging", "dev/review/SKILL.md"]);
  assert.deepEqual(report.copied, ["brand-new/SKILL.md"]);
  assert.equal(readFileSync(userReview, "utf8"), edited);
  assert.equal(
    readFileSync(join(home, "skills", "dev", "review", "references", "checklist.md"), "utf8"),
    "v2 checklist\n",
  );
  assert.equal(existsSync(join(home, "skills", "debugging")), false, "a deleted bundled skill stays deleted");

  // The edited file stays the user's on every later run, too.
  writeFileSync(join(bundleDir, "dev", "review", "SKILL.md"), skillMd("review", "Review v3."));
  assert.deepEqual(seedBundledSkills(home, { bundleDir }).kept, ["debugging", "dev/review/SKILL.md"]);
  assert.equal(readFileSync(userReview, "utf8"), edited);
});

test("never touches a skill the user created under a bundled name", () => {
  const home = tempDir("home");
  const bundleDir = bundle();
  const mine = skillMd("debugging", "My own debugging notes.");
  writeSkill(join(home, "skills"), "debugging", { category: "personal", text: mine });
  const report = seedBundledSkills(home, { bundleDir });
  assert.deepEqual(report.skipped, ["debugging"]);
  assert.equal(readFileSync(join(home, "skills", "personal", "debugging", "SKILL.md"), "utf8"), mine);
  assert.equal(existsSync(join(home, "skills", "debugging")), false);
  assert.deepEqual(discoverSkills({ home }).problems, [], "no duplicate skill names after seeding");
});

test("the skills shipped with the package are valid, pass the security scan, and seed cleanly", () => {
  const home = tempDir("home");
  const report = seedBundledSkills(home);
  assert.ok(report.copied.length >= 4, `copied ${report.copied.join(", ")}`);
  assert.ok(existsSync(join(bundledSkillsDir(), "software-development", "debugging", "SKILL.md")));
  const { skills, problems } = discoverSkills({ home });
  assert.deepEqual(problems, []);
  const names = skills.map((s) => s.name);
  for (const name of ["planning-a-change", "code-review", "git-workflow", "debugging"])
    assert.ok(names.includes(name), name);
  for (const skill of skills) assert.deepEqual(auditSkillDir(skill.dir, skill.name), [], skill.name);
});
