/**
 * A record of every change the agent makes to its own memory and skills, so it can be seen and
 * undone (`hermes learn log`, `hermes learn undo ID`). Tools capture the files a change touches
 * before and after it and hand the difference to the ledger their session was given
 * (`ctx.services.changeLedger`); the ledger itself lives in the state layer.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Who made a change: the model through a tool, the background review, /learn, the curator, the user. */
export type ChangeActor = "agent" | "review" | "learn" | "curator" | "user";

export interface FileChange {
  path: string;
  /** Null: the file did not exist. */
  before: string | null;
  after: string | null;
}

export interface NewChange {
  actor: ChangeActor;
  sessionId: string;
  kind: "memory" | "skill";
  /** "MEMORY.md", "USER.md", or the skill's name. */
  target: string;
  action: string;
  summary: string;
  files: FileChange[];
  /** The id of the change this one reverts. */
  undoes?: number;
}

export interface ChangeLedger {
  record(change: NewChange): unknown;
}

export function isChangeLedger(value: unknown): value is ChangeLedger {
  return typeof (value as Partial<ChangeLedger> | undefined)?.record === "function";
}

const ACTORS = new Set<ChangeActor>(["agent", "review", "learn", "curator", "user"]);

/** Who the session says is acting (the background review runs tools as "review"); "agent" otherwise. */
export function changeActor(value: unknown): ChangeActor {
  return ACTORS.has(value as ChangeActor) ? (value as ChangeActor) : "agent";
}

/**
 * Records what changed between two snapshots with the ledger and actor a tool's session was
 * given (`services.changeLedger`, `services.changeActor`); nothing when there is no ledger or no change.
 */
export async function recordChange(
  services: Record<string, unknown> | undefined,
  sessionId: string | undefined,
  change: Pick<NewChange, "kind" | "target" | "action" | "summary">,
  before: FileSnapshot,
  after: FileSnapshot,
): Promise<void> {
  const ledger = services?.changeLedger;
  if (!isChangeLedger(ledger)) return;
  const files = changedFiles(before, after);
  if (files.length === 0) return;
  await ledger.record({ ...change, actor: changeActor(services?.changeActor), sessionId: sessionId ?? "", files });
}

/** Skill folders are small; a bigger one is not captured whole (the change is still recorded by name). */
const MAX_CAPTURED_FILES = 200;

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** Every plain file under `dir` (relative paths joined back onto it), none when it does not exist. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (current: string) => {
    let names: string[];
    try {
      names = readdirSync(current).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (out.length >= MAX_CAPTURED_FILES) return;
      const path = join(current, name);
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) out.push(path);
    }
  };
  walk(dir);
  return out;
}

export type FileSnapshot = Map<string, string | null>;

export function snapshotFiles(paths: Iterable<string>): FileSnapshot {
  const snapshot: FileSnapshot = new Map();
  for (const path of paths) snapshot.set(path, readOrNull(path));
  return snapshot;
}

/** The files whose content differs between two snapshots (a file in only one of them counts). */
export function changedFiles(before: FileSnapshot, after: FileSnapshot): FileChange[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  const changes: FileChange[] = [];
  for (const path of [...paths].sort()) {
    const was = before.get(path) ?? null;
    const now = after.has(path) ? (after.get(path) ?? null) : readOrNull(path);
    if (was !== now) changes.push({ path, before: was, after: now });
  }
  return changes;
}
