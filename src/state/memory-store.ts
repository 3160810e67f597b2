/**
 * Persistent memory: two small lists of entries, MEMORY.md (the agent's notes) and USER.md
 * (what it knows about the user), with a `§` line between entries and a character budget each.
 * Files are re-read before every operation, so hand edits are never overwritten, and written
 * atomically. The system prompt gets a snapshot frozen at load time, so the prompt stays
 * byte-stable for the whole session while the files change underneath. Entries on disk that
 * carry a threat pattern are shown as `[BLOCKED: ...]` placeholders; a file the store cannot
 * rewrite without losing text (not UTF-8, or edited outside the store) is left untouched.
 */
import { copyFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { atomicWriteFile } from "../util/atomic-write.js";
import { scanForThreats } from "../util/threats.js";
import { FileLockTimeoutError, withFileLockSync } from "./file-lock.js";
import { entriesForDisplay, formatUsage, MEMORY_THREAT_SCOPE } from "./memory-display.js";
import {
  findDrift,
  MEMORY_ENTRY_SEPARATOR,
  type MemoryFileRead,
  readMemoryFile,
  SEPARATOR_LINE,
} from "./memory-file.js";
import { findOne } from "./memory-match.js";

export { MEMORY_ENTRY_SEPARATOR, parseMemoryFile } from "./memory-file.js";

export type MemoryTarget = "memory" | "user";

export interface MemoryStoreOptions {
  dir: string;
  /** Numeric strings (as config files may hold) are read as numbers. */
  memoryCharLimit?: number | string;
  userCharLimit?: number | string;
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
  /** Short previews of the entries an ambiguous old_text matched. */
  matches?: string[];
  /** The full text of the entry a replace overwrote. */
  replacedEntry?: string;
  /** Where a copy of a file that drifted from the store's own format was saved. */
  driftBackup?: string;
  usage?: string;
  entryCount?: number;
  /** Set once too many operations failed this turn: the model should stop and reply. */
  done?: boolean;
}

export const DEFAULT_MEMORY_CHAR_LIMIT = 2200;
export const DEFAULT_USER_CHAR_LIMIT = 1375;
/** Failures allowed in one turn before the store tells the model to give up. */
const MAX_FAILURES_PER_TURN = 3;
/** How long a memory change waits for another process holding the memory file. */
const LOCK_TIMEOUT_MS = 5_000;

const FILE_NAMES: Record<MemoryTarget, string> = { memory: "MEMORY.md", user: "USER.md" };

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
      memory: charLimit(options.memoryCharLimit, DEFAULT_MEMORY_CHAR_LIMIT),
      user: charLimit(options.userCharLimit, DEFAULT_USER_CHAR_LIMIT),
    };
    this.frozen = this.render();
  }

  path(target: MemoryTarget): string {
    return join(this.dir, FILE_NAMES[target]);
  }

  limit(target: MemoryTarget): number {
    return this.limits[target];
  }

  /** The live entries, raw (a file that is not valid UTF-8 is read with replacement characters). */
  entries(target: MemoryTarget): string[] {
    return readMemoryFile(this.path(target)).entries;
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
    return formatUsage(charCount(entries), this.limits[target]);
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
    const file = readMemoryFile(this.path(target));
    if (!file.readable) return this.unreadable(target, file);
    const { entries } = file;
    const entry = content.trim();
    const invalid = this.validateContent(entry);
    if (invalid) return this.fail(target, entries, invalid);
    if (entries.includes(entry)) {
      return this.succeed(target, entries, "That entry is already saved; nothing changed.", false);
    }
    // No drift check: the file is rewritten from all its entries plus one, so text appended
    // without a separator survives inside the entry it was appended to.
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
    const file = readMemoryFile(this.path(target));
    if (!file.readable) return this.unreadable(target, file);
    const { entries } = file;
    const entry = newContent.trim();
    if (!oldText.trim())
      return this.fail(target, entries, "old_text is empty: give a unique part of the entry to replace.");
    const invalid = this.validateContent(entry);
    if (invalid) return this.fail(target, entries, invalid);
    const drifted = this.refuseDrift(target, file.text, entries);
    if (drifted) return drifted;
    const found = findOne(entries, oldText);
    if ("error" in found) return this.fail(target, entries, found.error, found.matches);
    const replacedEntry = entries[found.index]!;
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
    return { ...this.succeed(target, next, "Entry replaced."), replacedEntry };
  }

  private removeUnlocked(target: MemoryTarget, oldText: string): MemoryResult {
    if (target === "user" && !this.userProfileEnabled) return this.fail(target, [], USER_PROFILE_OFF);
    const file = readMemoryFile(this.path(target));
    if (!file.readable) return this.unreadable(target, file);
    const { entries } = file;
    if (!oldText.trim())
      return this.fail(target, entries, "old_text is empty: give a unique part of the entry to remove.");
    const drifted = this.refuseDrift(target, file.text, entries);
    if (drifted) return drifted;
    const found = findOne(entries, oldText);
    if ("error" in found) return this.fail(target, entries, found.error, found.matches);
    const next = entries.filter((_, i) => i !== found.index);
    return this.succeed(target, next, "Entry removed.");
  }

  private unreadable(target: MemoryTarget, file: Extract<MemoryFileRead, { readable: false }>): MemoryResult {
    return this.fail(
      target,
      file.entries,
      `${FILE_NAMES[target]} could not be read (${file.reason}), so it was left unchanged. ` +
        "Repair or move the file by hand, then retry.",
    );
  }

  /**
   * A replace or remove rewrites the whole file from its parsed entries. When the file holds
   * text that would not survive that, keep it as it is, save a copy beside it and refuse.
   */
  private refuseDrift(target: MemoryTarget, text: string, entries: string[]): MemoryResult | null {
    const reason = findDrift(text, this.limits[target]);
    if (!reason) return null;
    const path = this.path(target);
    let backup = `${path}.bak.${Math.floor(Date.now() / 1000)}`;
    let saved = `A copy was saved to ${backup}.`;
    try {
      copyFileSync(path, backup);
    } catch {
      backup = `${backup} (not written)`;
      saved = "Saving a copy failed; the file itself is unchanged.";
    }
    const result = this.fail(
      target,
      entries,
      `Refusing to rewrite ${FILE_NAMES[target]}: ${reason}, so rewriting it could drop text that was not ` +
        `saved through the memory tool (a hand edit, a shell append or another program). ${saved} ` +
        "Move the extra text out of the file or turn it into §-separated entries (memory(action=add) can " +
        "re-save its facts one by one), then retry.",
    );
    return { ...result, driftBackup: backup };
  }

  private validateContent(entry: string): string | null {
    if (!entry) return "Content is empty: nothing to save.";
    if (SEPARATOR_LINE.test(entry)) return "Content may not contain a line holding only §, which separates entries.";
    const threats = scanForThreats(entry, MEMORY_THREAT_SCOPE);
    const invisible = threats.find((id) => id.startsWith(INVISIBLE_ID_PREFIX));
    if (invisible) {
      const others = threats.filter((id) => !id.startsWith(INVISIBLE_ID_PREFIX));
      const also = others.length ? ` It also matches threat pattern(s) ${others.join(", ")}.` : "";
      return `Blocked: content contains invisible unicode character ${invisible.slice(INVISIBLE_ID_PREFIX.length)} (possible injection).${also}`;
    }
    if (threats.length) {
      return (
        `Blocked: the content matches threat pattern(s) ${threats.join(", ")}. Memory is loaded into future ` +
        "system prompts, so it may not hold instructions to the agent, secrets or credential paths. Save a plain fact instead."
      );
    }
    return null;
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
      entries: entriesForDisplay(entries, FILE_NAMES[target]),
      usage: this.usage(target, entries),
      entryCount: entries.length,
    };
  }

  private fail(target: MemoryTarget, entries: string[], error: string, matches?: string[]): MemoryResult {
    this.failures++;
    if (this.failures > MAX_FAILURES_PER_TURN) {
      return {
        success: false,
        target,
        done: true,
        error: `${error} Memory changes have failed ${this.failures} times this turn: stop changing memory now and continue with your reply.`,
      };
    }
    return {
      success: false,
      target,
      error,
      currentEntries: entriesForDisplay(entries, FILE_NAMES[target]),
      ...(matches ? { matches } : {}),
      usage: this.usage(target, entries),
    };
  }

  private render(): string {
    const sections: string[] = [];
    const memory = this.entries("memory");
    if (memory.length) {
      const shown = entriesForDisplay(memory, FILE_NAMES.memory);
      sections.push(
        `MEMORY (your notes from earlier sessions) [${this.usage("memory", memory)}]\n${shown.join(MEMORY_ENTRY_SEPARATOR)}`,
      );
    }
    const user = this.userProfileEnabled ? this.entries("user") : [];
    if (user.length) {
      const shown = entriesForDisplay(user, FILE_NAMES.user);
      sections.push(
        `USER PROFILE (what you know about the user) [${this.usage("user", user)}]\n${shown.join(MEMORY_ENTRY_SEPARATOR)}`,
      );
    }
    return sections.join("\n\n");
  }
}

const USER_PROFILE_OFF =
  "The user profile is turned off in this setup (memory.user_profile_enabled: false); keep the note in target memory if it matters.";
const INVISIBLE_ID_PREFIX = "invisible_unicode_";

function charCount(entries: string[]): number {
  return entries.join(MEMORY_ENTRY_SEPARATOR).length;
}

/** A limit from options: numbers as given, numeric strings parsed, anything else the default. */
function charLimit(value: number | string | undefined, fallback: number): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  return fallback;
}
