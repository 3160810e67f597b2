/**
 * A directory walker for when ripgrep is not installed. Like ripgrep it honours .gitignore
 * and .ignore files (roughly: no global excludes), skips .git and node_modules, does not follow
 * symlinks, and lists entries in path order.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { globToRegExp } from "./glob.js";

export const ALWAYS_SKIPPED_DIRS = new Set([".git", "node_modules"]);
const IGNORE_FILES = [".gitignore", ".ignore"];

interface IgnoreRule {
  /** Directory (relative to the walk root, "" for the root) whose ignore file holds the rule. */
  base: string;
  regex: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

function parseIgnoreFile(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.trimEnd();
    if (!line || line.startsWith("#")) continue;
    let negate = false;
    if (line.startsWith("!")) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith("\\")) {
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith("/")) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    // A pattern with a slash (other than a trailing one) is anchored to its file's directory.
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    if (!line) continue;
    const body = anchored ? line : `**/${line}`;
    rules.push({ base, regex: globToRegExp(body), negate, dirOnly });
  }
  return rules;
}

function isIgnored(rules: IgnoreRule[], relativePath: string, isDir: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.dirOnly && !isDir) continue;
    let candidate = relativePath;
    if (rule.base) {
      if (!relativePath.startsWith(`${rule.base}/`)) continue;
      candidate = relativePath.slice(rule.base.length + 1);
    }
    if (rule.regex.test(candidate)) ignored = !rule.negate;
  }
  return ignored;
}

function readIgnoreRules(dir: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const name of IGNORE_FILES) {
    try {
      rules.push(...parseIgnoreFile(readFileSync(join(dir, name), "utf8"), base));
    } catch {
      // No ignore file here.
    }
  }
  return rules;
}

export interface WalkedFile {
  path: string;
  /** Path relative to the walk root, with forward slashes. */
  relative: string;
}

/** Every regular file under `root`, in path order, minus ignored ones. Stops when `signal` aborts. */
export function* walkFiles(root: string, signal?: AbortSignal): Generator<WalkedFile> {
  yield* walkDir(root, "", readIgnoreRules(root, ""), signal);
}

function* walkDir(dir: string, relDir: string, rules: IgnoreRule[], signal?: AbortSignal): Generator<WalkedFile> {
  if (signal?.aborted) return;
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const relative = relDir ? `${relDir}/${entry.name}` : entry.name;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (ALWAYS_SKIPPED_DIRS.has(entry.name) || isIgnored(rules, relative, true)) continue;
      yield* walkDir(path, relative, [...rules, ...readIgnoreRules(path, relative)], signal);
    } else if (entry.isFile()) {
      if (!isIgnored(rules, relative, false)) yield { path, relative };
    }
  }
}
