/**
 * Coordination between replicas on one PostgreSQL database (see ../coordination.ts).
 *
 * Ownership is a session-level advisory lock held on a connection of its own: PostgreSQL releases
 * it the moment that connection ends, so a replica that is killed gives up what it owned as soon
 * as its socket closes, with no expiry to wait for. The others ask again on their own schedule.
 * Session leases are rows with an expiry, taken or renewed in one statement.
 */
import type { Client, QueryConfig } from "pg";
import type { Coordination } from "../coordination.js";
import { PgConnection } from "./connection.js";

export class PgCoordination implements Coordination {
  readonly shared = true;
  private owner: Client | undefined;
  private readonly owned = new Set<string>();

  private constructor(private readonly conn: PgConnection) {}

  static async open(url: string): Promise<PgCoordination> {
    return new PgCoordination(await PgConnection.open(url));
  }

  /** The connection that holds this process's advisory locks, opened on first use. */
  private async ownerClient(): Promise<Client> {
    if (this.owner) return this.owner;
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: this.conn.url });
    // A lost connection has lost its locks: forget them, so the next tryOwn asks again.
    client.on("error", () => this.forgetOwner(client));
    client.on("end", () => this.forgetOwner(client));
    await client.connect();
    this.owner = client;
    return client;
  }

  private forgetOwner(client: Client): void {
    if (this.owner !== client) return;
    this.owner = undefined;
    this.owned.clear();
    // Ending the session frees whatever it may still hold, so no replica waits on a lock nobody uses.
    void client.end().catch(() => undefined);
  }

  async tryOwn(name: string): Promise<boolean> {
    if (this.owned.has(name) && this.owner) {
      // A lock is held as long as its session lives: one round trip shows it does, where
      // trusting memory could keep a replica listening after its session was ended.
      const owner = this.owner;
      try {
        await owner.query("SELECT 1");
        return true;
      } catch {
        this.forgetOwner(owner);
      }
    }
    const client = await this.ownerClient();
    const { rows } = await client.query<{ got: boolean }>(
      "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got",
      [`hermes:${name}`],
    );
    if (rows[0]?.got) this.owned.add(name);
    return rows[0]?.got === true;
  }

  async release(name: string): Promise<void> {
    if (!this.owned.delete(name) || !this.owner) return;
    await this.owner.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [`hermes:${name}`]);
  }

  async leaseSession(sessionKey: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    // Bounded, so a stuck request fails and its connection is dropped; the turn asks again.
    const lease: QueryConfig & { query_timeout: number } = {
      text: `INSERT INTO gateway_session_leases (session_key, holder, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (session_key) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE gateway_session_leases.holder = EXCLUDED.holder OR gateway_session_leases.expires_at <= $4
       RETURNING holder`,
      values: [sessionKey, holder, now + ttlMs, now],
      query_timeout: Math.max(1_000, Math.min(10_000, ttlMs / 3)),
    };
    const { rows } = await this.conn.pool.query<{ holder: string }>(lease);
    return rows.length === 1;
  }

  async releaseSession(sessionKey: string, holder: string): Promise<void> {
    await this.conn.query("DELETE FROM gateway_session_leases WHERE session_key = $1 AND holder = $2", [
      sessionKey,
      holder,
    ]);
  }

  async close(): Promise<void> {
    const owner = this.owner;
    this.owner = undefined;
    this.owned.clear();
    if (owner) await owner.end().catch(() => {});
    await this.conn.close();
  }
}
