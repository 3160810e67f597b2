/**
 * SKILL.md parsing and validation: a YAML frontmatter block between `---` lines, then a
 * Markdown body with the instructions.
 */
import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import { readSimpleYaml } from "../../util/simple-yaml.js";

export const SKILL_FILE = "SKILL.md";
/** Skill and category names: lowercase, digits and hyphens, starting with a letter or digit. */
export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const MAX_SKILL_MD_CHARS = 100_000;
export const MAX_SKILL_FILE_BYTES = 1_048_576;
export const MAX_DESCRIPTION_CHARS = 1024;
/** Folders of a skill that may hold supporting files. */
export const SUPPORT_DIRS = ["references", "templates", "scripts", "assets"] as const;

export type SkillPlatform = "linux" | "macos" | "windows";
const PLATFORMS: readonly string[] = ["linux", "macos", "windows"];

export interface RequiredEnvVar {
  name: string;
  prompt?: string;
  help?: string;
}

export interface SkillFrontmatter {
  name: string;
  description: string;
  version?: string;
  author?: string;
  license?: string;
  compatibility?: string;
  platforms?: SkillPlatform[];
  requiredEnvironmentVariables?: RequiredEnvVar[];
  tags?: string[];
  category?: string;
  relatedSkills?: string[];
  /** The whole parsed mapping, for fields this module does not interpret. */
  raw: Record<string, unknown>;
}

export interface ParsedSkill {
  /** Undefined when the file cannot be used as a skill (see `errors`). */
  frontmatter?: SkillFrontmatter;
  body: string;
  /** Problems that make the skill unusable. */
  errors: string[];
  /** Problems with optional fields; the skill still loads. */
  warnings: string[];
}

type Fields = Record<string, unknown>;

const require = createRequire(import.meta.url);

/**
 * Front matter as the `yaml` package parses it. Most front matter is flat `key: value` text
 * that the simple reader gives the same result for, so the full parser (a large module) is
 * only loaded, synchronously through `require`, for front matter the reader declines.
 */
function parseFrontmatterYaml(text: string): unknown {
  return readSimpleYaml(text) ?? (require("yaml") as typeof Yaml).parse(text);
}

function isMapping(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function splitFrontmatter(text: string): { yaml: string; body: string } | string {
  const content = text.replace(/^\ufeff/, "");
  if (!/^---\r?\n/.test(content)) return "SKILL.md must start with a YAML frontmatter block opened by a '---' line";
  const close = /\r?\n---[ \t]*(?:\r?\n|$)/.exec(content.slice(3));
  if (!close) return "the frontmatter block is not closed: add a '---' line after it";
  return { yaml: content.slice(3, close.index + 3), body: content.slice(close.index + 3 + close[0].length) };
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return undefined;
}

function stringList(fields: Fields, key: string, where: string, warnings: string[]): string[] | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) {
    warnings.push(`${where}${key} must be a list of strings`);
    return undefined;
  }
  return list;
}

function optionalText(fields: Fields, key: string, warnings: string[]): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  const text = scalarText(value);
  if (text === undefined) warnings.push(`${key} must be a string`);
  return text;
}

function parsePlatforms(fields: Fields, warnings: string[]): SkillPlatform[] | undefined {
  const list = stringList(fields, "platforms", "", warnings);
  if (!list) return undefined;
  const unknown = list.filter((p) => !PLATFORMS.includes(p));
  if (unknown.length) warnings.push(`platforms has unknown values ${unknown.join(", ")} (use linux, macos, windows)`);
  return list.filter((p): p is SkillPlatform => PLATFORMS.includes(p));
}

function parseEnvVars(fields: Fields, warnings: string[]): RequiredEnvVar[] | undefined {
  const value = fields.required_environment_variables;
  if (value === undefined || value === null) return undefined;
  const out: RequiredEnvVar[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    if (typeof item === "string") out.push({ name: item });
    else if (isMapping(item) && typeof item.name === "string") {
      out.push({
        name: item.name,
        ...(typeof item.prompt === "string" ? { prompt: item.prompt } : {}),
        ...(typeof item.help === "string" ? { help: item.help } : {}),
      });
    } else warnings.push("required_environment_variables entries must be names or {name, prompt, help} mappings");
  }
  return out;
}

function hermesMetadata(fields: Fields, warnings: string[]): Fields {
  const metadata = fields.metadata;
  if (metadata === undefined || metadata === null) return {};
  if (!isMapping(metadata)) {
    warnings.push("metadata must be a mapping");
    return {};
  }
  const hermes = metadata.hermes;
  if (hermes === undefined || hermes === null) return {};
  if (!isMapping(hermes)) {
    warnings.push("metadata.hermes must be a mapping");
    return {};
  }
  return hermes;
}

function requiredText(fields: Fields, key: string, errors: string[]): string {
  const value = scalarText(fields[key])?.trim();
  if (!value) errors.push(`the frontmatter needs a non-empty '${key}' field`);
  return value ?? "";
}

/** Parses SKILL.md text. Never throws: problems come back in `errors` and `warnings`. */
export function parseSkillMarkdown(text: string): ParsedSkill {
  const split = splitFrontmatter(text);
  if (typeof split === "string") return { body: text, errors: [split], warnings: [] };
  let fields: unknown;
  try {
    fields = parseFrontmatterYaml(split.yaml);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { body: split.body, errors: [`the frontmatter is not valid YAML: ${reason}`], warnings: [] };
  }
  if (!isMapping(fields)) {
    return { body: split.body, errors: ["the frontmatter must be a YAML mapping (key: value lines)"], warnings: [] };
  }
  const errors: string[] = [];
  const warnings: string[] = [];
  const name = requiredText(fields, "name", errors);
  const description = requiredText(fields, "description", errors);
  if (description.length > MAX_DESCRIPTION_CHARS) {
    errors.push(`the description has ${description.length} characters (at most ${MAX_DESCRIPTION_CHARS})`);
  }
  if (!split.body.trim()) errors.push("SKILL.md needs instructions after the frontmatter");
  if (errors.length) return { body: split.body, errors, warnings };

  const hermes = hermesMetadata(fields, warnings);
  const optional = {
    version: optionalText(fields, "version", warnings),
    author: optionalText(fields, "author", warnings),
    license: optionalText(fields, "license", warnings),
    compatibility: optionalText(fields, "compatibility", warnings),
    platforms: parsePlatforms(fields, warnings),
    requiredEnvironmentVariables: parseEnvVars(fields, warnings),
    tags: stringList(hermes, "tags", "metadata.hermes.", warnings),
    category: optionalText(hermes, "category", warnings),
    relatedSkills: stringList(hermes, "related_skills", "metadata.hermes.", warnings),
  };
  const frontmatter: SkillFrontmatter = { name, description, raw: fields };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) Object.assign(frontmatter, { [key]: value });
  }
  return { frontmatter, body: split.body, errors, warnings };
}

export function skillNameProblem(name: string, what = "skill name"): string | undefined {
  if (SKILL_NAME_PATTERN.test(name)) return undefined;
  return `invalid ${what} "${name}": use 1-64 lowercase letters, digits and hyphens, starting with a letter or digit`;
}

/**
 * Everything that must hold before SKILL.md text is written for skill `name`: size, a usable
 * frontmatter, and a frontmatter name that matches the skill's directory name.
 */
export function skillMarkdownProblems(text: string, name: string): string[] {
  if (text.length > MAX_SKILL_MD_CHARS) {
    return [
      `SKILL.md has ${text.length} characters (at most ${MAX_SKILL_MD_CHARS}); move detail into references/ files`,
    ];
  }
  const parsed = parseSkillMarkdown(text);
  const problems = [...parsed.errors, ...parsed.warnings];
  if (parsed.frontmatter && parsed.frontmatter.name !== name) {
    problems.push(`the frontmatter name "${parsed.frontmatter.name}" must match the skill name "${name}"`);
  }
  return problems;
}
