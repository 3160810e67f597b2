/** Builders for skill folders in temp dirs, shared by the skills tests. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const made: string[] = [];
process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A temp dir removed when the test process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `hermes-skills-${prefix}-`));
  made.push(dir);
  return dir;
}

export function skillMd(name: string, description: string, body = "Do the thing step by step.", extra = ""): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n\n${body}\n`;
}

/** Writes a skill folder under `root` (optionally inside a category folder) with extra files. */
export function writeSkill(
  root: string,
  name: string,
  options: { category?: string; description?: string; text?: string; files?: Record<string, string> } = {},
): string {
  const dir = options.category ? join(root, options.category, name) : join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), options.text ?? skillMd(name, options.description ?? `About ${name}.`));
  for (const [rel, content] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
  return dir;
}
