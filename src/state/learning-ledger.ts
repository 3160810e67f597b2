/**
 * The audit ledger of the agent's changes to its memory and skills:
 * `$HERMES_HOME/learning/ledger.jsonl`, one change per line with the files' contents before and
 * after, appended under a lock so the CLI, the gateway and their background reviews never
 * interleave. A change is undone by writing the "before" contents back, which is itself recorded.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { atomicWriteFile } from "../util/atomic-write.js";
import type { ChangeLedger, NewChange } from "../util/change-ledger.js";
import { unifiedDiff } from "../util/unified-diff.js";
import { withFileLockSync } from "./file-lock.js";

export interface LedgerEntry extends NewChange {
  id: number;
  /** Milliseconds since the epoch. */
  at: number;
}

export interface UndoResult {
  entry: LedgerEntry;
  /** Files changed again since the change: left alone unless `force`. */
  conflicts: string[];
  /** The change recording the undo (absent when conflicts stopped it). */
  undo?: LedgerEntry;
}

export class LedgerError extends Error {}

export class LearningLedger implements ChangeLedger {
  readonly path: string;

  constructor(
    private readonly home: string,
    private readonly now: () => number = Date.now,
  ) {
    this.path = join(home, "learning", "ledger.jsonl");
  }

  /** Appends a change and returns it with its id; nothing is written when no file changed. */
  record(change: NewChange): LedgerEntry | undefined {
    if (change.files.length === 0) return undefined;
    mkdirSync(dirname(this.path), { recursive: true });
    return withFileLockSync(`${this.path}.lock`, () => {
      const last = this.readAll().at(-1);
      const entry: LedgerEntry = { id: (last?.id ?? 0) + 1, at: this.now(), ...change };
      appendFileSync(this.path, `${JSON.stringify(entry)}\n`);
      return entry;
    });
  }

  /** Newest first. */
  list(options: { limit?: number } = {}): LedgerEntry[] {
    const all = this.readAll().reverse();
    return options.limit === undefined ? all : all.slice(0, options.limit);
  }

  get(id: number): LedgerEntry | undefined {
    return this.readAll().find((entry) => entry.id === id);
  }

  /** What the change did, as unified diffs with paths relative to HERMES_HOME. */
  diff(entry: LedgerEntry): string {
    return entry.files
      .map((file) => unifiedDiff(file.before ?? "", file.after ?? "", relative(this.home, file.path)))
      .join("\n");
  }

  /**
   * Puts the files of change `id` back as they were before it. A file changed again since (by
   * a later change or by hand) is a conflict: nothing is written unless `force`.
   */
  undo(id: number, options: { force?: boolean; sessionId?: string } = {}): UndoResult {
    const entry = this.get(id);
    if (!entry) throw new LedgerError(`no change with id ${id} (hermes learn log lists them)`);
    const conflicts = entry.files.filter((file) => readOrNull(file.path) !== file.after).map((file) => file.path);
    if (conflicts.length > 0 && !options.force) return { entry, conflicts };
    const files = entry.files.map((file) => ({ path: file.path, before: readOrNull(file.path), after: file.before }));
    for (const file of files) {
      if (file.after !== null) atomicWriteFile(file.path, file.after);
      else {
        rmSync(file.path, { force: true });
        removeIfEmpty(dirname(file.path));
      }
    }
    const undo = this.record({
      actor: "user",
      sessionId: options.sessionId ?? "",
      kind: entry.kind,
      target: entry.target,
      action: "undo",
      summary: `undid change ${entry.id} (${entry.summary})`,
      files,
      undoes: entry.id,
    });
    return { entry, conflicts, ...(undo ? { undo } : {}) };
  }

  private readAll(): LedgerEntry[] {
    if (!existsSync(this.path)) return [];
    const entries: LedgerEntry[] = [];
    for (const line of readFileSync(this.path, "utf8").split("\n")) {
      if (!line.trim()) continue;
      try {
        entries.push(JSON.parse(line) as LedgerEntry);
      } catch {
        // A line cut short by a crash is skipped; the entries around it still count.
      }
    }
    return entries;
  }
}

/** A skill folder left empty by undoing its creation goes too. */
function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // Already gone, or not ours to remove.
  }
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
