import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { parse } from "yaml";
import { parseSkillMarkdown } from "../../src/tools/skills/frontmatter.js";
import { readSimpleYaml } from "../../src/util/simple-yaml.js";

function skillText(frontmatter: string): string {
  return `---\n${frontmatter}\n---\n\nDo the thing.\n`;
}

/** Front matter the simple reader handles, then front matter only the yaml package can read. */
const SIMPLE = [
  "name: plain\ndescription: A plain one-line description.",
  "name: quoted\ndescription: 'It''s \"quoted\": with # and, commas'\nversion: '1.0'",
  'name: dq\ndescription: "Single \' quote and a colon: fine"\nlicense: MIT',
  "name: lists\ndescription: d\nplatforms: [linux, macos]\nrequired_environment_variables:\n  - GITHUB_TOKEN\n  - 'NPM_TOKEN'",
  "name: meta\ndescription: d\nmetadata:\n  hermes:\n    tags: [git, 'a, b']\n    category: dev\n    related_skills:\n    - other",
  "name: number\ndescription: d\nversion: 1.0",
  "name: comment\ndescription: Text # and a comment",
];
const FULL = [
  'name: escapes\ndescription: "Say \\"hi\\" to C:\\\\temp\\tnow"',
  "name: exponent\ndescription: d\nversion: 1e3",
  "name: folded\ndescription: >\n  Two lines\n  folded into one.",
  "name: spread\ndescription: First line\n  and its continuation",
  "name: envs\ndescription: d\nrequired_environment_variables:\n  - name: API_KEY\n    prompt: Your key",
  "name: crlf\r\ndescription: Windows line ends",
  "name: anchors\ndescription: &d Shared text\nauthor: *d",
];

test("front matter reads the same through the simple reader as through the yaml package", () => {
  for (const frontmatter of SIMPLE) {
    assert.notEqual(readSimpleYaml(frontmatter), undefined, `simple reader declined ${JSON.stringify(frontmatter)}`);
  }
  for (const frontmatter of FULL) {
    assert.equal(readSimpleYaml(frontmatter), undefined, `simple reader took ${JSON.stringify(frontmatter)}`);
  }
  for (const frontmatter of [...SIMPLE, ...FULL]) {
    const parsed = parseSkillMarkdown(skillText(frontmatter));
    assert.deepEqual(parsed.errors, [], JSON.stringify(frontmatter));
    assert.deepStrictEqual(parsed.frontmatter?.raw, parse(frontmatter), JSON.stringify(frontmatter));
  }
});

test("tricky quoting and values come out as the yaml package reads them", () => {
  const description = (frontmatter: string) => parseSkillMarkdown(skillText(frontmatter)).frontmatter?.description;
  assert.equal(description(SIMPLE[1]!), `It's "quoted": with # and, commas`);
  assert.equal(description(FULL[0]!), 'Say "hi" to C:\\temp\tnow');
  assert.equal(description(FULL[2]!), "Two lines folded into one.");
  assert.equal(description(FULL[3]!), "First line and its continuation");
  assert.equal(description(SIMPLE[6]!), "Text");
  assert.equal(parseSkillMarkdown(skillText(SIMPLE[5]!)).frontmatter?.version, "1");
  assert.equal(parseSkillMarkdown(skillText(FULL[1]!)).frontmatter?.version, "1000");
  assert.equal(parseSkillMarkdown(skillText(SIMPLE[1]!)).frontmatter?.version, "1.0");
  assert.deepEqual(parseSkillMarkdown(skillText(FULL[4]!)).frontmatter?.requiredEnvironmentVariables, [
    { name: "API_KEY", prompt: "Your key" },
  ]);
  assert.deepEqual(parseSkillMarkdown(skillText(SIMPLE[4]!)).frontmatter?.relatedSkills, ["other"]);
});

test("broken front matter is still reported with the yaml package's message", () => {
  const parsed = parseSkillMarkdown(skillText("name: dup\nname: again\ndescription: d"));
  assert.equal(parsed.frontmatter, undefined);
  assert.match(parsed.errors[0] ?? "", /^the frontmatter is not valid YAML: Map keys must be unique/);
});

test("the bundled skills are read without loading the yaml package, which loads for front matter that needs it", () => {
  const script = [
    'import { readdirSync, readFileSync } from "node:fs";',
    'import { createRequire } from "node:module";',
    'const { parseSkillMarkdown } = await import("./src/tools/skills/frontmatter.ts");',
    "const yamlLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((p) => /[\\\\/]node_modules[\\\\/]yaml[\\\\/]/.test(p));",
    'const root = "skills/software-development/";',
    "const names = readdirSync(root).map((dir) => parseSkillMarkdown(readFileSync(root + dir + '/SKILL.md', 'utf8')).frontmatter?.name);",
    "const before = yamlLoaded();",
    'const version = parseSkillMarkdown("---\\nname: x\\ndescription: d\\nversion: 1e3\\n---\\nbody\\n").frontmatter?.version;',
    "console.log(JSON.stringify({ names, before, after: yamlLoaded(), version }));",
  ].join("\n");
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: new URL("../..", import.meta.url),
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const result = JSON.parse(run.stdout) as { names: string[]; before: boolean; after: boolean; version: string };
  assert.equal(result.names.length, 4);
  assert.ok(result.names.every((name) => typeof name === "string"));
  assert.equal(result.before, false, "yaml was loaded for the bundled skills");
  assert.equal(result.after, true, "yaml was not loaded for front matter with an exponent");
  assert.equal(result.version, "1000");
});
