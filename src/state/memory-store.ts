/**
 * Persistent memory: two small lists of entries, MEMORY.md (the agent's notes) and USER.md
 * (what it knows about the user), with a `§` line between entries and a character budget each.
 * Files are re-read before every operation, so hand edits are never overwritten, and written
 * atomically. The system prompt gets a snapshot frozen at load time, so the prompt stays
 * byte-stable for the whole session while the files change underneath.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { atomicWriteFile } from "../util/atomic-write.js";
import { scanForThreats } from "../util/threats.js";
import { FileLockTimeoutError, withFileLockSync } from "./file-lock.js";

export type MemoryTarget = "memory" | "user";

export interface MemoryStoreOptions {
  dir: string;
  memoryCharLimit?: number;
  userCharLimit?: number;
  /** `memory.user_profile_enabled`: when false, USER.md is neither shown in the prompt nor written. */
  userProfileEnabled?: boolean;
  /** How long a change waits for another process holding the memory file (default 5 s). */
  lockTimeoutMs?: number;
}

export interface MemoryStoreWrite {
  action: "add" | "replace" | "remove";
  target: MemoryTarget;
  content: string;
}

export interface MemoryResult {
  success: boolean;
  target?: MemoryTarget;
  message?: string;
  error?: string;
  /** The entries after a successful change. */
  entries?: string[];
  /** The entries as they stand, returned with a failure so the model can pick the right text. */
  currentEntries?: string[];
  usage?: string;
  entryCount?: number;
  /** Set once too many operations failed this turn: the model should stop and reply. */
  done?: boolean;
}

export const MEMORY_ENTRY_SEPARATOR = "\n§\n";
export const DEFAULT_MEMORY_CHAR_LIMIT = 2200;
export const DEFAULT_USER_CHAR_LIMIT = 1375;
/** Failures allowed in one turn before the store tells the model to give up. */
const MAX_FAILURES_PER_TURN = 3;
/** How long a memory change waits for another process holding the memory file. */
const LOCK_TIMEOUT_MS = 5_000;

const FILE_NAMES: Record<MemoryTarget, string> = { memory: "MEMORY.md", user: "USER.md" };
const SEPARATOR_LINE = /^[ \t]*§[ \t]*$/m;

export function parseMemoryFile(text: string): string[] {
  return text
    .split(SEPARATOR_LINE)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

export class MemoryStore {
  readonly dir: string;
  private readonly limits: Record<MemoryTarget, number>;
  private failures = 0;
  private frozen: string;
  private renderedSignature: string | undefined;
  private readonly writeListeners: Array<(write: MemoryStoreWrite) => void> = [];

  private readonly userProfileEnabled: boolean;
  private readonly lockTimeoutMs: number;

  constructor(options: MemoryStoreOptions) {
    this.dir = options.dir;
    this.lockTimeoutMs = options.lockTimeoutMs ?? LOCK_TIMEOUT_MS;
    this.userProfileEnabled = options.userProfileEnabled ?? true;
    this.limits = {
      memory: options.memoryCharLimit ?? DEFAULT_MEMORY_CHAR_LIMIT,
      user: options.userCharLimit ?? DEFAULT_USER_CHAR_LIMIT,
    };
    this.frozen = this.render();
  }

  path(target: MemoryTarget): string {
    return join(this.dir, FILE_NAMES[target]);
  }

  limit(target: MemoryTarget): number {
    return this.limits[target];
  }

  entries(target: MemoryTarget): string[] {
    try {
      return parseMemoryFile(readFileSync(this.path(target), "utf8"));
    } catch {
      return [];
    }
  }

  /** The text for the system prompt, as it was when the store was loaded (or last refreshed). */
  snapshot(): string {
    return this.frozen;
  }

  /** Take a new snapshot, for the start of a new session. */
  refreshSnapshot(): string {
    // A long-lived process starts many sessions: the files are only read again when they changed.
    const signature = this.filesSignature();
    if (signature === undefined || signature !== this.renderedSignature) {
      this.frozen = this.render();
      this.renderedSignature = signature;
    }
    return this.frozen;
  }

  /**
   * Inode, size and mtime of both files (or their absence), or undefined while either was
   * modified in the last second: file times tick coarsely, so a same-size rewrite within one
   * tick would otherwise look unchanged.
   */
  private filesSignature(): string | undefined {
    const recent = BigInt(Date.now() - 1000) * 1_000_000n;
    const parts: string[] = [];
    for (const target of ["memory", "user"] as const) {
      const stat = statSync(this.path(target), { throwIfNoEntry: false, bigint: true });
      if (stat && stat.mtimeNs > recent) return undefined;
      parts.push(stat ? `${stat.ino}:${stat.size}:${stat.mtimeNs}` : "-");
    }
    return parts.join("|");
  }

  /** Reset the per-turn failure counter; the agent calls this when a new user turn starts. */
  startTurn(): void {
    this.failures = 0;
  }

  usage(target: MemoryTarget, entries = this.entries(target)): string {
    const used = charCount(entries);
    const limit = this.limits[target];
    const percent = limit > 0 ? Math.round((used / limit) * 100) : 100;
    return `${percent}% — ${used}/${limit} chars`;
  }

  /**
   * Changes run under a lock file beside the memory file and re-read it inside the lock, so
   * two processes (a CLI session and the gateway, say) never lose each other's entries.
   */
  add(target: MemoryTarget, content: string): MemoryResult {
    return this.told(
      { action: "add", target, content },
      this.locked(target, () => this.addUnlocked(target, content)),
    );
  }

  replace(target: MemoryTarget, oldText: string, newContent: string): MemoryResult {
    const result = this.locked(target, () => this.replaceUnlocked(target, oldText, newContent));
    return this.told({ action: "replace", target, content: newContent }, result);
  }

  remove(target: MemoryTarget, oldText: string): MemoryResult {
    return this.told(
      { action: "remove", target, content: oldText },
      this.locked(target, () => this.removeUnlocked(target, oldText)),
    );
  }

  /** `listener` hears of every successful change (a memory provider mirrors them). */
  onWrite(listener: (write: MemoryStoreWrite) => void): void {
    this.writeListeners.push(listener);
  }

  private told(write: MemoryStoreWrite, result: MemoryResult): MemoryResult {
    if (result.success) for (const listener of this.writeListeners) listener(write);
    return result;
  }

  private locked(target: MemoryTarget, change: () => MemoryResult): MemoryResult {
    try {
      return withFileLockSync(`${this.path(target)}.lock`, change, { timeoutMs: this.lockTimeoutMs });
    } catch (error) {
      if (!(error instanceof FileLockTimeoutError)) throw error;
      return this.fail(
        target,
        this.entries(target),
        `The ${target} file is being changed by another process; try again.`,
      );
    }
  }

  private addUnlocked(target: MemoryTarget, content: string): MemoryResult {
    if (target === "user" && !this.userProfileEnabled) return this.fail(target, [], USER_PROFILE_OFF);
    const entry = content.trim();
    const entries = this.entries(target);
    const invalid = this.validateContent(entry);
    if (invalid) return this.fail(target, entries, invalid);
    if (entries.includes(entry)) {
      return this.succeed(target, entries, "That entry is already saved; nothing changed.", false);
    }
    const next = [...entries, entry];
    const over = this.overLimit(target, next);
    if (over) {
      return this.fail(
        target,
        entries,
        `Adding this entry would exceed the ${target} limit (${over}). ` +
          "Consolidate or remove existing entries with replace or remove, then retry.",
      );
    }
    return this.succeed(target, next, "Entry added.");
  }

  private replaceUnlocked(target: MemoryTarget, oldText: string, newContent: string): MemoryResult {
    if (target === "user" && !this.userProfileEnabled) return this.fail(target, [], USER_PROFILE_OFF);
    const entries = this.entries(target);
    const entry = newContent.trim();
    if (!oldText.trim())
      return this.fail(target, entries, "old_text is empty: give a unique part of the entry to replace.");
    const invalid = this.validateContent(entry);
    if (invalid) return this.fail(target, entries, invalid);
    const found = this.findOne(entries, oldText);
    if ("error" in found) return this.fail(target, entries, found.error);
    const next = [...entries];
    if (next.some((existing, i) => i !== found.index && existing === entry)) next.splice(found.index, 1);
    else next[found.index] = entry;
    const over = this.overLimit(target, next);
    if (over) {
      return this.fail(
        target,
        entries,
        `The replacement would exceed the ${target} limit (${over}). Shorten it or remove other entries, then retry.`,
      );
    }
    return this.succeed(target, next, "Entry replaced.");
  }

  private removeUnlocked(target: MemoryTarget, oldText: string): MemoryResult {
    if (target === "user" && !this.userProfileEnabled) return this.fail(target, [], USER_PROFILE_OFF);
    const entries = this.entries(target);
    if (!oldText.trim())
      return this.fail(target, entries, "old_text is empty: give a unique part of the entry to remove.");
    const found = this.findOne(entries, oldText);
    if ("error" in found) return this.fail(target, entries, found.error);
    const next = entries.filter((_, i) => i !== found.index);
    return this.succeed(target, next, "Entry removed.");
  }

  private validateContent(entry: string): string | null {
    if (!entry) return "Content is empty: nothing to save.";
    if (SEPARATOR_LINE.test(entry)) return "Content may not contain a line holding only §, which separates entries.";
    const threats = scanForThreats(entry, "strict");
    if (threats.length) {
      return (
        `Blocked: the content matches threat pattern(s) ${threats.join(", ")}. Memory is loaded into future ` +
        "system prompts, so it may not hold instructions to the agent, secrets or credential paths. Save a plain fact instead."
      );
    }
    return null;
  }

  /** The single entry containing `needle`; several identical entries count as one. */
  private findOne(entries: string[], needle: string): { index: number } | { error: string } {
    const hits = entries.flatMap((entry, index) => (entry.includes(needle) ? [index] : []));
    const first = hits[0];
    if (first === undefined) return { error: `No entry matched "${needle}".` };
    if (hits.some((index) => entries[index] !== entries[first])) {
      return { error: `Multiple entries (${hits.length}) matched "${needle}": use a longer part of the one you mean.` };
    }
    return { index: first };
  }

  private overLimit(target: MemoryTarget, entries: string[]): string | null {
    const used = charCount(entries);
    const limit = this.limits[target];
    return used > limit ? `${used}/${limit} chars` : null;
  }

  private succeed(target: MemoryTarget, entries: string[], message: string, write = true): MemoryResult {
    if (write) {
      const text = entries.length ? `${entries.join(MEMORY_ENTRY_SEPARATOR)}\n` : "";
      atomicWriteFile(this.path(target), text);
    }
    this.failures = 0;
    return {
      success: true,
      target,
      message,
      entries,
      usage: this.usage(target, entries),
      entryCount: entries.length,
    };
  }

  private fail(target: MemoryTarget, entries: string[], error: string): MemoryResult {
    this.failures++;
    if (this.failures > MAX_FAILURES_PER_TURN) {
      return {
        success: false,
        target,
        done: true,
        error: `${error} Memory changes have failed ${this.failures} times this turn: stop changing memory now and continue with your reply.`,
      };
    }
    return { success: false, target, error, currentEntries: entries, usage: this.usage(target, entries) };
  }

  private render(): string {
    const sections: string[] = [];
    const memory = this.entries("memory");
    if (memory.length) {
      sections.push(
        `MEMORY (your notes from earlier sessions) [${this.usage("memory", memory)}]\n${memory.join(MEMORY_ENTRY_SEPARATOR)}`,
      );
    }
    const user = this.userProfileEnabled ? this.entries("user") : [];
    if (user.length) {
      sections.push(
        `USER PROFILE (what you know about the user) [${this.usage("user", user)}]\n${user.join(MEMORY_ENTRY_SEPARATOR)}`,
      );
    }
    return sections.join("\n\n");
  }
}

const USER_PROFILE_OFF =
  "The user profile is turned off in this setup (memory.user_profile_enabled: false); keep the note in target memory if it matters.";

function charCount(entries: string[]): number {
  return entries.join(MEMORY_ENTRY_SEPARATOR).length;
}
