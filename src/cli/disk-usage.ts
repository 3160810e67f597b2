/** How much disk a directory tree takes, entry by entry, without following symbolic links. */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Bytes of `path` and everything under it; what cannot be read counts as nothing. */
export function treeSize(path: string): number {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  let names: string[] = [];
  try {
    names = readdirSync(path);
  } catch {
    return 0;
  }
  for (const name of names) total += treeSize(join(path, name));
  return total;
}

export interface EntryUsage {
  /** The name, with a trailing `/` for a directory. */
  name: string;
  bytes: number;
}

/** Each top-level entry of `dir` with its size, largest first. */
export function topLevelUsage(dir: string): EntryUsage[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((name) => {
      const path = join(dir, name);
      const isDirectory = lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
      return { name: isDirectory ? `${name}/` : name, bytes: treeSize(path) };
    })
    .sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
}
