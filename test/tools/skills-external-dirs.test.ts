import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openRuntime } from "../../src/runtime/runtime.js";
import { externalSkillDirs } from "../../src/runtime/skill-dirs.js";
import { discoverSkills } from "../../src/tools/skills/discovery.js";
import { tempDir, writeSkill } from "./skills-helpers.js";
import { callTool, makeContext } from "./tool-harness.js";

test("shared skill folders add read-only skills; the user's own and the first shared folder win a name", () => {
  const home = tempDir("home");
  const teamA = tempDir("team-a");
  const teamB = tempDir("team-b");
  writeSkill(join(home, "skills"), "deploy", { description: "My own deploy." });
  writeSkill(teamA, "deploy", { description: "Team deploy." });
  writeSkill(teamA, "triage", { category: "ops", description: "Team A triage." });
  writeSkill(teamB, "triage", { description: "Team B triage." });
  writeSkill(teamB, "review", { description: "Team B review." });
  const missing = join(teamB, "not-there");

  const { skills, problems } = discoverSkills({ home, externalDirs: [teamA, teamB, missing] });
  const view = Object.fromEntries(skills.map((s) => [s.name, `${s.source}: ${s.description}`]));
  assert.equal(view.deploy, "user: My own deploy.");
  assert.equal(view.triage, "external: Team A triage.");
  assert.equal(view.review, "external: Team B review.");
  assert.deepEqual(problems, [{ path: missing, message: "skills.external_dirs names a folder that does not exist" }]);
});

test("external_dirs expand ~ and environment variables; relative ones are under the Hermes home", () => {
  const dirs = externalSkillDirs(
    ["~/team-skills", "${SHARED_ROOT}/skills", "$SHARED_ROOT/more", "local-skills", "  ", "~/team-skills"],
    "/srv/hermes",
    { SHARED_ROOT: "/mnt/shared" },
  );
  assert.deepEqual(dirs, [
    join(homedir(), "team-skills"),
    "/mnt/shared/skills",
    "/mnt/shared/more",
    "/srv/hermes/local-skills",
  ]);
});

test("skills.external_dirs in config.yaml reaches the agent's skills_list and skill_view", async () => {
  const home = tempDir("home");
  const shared = tempDir("shared");
  writeSkill(shared, "release-notes", { description: "Write release notes the team's way." });
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\nskills:\n  external_dirs: ["${shared}"]\n`,
  );
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
  try {
    const ctx = makeContext(home);
    const listed = JSON.stringify(await callTool(runtime.registry, "skills_list", {}, ctx));
    assert.match(listed, /release-notes/);
    const viewed = JSON.stringify(await callTool(runtime.registry, "skill_view", { name: "release-notes" }, ctx));
    assert.match(viewed, /the team's way/);
  } finally {
    await runtime.close();
  }
});
