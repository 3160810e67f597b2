/**
 * Checkpoints taken on the agent's behalf: before the first change to a project in a turn,
 * one snapshot of that project; at the end of the turn, an after-turn mark for each project
 * touched, so later hand edits can be told apart from the agent's. Never throws: failures
 * come back as null and a warning.
 */
import { existsSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, parse, resolve } from "node:path";
import { GitError } from "./git.js";
import { type Checkpoint, type CheckpointStore, type CheckpointStoreOptions, openCheckpointStore } from "./store.js";

export interface CheckpointTrackerOptions extends Omit<CheckpointStoreOptions, "projectDir"> {
  /** Told about every failure (git missing, permissions, a broken shadow repository). */
  onWarning?: (message: string) => void;
}

export interface TurnInfo {
  turn?: number;
  sessionId?: string;
  /** Defaults to "before changes in turn <n>". */
  reason?: string;
}

export class CheckpointTracker {
  private readonly stores = new Map<string, Promise<CheckpointStore>>();
  /** Projects handled this turn, with the snapshot taken (or being taken) for each. */
  private thisTurn = new Map<string, Promise<Checkpoint | null>>();
  private disabled: string | null = null;

  constructor(private readonly options: CheckpointTrackerOptions) {}

  /**
   * Snapshot the project containing `dir` (a directory, or a file path that may not exist
   * yet) unless that was done already this turn. The project is the nearest ancestor with a
   * `.git`, else the nearest existing directory itself; `/` and the home directory are never
   * snapshotted. Resolves once the snapshot is on disk, so the caller can go on and change
   * files. Null when no snapshot was taken (already done this turn, nothing changed,
   * refused, or failed).
   */
  async beforeChange(dir: string, info: TurnInfo = {}): Promise<Checkpoint | null> {
    if (this.disabled) return null;
    const root = projectRoot(dir);
    if (root === null) return null;
    const earlier = this.thisTurn.get(root);
    if (earlier) {
      await earlier;
      return null;
    }
    const reason = info.reason ?? (info.turn === undefined ? "before changes" : `before changes in turn ${info.turn}`);
    const snapshot = this.guard(root, async () => {
      const store = await this.store(root);
      return store.snapshot({ reason, turn: info.turn, sessionId: info.sessionId });
    });
    this.thisTurn.set(root, snapshot);
    return snapshot;
  }

  /** Start a new turn: every project may be snapshotted once more. */
  newTurn(): void {
    this.thisTurn = new Map();
  }

  /**
   * Record the after-turn mark of every project touched this turn. Call it however the turn
   * ended (interrupted too): changes made after the mark count as hand edits on restore.
   */
  async endTurn(): Promise<void> {
    if (this.disabled) return;
    const roots = [...this.thisTurn.keys()];
    await Promise.all([...this.thisTurn.values()]);
    for (const root of roots) {
      await this.guard(root, async () => (await this.store(root)).markTurnEnd());
    }
  }

  private store(root: string): Promise<CheckpointStore> {
    let store = this.stores.get(root);
    if (!store) {
      const { onWarning: _ignored, ...storeOptions } = this.options;
      store = openCheckpointStore({ ...storeOptions, projectDir: root });
      // A failed open is retried next time rather than remembered.
      store.catch(() => this.stores.delete(root));
      this.stores.set(root, store);
    }
    return store;
  }

  private async guard<T>(root: string, task: () => Promise<T>): Promise<T | null> {
    try {
      return await task();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      if (error instanceof GitError && error.gitMissing) {
        // Without git there will be no checkpoints this session; say so once.
        this.disabled = detail;
        this.warn(`Checkpoints are off: ${detail}. Install git to be able to roll back file changes.`);
      } else {
        this.warn(`Could not checkpoint ${root}: ${detail}`);
      }
      return null;
    }
  }

  private warn(message: string): void {
    try {
      this.options.onWarning?.(message);
    } catch {
      // A failing warning sink must not break the caller either.
    }
  }
}

/**
 * The project directory for `dir`: the nearest ancestor (of the nearest existing directory)
 * that holds a `.git`, else that directory; null for the filesystem root and the home directory.
 */
export function projectRoot(dir: string): string | null {
  let start = resolve(dir);
  for (;;) {
    const info = statOrNull(start);
    if (info?.isDirectory()) break;
    if (start === parse(start).root) return null;
    start = dirname(start);
  }
  let root = start;
  for (let at = start; ; at = dirname(at)) {
    if (existsSync(join(at, ".git"))) {
      root = at;
      break;
    }
    if (at === parse(at).root) break;
  }
  if (root === parse(root).root || root === resolve(homedir())) return null;
  return root;
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
