/**
 * What replicas of one gateway agree on through their shared store:
 * - ownership of things only one process may do at a time (a Telegram bot token allows one
 *   long-poll listener): `tryOwn(name)` succeeds in exactly one process and stays with it until it
 *   releases it or dies;
 * - session leases: one replica runs a session's turn at a time; a lease names its holder and
 *   expires, so a replica that dies mid-turn frees the session after the lease's time.
 * With the embedded store there is one gateway process, so it always owns everything it asks for.
 */

export interface Coordination {
  /** False for the embedded store: one process, nothing to agree on. */
  readonly shared: boolean;
  /** Whether this process now owns `name` (already owning it counts). */
  tryOwn(name: string): Promise<boolean>;
  /** Gives `name` up, for another replica to take. */
  release(name: string): Promise<void>;
  /** Takes or renews the lease on `sessionKey` for `holder` until `now + ttlMs`; false when another holds it. */
  leaseSession(sessionKey: string, holder: string, ttlMs: number, now?: number): Promise<boolean>;
  /** Ends `holder`'s lease on `sessionKey` (nothing when another holds it). */
  releaseSession(sessionKey: string, holder: string): Promise<void>;
  close(): Promise<void>;
}

/** One process: everything asked for is granted; leases are kept in memory with the same rules. */
export class LocalCoordination implements Coordination {
  readonly shared = false;
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();

  async tryOwn(_name: string): Promise<boolean> {
    return true;
  }

  async release(_name: string): Promise<void> {}

  async leaseSession(sessionKey: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    const lease = this.leases.get(sessionKey);
    if (lease && lease.holder !== holder && lease.expiresAt > now) return false;
    this.leases.set(sessionKey, { holder, expiresAt: now + ttlMs });
    return true;
  }

  async releaseSession(sessionKey: string, holder: string): Promise<void> {
    if (this.leases.get(sessionKey)?.holder === holder) this.leases.delete(sessionKey);
  }

  async close(): Promise<void> {
    this.leases.clear();
  }
}

/** The coordination for a store location: in-process for the embedded store, PostgreSQL's otherwise. */
export async function openCoordination(location: string): Promise<Coordination> {
  if (!/^postgres(ql)?:\/\//i.test(location)) return new LocalCoordination();
  const { PgCoordination } = await import("./postgres/coordination.js");
  return PgCoordination.open(location);
}
