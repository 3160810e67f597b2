/** File helpers for skill directories: containment checks, listing, atomic writes, hashing. */
import { existsSync, lstatSync, readdirSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { atomicWriteFile } from "../../util/atomic-write.js";
import { nodeCrypto } from "../../util/node-crypto.js";
import { SKILL_FILE } from "./frontmatter.js";

/** Most supporting files listed for one skill; deeper trees are cut off. */
const MAX_LISTED_FILES = 500;

/** Whether `target` lies strictly below `root` (not `root` itself). */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/** The closest existing ancestor of `path`, with symlinks resolved. */
function realExisting(path: string): string {
  let current = path;
  while (!existsSync(current)) {
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
  return join(realpathSync(current), relative(current, path));
}

/**
 * Resolves `relPath` inside `root`, or returns an error message when it is absolute, climbs
 * out with `..`, or reaches outside through a symlink.
 */
export function resolveInside(root: string, relPath: string): { path: string } | { error: string } {
  const refusal = { error: `"${relPath}" is outside the skill directory; give a path relative to the skill` };
  if (!relPath.trim() || isAbsolute(relPath) || /^[a-zA-Z]:/.test(relPath)) return refusal;
  const target = resolve(root, relPath);
  if (!isInside(root, target)) return refusal;
  if (existsSync(root) && !isInside(realpathSync(root), realExisting(target))) return refusal;
  return { path: target };
}

/** Supporting files of a skill (everything but SKILL.md and hidden entries), as sorted POSIX paths. */
export function listSkillFiles(skillDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of entries) {
      if (out.length >= MAX_LISTED_FILES) return;
      if (name.startsWith(".")) continue;
      const rel = prefix ? `${prefix}/${name}` : name;
      if (rel === SKILL_FILE) continue;
      const stat = lstatSync(join(dir, name));
      if (stat.isDirectory()) walk(join(dir, name), rel);
      else if (stat.isFile()) out.push(rel);
    }
  };
  walk(skillDir, "");
  return out;
}

/** Writes through a temporary sibling and a rename, so readers never see half a file. */
export function atomicWrite(path: string, content: string | Uint8Array): void {
  atomicWriteFile(path, content, { keepMode: true, durable: false });
}

export function sha256(content: string | Uint8Array): string {
  return nodeCrypto().createHash("sha256").update(content).digest("hex");
}

/** Whether the bytes look like text (no NUL byte and valid UTF-8). */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
