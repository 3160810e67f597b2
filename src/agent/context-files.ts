/**
 * Project context files: instructions a repository leaves for coding agents. Exactly one kind
 * is loaded — the first found, in this order:
 *   1. `.hermes.md` / `HERMES.md`, in the working directory or a parent up to the git root;
 *   2. `AGENTS.md` (or `agents.md`) in the working directory;
 *   3. `CLAUDE.md` (or `claude.md`) in the working directory;
 *   4. `.cursorrules` and `.cursor/rules/*.mdc` in the working directory.
 * Every file is scanned for prompt injection (a match replaces it with a BLOCKED notice) and
 * capped in size, keeping its beginning and its end.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { isFile } from "../util/fs-kind.js";
import { scanForThreats } from "../util/threats.js";

/** Characters kept of one context file; longer files keep their head and tail. */
export const CONTEXT_FILE_MAX_CHARS = 20_000;
const HEAD_SHARE = 0.7;
const TAIL_SHARE = 0.2;

export interface ContextFile {
  /** Path shown to the model, relative to the working directory when inside it. */
  name: string;
  path: string;
  /** The text as it goes into the prompt: capped, or the BLOCKED notice. */
  content: string;
  blocked: boolean;
  truncated: boolean;
}

/** Loads the winning kind of context file for `cwd`; blank files do not count as found. */
export function discoverContextFiles(cwd: string, maxChars = CONTEXT_FILE_MAX_CHARS): ContextFile[] {
  const kinds: Array<() => string[]> = [
    () => hermesFile(cwd),
    () => firstExisting(cwd, ["AGENTS.md", "agents.md"]),
    () => firstExisting(cwd, ["CLAUDE.md", "claude.md"]),
    () => cursorRules(cwd),
  ];
  for (const kind of kinds) {
    const files = kind()
      .map((path) => loadContextFile(path, cwd, maxChars))
      .filter((file) => file.content.length > 0);
    if (files.length > 0) return files;
  }
  return [];
}

/** The context-files layer of the system prompt, or undefined when no file applies. */
/** `maxChars`: each file's allowance (`context_file_max_chars`). */
export function buildContextFilesPrompt(cwd: string, maxChars = CONTEXT_FILE_MAX_CHARS): string | undefined {
  const files = discoverContextFiles(cwd, maxChars);
  if (files.length === 0) return undefined;
  const sections = files.map((file) => `## ${file.name}\n\n${file.content}`);
  return [
    "# Project context",
    "These files come from the project you are working in. Follow their conventions unless the user says otherwise.",
    ...sections,
  ].join("\n\n");
}

/**
 * For long-lived processes (gateway, API server), where every new session would look for the
 * files again: the layer per directory, looked up again once it is older than `maxAgeMs`.
 */
export function cachedContextFilesPrompt(
  maxAgeMs = 10_000,
  now: () => number = Date.now,
  maxChars = CONTEXT_FILE_MAX_CHARS,
): (cwd: string) => string | undefined {
  const cache = new Map<string, { prompt: string | undefined; at: number }>();
  return (cwd) => {
    const hit = cache.get(cwd);
    if (hit && now() - hit.at < maxAgeMs) return hit.prompt;
    const prompt = buildContextFilesPrompt(cwd, maxChars);
    if (cache.size >= 256) cache.delete(cache.keys().next().value as string);
    cache.set(cwd, { prompt, at: now() });
    return prompt;
  };
}

export function loadContextFile(path: string, cwd: string, maxChars = CONTEXT_FILE_MAX_CHARS): ContextFile {
  const name = displayName(path, cwd);
  const raw = readText(path);
  const threats = scanForThreats(raw, "context");
  if (threats.length > 0) {
    return {
      name,
      path,
      content: `[BLOCKED: ${name} contained potential prompt injection (${threats.join(", ")}). Its content was not loaded.]`,
      blocked: true,
      truncated: false,
    };
  }
  const content = capContextText(raw.trim(), name, maxChars);
  return { name, path, content, blocked: false, truncated: content.length !== raw.trim().length };
}

/** Keeps the first 70% and the last 20% of the allowance, with a marker saying what was left out. */
export function capContextText(text: string, name: string, maxChars = CONTEXT_FILE_MAX_CHARS): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * HEAD_SHARE);
  const tail = Math.floor(maxChars * TAIL_SHARE);
  const omitted = text.length - head - tail;
  return (
    `${text.slice(0, head)}\n\n` +
    `[… ${omitted.toLocaleString("en-US")} characters of ${name} omitted: the file is longer than ` +
    `${maxChars.toLocaleString("en-US")} characters; read it with a file tool for the rest …]\n\n` +
    text.slice(text.length - tail)
  );
}

/** The nearest `.hermes.md` / `HERMES.md`, from `cwd` up to the git root (only `cwd` outside a repository). */
function hermesFile(cwd: string): string[] {
  const gitRoot = findGitRoot(cwd);
  let dir = cwd;
  for (;;) {
    const found = firstExisting(dir, [".hermes.md", "HERMES.md"]);
    if (found.length > 0) return found;
    const parent = dirname(dir);
    if (!gitRoot || dir === gitRoot || parent === dir) return [];
    dir = parent;
  }
}

function findGitRoot(start: string): string | undefined {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function cursorRules(cwd: string): string[] {
  const found = firstExisting(cwd, [".cursorrules"]);
  const rulesDir = join(cwd, ".cursor", "rules");
  let rules: string[] = [];
  try {
    rules = readdirSync(rulesDir)
      .filter((entry) => entry.endsWith(".mdc"))
      .sort()
      .map((entry) => join(rulesDir, entry))
      .filter(isFile);
  } catch {
    // No rules directory.
  }
  return [...found, ...rules];
}

function firstExisting(dir: string, names: string[]): string[] {
  for (const name of names) {
    const path = join(dir, name);
    if (isFile(path)) return [path];
  }
  return [];
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function displayName(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") ? rel : path;
}
