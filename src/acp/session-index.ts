/**
 * What the session store does not keep about an editor session: its working directory, mode
 * and model. Kept in `$HERMES_HOME/acp/sessions.json` so `session/load` and `session/list`
 * work after the agent process restarts. Bounded: the oldest entries are dropped.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface IndexedSession {
  cwd: string;
  mode: string;
  model: string;
  /** The stored session the conversation continues in (a new one after /reset or compression). */
  storeId: string;
  updatedAt: number;
}

const MAX_ENTRIES = 2000;

function valid(entry: unknown): entry is IndexedSession {
  if (!entry || typeof entry !== "object") return false;
  const e = entry as Record<string, unknown>;
  return (
    typeof e.cwd === "string" &&
    typeof e.mode === "string" &&
    typeof e.model === "string" &&
    typeof e.storeId === "string" &&
    typeof e.updatedAt === "number"
  );
}

export class SessionIndex {
  private readonly path: string;
  private entries = new Map<string, IndexedSession>();

  constructor(home: string) {
    this.path = join(home, "acp", "sessions.json");
    try {
      const raw = JSON.parse(readFileSync(this.path, "utf8")) as Record<string, unknown>;
      for (const [id, entry] of Object.entries(raw)) if (valid(entry)) this.entries.set(id, entry);
    } catch {
      // Missing or unreadable: start empty; sessions still load from the store with defaults.
    }
  }

  get(id: string): IndexedSession | undefined {
    return this.entries.get(id);
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  put(id: string, entry: Omit<IndexedSession, "updatedAt">): void {
    this.entries.delete(id);
    this.entries.set(id, { ...entry, updatedAt: Date.now() });
    while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value ?? "");
    this.save();
  }

  private save(): void {
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      const temp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(Object.fromEntries(this.entries)), { mode: 0o600 });
      renameSync(temp, this.path);
    } catch {
      // Best effort: losing this only loses the remembered cwd and mode of a session.
    }
  }
}
