/**
 * What changed on disk under a workspace since the last look, told to its language server as
 * `workspace/didChangeWatchedFiles`. Servers that do not watch files themselves (TypeScript's
 * native one, without a client that watches for it) otherwise keep what they first read, and
 * would report errors against files a command (`git checkout`, a code generator) has since changed.
 */
import { type Dirent, readdirSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";

/** LSP's FileChangeType. */
export const FILE_CREATED = 1;
export const FILE_CHANGED = 2;
export const FILE_DELETED = 3;

export interface FileEvent {
  path: string;
  type: typeof FILE_CREATED | typeof FILE_CHANGED | typeof FILE_DELETED;
}

/** Directories never scanned: dependencies, VCS data, caches and virtual environments. */
const SKIPPED_DIRS = new Set(["node_modules", "target", "__pycache__", "venv", "site-packages"]);

/** The scan stops after this many matching files, or directory entries seen, so a huge tree costs a bounded time. */
export const MAX_WATCHED_FILES = 5000;
const MAX_ENTRIES_SEEN = 50_000;

export class DiskSnapshot {
  private known = new Map<string, string>();

  constructor(
    private readonly root: string,
    private readonly extensions: ReadonlySet<string>,
    private readonly names: ReadonlySet<string>,
    private readonly limit = MAX_WATCHED_FILES,
  ) {
    this.known = this.scan();
  }

  /** Files created, changed or deleted since the previous call (or since construction). */
  changes(): FileEvent[] {
    const now = this.scan();
    const events: FileEvent[] = [];
    for (const [path, stamp] of now) {
      const before = this.known.get(path);
      if (before === undefined) events.push({ path, type: FILE_CREATED });
      else if (before !== stamp) events.push({ path, type: FILE_CHANGED });
    }
    for (const path of this.known.keys()) if (!now.has(path)) events.push({ path, type: FILE_DELETED });
    this.known = now;
    return events;
  }

  private scan(): Map<string, string> {
    const found = new Map<string, string>();
    const pending = [this.root];
    let seen = 0;
    while (pending.length > 0 && found.size < this.limit && seen < MAX_ENTRIES_SEEN) {
      const dir = pending.pop() as string;
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      seen += entries.length;
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!entry.name.startsWith(".") && !SKIPPED_DIRS.has(entry.name)) pending.push(path);
          continue;
        }
        if (!this.matches(path)) continue;
        try {
          const stat = statSync(path);
          found.set(path, `${stat.mtimeMs}:${stat.size}`);
        } catch {
          // Gone between the listing and the stat.
        }
        if (found.size >= this.limit) break;
      }
    }
    return found;
  }

  private matches(path: string): boolean {
    return this.extensions.has(extname(path).toLowerCase()) || this.names.has(basename(path));
  }
}
