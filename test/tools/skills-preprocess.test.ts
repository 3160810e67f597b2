import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ToolRegistry } from "../../src/tools/registry.js";
import { discoverSkills } from "../../src/tools/skills/discovery.js";
import { MAX_INLINE_OUTPUT_CHARS, type SkillPreprocessing } from "../../src/tools/skills/preprocess.js";
import { expandSkillCommand } from "../../src/tools/skills/slash-command.js";
import { registerSkillsTools } from "../../src/tools/skills/tools.js";
import { skillMd, tempDir, writeSkill } from "./skills-helpers.js";
import { callTool, makeContext } from "./tool-harness.js";

function setup(preprocessing?: SkillPreprocessing) {
  const home = tempDir("home");
  const registry = new ToolRegistry();
  registerSkillsTools(registry, { home, ...(preprocessing ? { preprocessing } : {}) });
  const ctx = makeContext(tempDir("cwd"), { sessionId: "20261127_093000_ab12cd" });
  const view = async (args: Record<string, unknown>) =>
    String((await callTool(registry, "skill_view", args, ctx)).content);
  return { home, user: join(home, "skills"), view };
}

const BODY = [
  'Run `python "${HERMES_SKILL_DIR}/scripts/report.py" --session ${HERMES_SESSION_ID}`.',
  "Unknown stays: ${HERMES_OTHER}. Today: !`echo inline-ran`",
].join("\n");

test("skill_view fills in ${HERMES_SKILL_DIR} and ${HERMES_SESSION_ID}, in SKILL.md and its files; others stay", async () => {
  const { user, view } = setup();
  const dir = writeSkill(user, "reporting", {
    text: skillMd("reporting", "Weekly reports.", BODY),
    files: { "references/usage.md": "Call ${HERMES_SKILL_DIR}/scripts/report.py" },
  });
  const text = await view({ name: "reporting" });
  assert.match(text, new RegExp(`python "${dir}/scripts/report\\.py" --session 20261127_093000_ab12cd`));
  assert.match(text, /Unknown stays: \$\{HERMES_OTHER\}/);
  assert.match(text, /Today: !`echo inline-ran`/, "inline commands stay text unless skills.inline_shell is on");
  assert.equal(await view({ name: "reporting", file_path: "references/usage.md" }), `Call ${dir}/scripts/report.py`);
});

test("with skills.template_vars off the text is shown as written", async () => {
  const { user, view } = setup({ templateVars: false, inlineShell: false, inlineShellTimeout: 10 });
  writeSkill(user, "reporting", { text: skillMd("reporting", "Weekly reports.", BODY) });
  assert.match(await view({ name: "reporting" }), /"\$\{HERMES_SKILL_DIR\}\/scripts\/report\.py"/);
});

test("with skills.inline_shell each !`command` of SKILL.md becomes its output, run in the skill's folder", async () => {
  const { user, view } = setup({ templateVars: true, inlineShell: true, inlineShellTimeout: 1 });
  const dir = writeSkill(user, "inline", {
    text: skillMd(
      "inline",
      "Inline commands.",
      [
        "Here: !`pwd` and !`echo inline-ran`.",
        "Quiet failure: !`ls /no/such/place`",
        "Slow: !`sleep 5`",
        `Big: !\`printf "%${MAX_INLINE_OUTPUT_CHARS * 2}s" | tr " " x\``,
        "Risky: !`rm -rf ~/precious`",
      ].join("\n"),
    ),
    files: { "references/notes.md": "Not here: !`echo nope`" },
  });
  const text = await view({ name: "inline" });
  assert.match(text, new RegExp(`Here: ${dir} and inline-ran\\.`));
  assert.match(text, /Quiet failure: ls: cannot access '\/no\/such\/place'/);
  assert.match(text, /Slow: \[inline command stopped after 1s: sleep 5\]/);
  assert.match(text, new RegExp(`Big: x{${MAX_INLINE_OUTPUT_CHARS}}\\.\\.\\.\\[cut\\]`));
  assert.match(text, /Risky: \[inline command not run: .+\]/);
  assert.equal(await view({ name: "inline", file_path: "references/notes.md" }), "Not here: !`echo nope`");
});

test("/skill-name commands get the same preprocessing", async () => {
  const home = tempDir("home");
  const dir = writeSkill(join(home, "skills"), "inline", {
    text: skillMd("inline", "Inline commands.", "Dir ${HERMES_SKILL_DIR}; marker !`touch made-by-inline && echo made`"),
  });
  const { skills } = discoverSkills({ home });
  const plain = await expandSkillCommand("/inline go", skills, { sessionId: "s1" });
  assert.match(plain!.message, new RegExp(`Dir ${dir}; marker !\`touch made-by-inline`));
  assert.equal(existsSync(join(dir, "made-by-inline")), false);
  const expanded = await expandSkillCommand("/inline go", skills, {
    preprocessing: { templateVars: true, inlineShell: true, inlineShellTimeout: 5 },
  });
  assert.match(expanded!.message, new RegExp(`Dir ${dir}; marker made`));
  assert.equal(existsSync(join(dir, "made-by-inline")), true);
});
