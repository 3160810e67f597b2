/** Homes with skills of known ages, for the curator's schedule and consolidation tests. */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordSkillUse } from "../../src/tools/skills/usage.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

export function skillText(name: string, description: string, body = `Steps for ${name}.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;
}

export function writeSkill(home: string, name: string, description = `the ${name} procedure`, body?: string): string {
  const dir = join(home, "skills", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), skillText(name, description, body));
  return dir;
}

/**
 * A home whose skill usage has been counted for a year, each skill last used `ago` days before
 * `now`, with `config` as its config.yaml.
 */
export function curatorHome(skills: Record<string, number>, now: number, config = ""): string {
  const home = tempDir("hermes-curator-");
  for (const [name, ago] of Object.entries(skills)) {
    writeSkill(home, name);
    recordSkillUse(home, name, "use", now - ago * DAY);
  }
  mkdirSync(join(home, "skills"), { recursive: true });
  writeFileSync(join(home, "skills", ".curator.json"), JSON.stringify({ trackingSince: now - 365 * DAY }));
  writeFileSync(join(home, "config.yaml"), config);
  return home;
}

/** config.yaml lines pointing the main model at a fake provider. */
export function modelConfig(fake: FakeProvider): string {
  return `model:\n  default: fake-model\n  provider: custom\n  base_url: ${fake.url}/v1\n`;
}

/** The chat requests a fake provider received (not model listings). */
export function chatRequests(fake: FakeProvider) {
  return fake.requests.filter((request) => request.method === "POST");
}

/** Every skill file (not backups, not the curator's own state files) with its content. */
export function skillsSnapshot(home: string): Record<string, string> {
  const root = join(home, "skills");
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir).sort()) {
      if (rel === "" && entry === ".curator-backups") continue;
      const path = join(dir, entry);
      const relPath = rel ? `${rel}/${entry}` : entry;
      if (statSync(path).isDirectory()) walk(path, relPath);
      else if (rel !== "" || !entry.startsWith(".")) out[relPath] = readFileSync(path, "utf8");
    }
  };
  walk(root, "");
  return out;
}
