/**
 * The messaging gateway's tables in PostgreSQL: the same rows as the embedded store
 * (sqlite-gateway-store.ts), shared by every gateway replica. Where SQLite's single writer made a
 * check-then-write atomic, here each one is a single statement or a transaction that serialises
 * itself: a redelivered message loses on the primary key (`ON CONFLICT DO NOTHING`), a state
 * change is one `UPDATE ... RETURNING`, the pairing limits are checked under a transaction-scoped
 * advisory lock on the platform, and approving a code deletes it first, so one approver gets the
 * user. `seq` (schema V8) stands in for SQLite's rowid where rows of one millisecond are ordered.
 */

import type { QueryResultRow } from "pg";
import {
  APPROVED_COLUMNS,
  type ApprovedRow,
  approvedValues,
  DELIVERY_COLUMNS,
  type DeliveryRow,
  HOME_COLUMNS,
  type HomeChannelRow,
  INBOUND_COLUMNS,
  type InboundRow,
  inboundKeyValues,
  newDeliveryValues,
  newInboundValues,
  PAIRING_COLUMNS,
  type PairingRow,
  pairingValues,
  type RecentChatRow,
  ROUTE_COLUMNS,
  recentChatsSql,
  type SessionRouteRow,
  toApproved,
  toDelivery,
  toHomeChannel,
  toInbound,
  toPairing,
  toRecentChat,
  toSessionRoute,
} from "../gateway-codec.js";
import type {
  ApprovedUser,
  DeliveryRecord,
  GatewayStore,
  HomeChannel,
  InboundClaim,
  InboundKey,
  InboundRecord,
  NewDelivery,
  PairingLimits,
  PairingRequest,
  PairingResult,
  RecentChat,
  SessionRoute,
} from "../gateway-store.js";
import { SessionStoreError } from "../session-store.js";
import { PgConnection, type Queryable } from "./connection.js";
import { fromPgText, toPgText } from "./text.js";

// Every text column goes through the escape of text.ts (PostgreSQL text cannot hold U+0000), as
// copy-from-sqlite.ts writes them.
const inboundOf = (row: InboundRow) => toInbound(row, fromPgText);
const deliveryOf = (row: DeliveryRow) => toDelivery(row, fromPgText);
const pairingOf = (row: PairingRow) => toPairing(row, fromPgText);
const approvedOf = (row: ApprovedRow) => toApproved(row, fromPgText);
const keyOf = (key: InboundKey) => inboundKeyValues(key, toPgText);

/** `$1, $2, ... $count`. */
const slots = (count: number) => Array.from({ length: count }, (_, i) => `$${i + 1}`).join(", ");

/** The inbound key is always $1..$3. */
const KEY_MATCH = "platform = $1 AND chat_id = $2 AND message_id = $3";

/** The advisory lock that serialises pairing requests of one platform across replicas. */
const PAIRING_LOCK = "SELECT pg_advisory_xact_lock(hashtext('hermes.pairing:' || $1))";

export class PgGatewayStore implements GatewayStore {
  private closed = false;

  private constructor(private readonly conn: PgConnection) {}

  /** Open (and migrate, if needed) the database at `url`, sharing the process's pool for it. */
  static async open(url: string): Promise<PgGatewayStore> {
    return new PgGatewayStore(await PgConnection.open(url));
  }

  get location(): string {
    return this.conn.location;
  }

  private guard<T>(work: () => Promise<T>): Promise<T> {
    return this.conn.guard(work);
  }

  /** One statement's rows. */
  private rows<R extends QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    return this.guard(() => this.conn.query<R>(sql, params));
  }

  /** How many rows one statement changed. */
  private changed(sql: string, params: unknown[]): Promise<number> {
    return this.guard(async () => (await this.conn.pool.query(sql, params)).rowCount ?? 0);
  }

  private missingInbound(key: InboundKey): SessionStoreError {
    return new SessionStoreError(
      `no inbound message ${key.platform}/${key.chatId}/${key.messageId} was recorded`,
      this.location,
    );
  }

  private missingDelivery(id: string): SessionStoreError {
    return new SessionStoreError(`no delivery "${id}" is recorded`, this.location);
  }

  async claimInbound(key: InboundKey, sessionKey: string, payload: unknown, now = Date.now()): Promise<InboundClaim> {
    // A concurrent claimer of the same key waits for the first insert to commit, then inserts
    // nothing and reads the winner's row.
    const [inserted] = await this.rows<InboundRow>(
      `INSERT INTO gateway_inbound (${INBOUND_COLUMNS}) VALUES (${slots(10)})
       ON CONFLICT (platform, chat_id, message_id) DO NOTHING RETURNING ${INBOUND_COLUMNS}`,
      newInboundValues(key, sessionKey, payload, now, toPgText),
    );
    if (inserted) return { accepted: true, record: inboundOf(inserted) };
    const [existing] = await this.rows<InboundRow>(
      `SELECT ${INBOUND_COLUMNS} FROM gateway_inbound WHERE ${KEY_MATCH}`,
      keyOf(key),
    );
    if (!existing) throw this.missingInbound(key);
    return { accepted: false, record: inboundOf(existing) };
  }

  async startInbound(key: InboundKey, now = Date.now()): Promise<InboundRecord> {
    const [row] = await this.rows<InboundRow>(
      `UPDATE gateway_inbound SET state = 'running', attempts = attempts + 1, updated_at = $4
       WHERE ${KEY_MATCH} RETURNING ${INBOUND_COLUMNS}`,
      [...keyOf(key), now],
    );
    if (!row) throw this.missingInbound(key);
    return inboundOf(row);
  }

  async finishInbound(key: InboundKey, now = Date.now()): Promise<void> {
    await this.changed(
      `UPDATE gateway_inbound SET state = 'done', payload = NULL, updated_at = $4 WHERE ${KEY_MATCH}`,
      [...keyOf(key), now],
    );
  }

  async quarantineInbound(key: InboundKey, reason: string, now = Date.now()): Promise<void> {
    await this.changed(
      `UPDATE gateway_inbound SET state = 'quarantined', error = $4, updated_at = $5 WHERE ${KEY_MATCH}`,
      [...keyOf(key), toPgText(reason), now],
    );
  }

  async inboundRecord(key: InboundKey): Promise<InboundRecord | null> {
    const [row] = await this.rows<InboundRow>(
      `SELECT ${INBOUND_COLUMNS} FROM gateway_inbound WHERE ${KEY_MATCH}`,
      keyOf(key),
    );
    return row ? inboundOf(row) : null;
  }

  async unfinishedInbound(sessionKey?: string): Promise<InboundRecord[]> {
    const rows = await this.rows<InboundRow>(
      `SELECT ${INBOUND_COLUMNS} FROM gateway_inbound WHERE state IN ('received', 'running')
       ${sessionKey === undefined ? "" : "AND session_key = $1"} ORDER BY received_at, seq`,
      sessionKey === undefined ? [] : [sessionKey],
    );
    return rows.map(inboundOf);
  }

  pruneInbound(before: number): Promise<number> {
    return this.changed("DELETE FROM gateway_inbound WHERE state IN ('done', 'quarantined') AND updated_at < $1", [
      before,
    ]);
  }

  async recordDelivery(delivery: NewDelivery, now = Date.now()): Promise<DeliveryRecord> {
    // A concurrent recorder of the same key waits for the first insert to commit, then reads it.
    const [row] = await this.rows<DeliveryRow>(
      `INSERT INTO gateway_deliveries (${DELIVERY_COLUMNS}) VALUES (${slots(16)})
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING ${DELIVERY_COLUMNS}`,
      newDeliveryValues(delivery, now, toPgText),
    );
    if (row) return deliveryOf(row);
    const [existing] = await this.rows<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM gateway_deliveries WHERE idempotency_key = $1`,
      [toPgText(delivery.idempotencyKey)],
    );
    if (!existing) throw this.missingDelivery(delivery.id);
    return deliveryOf(existing);
  }

  /** One update of the delivery's row ($1 is its id); the error when there is none. */
  private async updateDelivery(id: string, set: string, values: unknown[]): Promise<void> {
    if ((await this.changed(`UPDATE gateway_deliveries SET ${set} WHERE id = $1`, [toPgText(id), ...values])) === 0) {
      throw this.missingDelivery(id);
    }
  }

  async claimSending(id: string, now = Date.now()): Promise<DeliveryRecord | null> {
    // Checked again once the row lock is had: of concurrent claimers one changes the row.
    const [row] = await this.rows<DeliveryRow>(
      `UPDATE gateway_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = $2
       WHERE id = $1 AND state = 'pending' AND next_attempt_at <= $2 RETURNING ${DELIVERY_COLUMNS}`,
      [toPgText(id), now],
    );
    return row ? deliveryOf(row) : null;
  }

  async markSending(id: string, now = Date.now()): Promise<DeliveryRecord> {
    // The state check and the update are one statement: a delivery that another replica just
    // marked sent or failed is not sent again.
    const [row] = await this.rows<DeliveryRow>(
      `UPDATE gateway_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = $2
       WHERE id = $1 AND state NOT IN ('sent', 'failed') RETURNING ${DELIVERY_COLUMNS}`,
      [toPgText(id), now],
    );
    if (row) return deliveryOf(row);
    const current = await this.getDelivery(id);
    if (!current) throw this.missingDelivery(id);
    throw new SessionStoreError(`delivery "${id}" is already ${current.state}`, this.location);
  }

  markSent(id: string, platformMessageId: string | null, now = Date.now()): Promise<void> {
    return this.updateDelivery(id, "state = 'sent', platform_message_id = $2, last_error = NULL, updated_at = $3", [
      toPgText(platformMessageId),
      now,
    ]);
  }

  markRetry(id: string, error: string, nextAttemptAt: number, now = Date.now()): Promise<void> {
    return this.updateDelivery(id, "state = 'pending', last_error = $2, next_attempt_at = $3, updated_at = $4", [
      toPgText(error),
      nextAttemptAt,
      now,
    ]);
  }

  markFailed(id: string, error: string, now = Date.now()): Promise<void> {
    return this.updateDelivery(id, "state = 'failed', last_error = $2, updated_at = $3", [toPgText(error), now]);
  }

  async getDelivery(id: string): Promise<DeliveryRecord | null> {
    const [row] = await this.rows<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM gateway_deliveries WHERE id = $1`, [
      toPgText(id),
    ]);
    return row ? deliveryOf(row) : null;
  }

  async dueDeliveries(now: number, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.rows<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM gateway_deliveries WHERE state = 'pending' AND next_attempt_at <= $1
       ORDER BY created_at, seq LIMIT $2`,
      [now, Math.max(1, Math.trunc(limit))],
    );
    return rows.map(deliveryOf);
  }

  reconcileDeliveries(now = Date.now(), staleBefore?: number): Promise<number> {
    // A row another reconciler already moved back to pending is skipped (the WHERE is checked
    // again once the row lock is had), so concurrent reconcilers count each delivery once.
    return this.changed(
      `UPDATE gateway_deliveries SET state = 'pending', possible_duplicate = 1, next_attempt_at = $1, updated_at = $1
       WHERE state = 'sending' AND ($2::bigint IS NULL OR updated_at < $2)`,
      [now, staleBefore ?? null],
    );
  }

  async reclaimDelivery(id: string, now = Date.now()): Promise<boolean> {
    const changed = await this.changed(
      `UPDATE gateway_deliveries SET state = 'pending', possible_duplicate = 1, next_attempt_at = $1, updated_at = $1
       WHERE id = $2 AND state = 'sending'`,
      [now, id],
    );
    return changed === 1;
  }

  pruneDeliveries(before: number): Promise<number> {
    return this.changed("DELETE FROM gateway_deliveries WHERE state IN ('sent', 'failed') AND updated_at < $1", [
      before,
    ]);
  }

  async recentChats(limit: number): Promise<RecentChat[]> {
    const rows = await this.rows<RecentChatRow>(recentChatsSql("$1"), [Math.max(1, Math.trunc(limit))]);
    return rows.map((row) => toRecentChat(row, fromPgText));
  }

  createPairingRequest(request: PairingRequest, limits: PairingLimits, now = Date.now()): Promise<PairingResult> {
    const platform = toPgText(request.platform);
    return this.guard(() =>
      this.conn.transaction(async (db): Promise<PairingResult> => {
        // Requests of one platform take turns until commit; each statement after the lock sees
        // what the previous holder committed.
        await db.query(PAIRING_LOCK, [platform]);
        await db.query("DELETE FROM gateway_pairing_requests WHERE platform = $1 AND expires_at <= $2", [
          platform,
          now,
        ]);
        const { rows: latest } = await db.query<PairingRow>(
          `SELECT ${PAIRING_COLUMNS} FROM gateway_pairing_requests WHERE platform = $1 AND user_id = $2
           ORDER BY created_at DESC LIMIT 1`,
          [platform, toPgText(request.userId)],
        );
        if (latest[0] && now - latest[0].created_at < limits.perUserIntervalMs) {
          return { created: false, reason: "too_soon", existing: pairingOf(latest[0]) };
        }
        const { rows: pending } = await db.query<{ n: number }>(
          "SELECT COUNT(*)::int AS n FROM gateway_pairing_requests WHERE platform = $1",
          [platform],
        );
        if (pending[0]!.n >= limits.maxPendingPerPlatform) return { created: false, reason: "too_many_pending" };
        // A user has one live code at a time: a new one replaces the old.
        await db.query("DELETE FROM gateway_pairing_requests WHERE platform = $1 AND user_id = $2", [
          platform,
          toPgText(request.userId),
        ]);
        const stored: PairingRequest = { ...request, createdAt: now, expiresAt: now + limits.ttlMs };
        await db.query(
          `INSERT INTO gateway_pairing_requests (${PAIRING_COLUMNS}) VALUES (${slots(7)})`,
          pairingValues(stored, toPgText),
        );
        return { created: true, request: stored };
      }),
    );
  }

  async pendingPairingRequests(platform?: string, now = Date.now()): Promise<PairingRequest[]> {
    const rows =
      platform === undefined
        ? await this.rows<PairingRow>(
            `SELECT ${PAIRING_COLUMNS} FROM gateway_pairing_requests WHERE expires_at > $1 ORDER BY created_at DESC`,
            [now],
          )
        : await this.rows<PairingRow>(
            `SELECT ${PAIRING_COLUMNS} FROM gateway_pairing_requests WHERE platform = $1 AND expires_at > $2
             ORDER BY created_at DESC`,
            [toPgText(platform), now],
          );
    return rows.map(pairingOf);
  }

  approvePairingCode(
    platform: string,
    code: string,
    options: { admin?: boolean } = {},
    now = Date.now(),
  ): Promise<ApprovedUser | null> {
    return this.guard(() =>
      this.conn.transaction(async (db) => {
        // The delete claims the code: a concurrent approver waits on its row and then finds it gone.
        const { rows } = await db.query<PairingRow>(
          `DELETE FROM gateway_pairing_requests WHERE platform = $1 AND code = $2 AND expires_at > $3
           RETURNING ${PAIRING_COLUMNS}`,
          [toPgText(platform), toPgText(code.toUpperCase()), now],
        );
        const row = rows[0] ? pairingOf(rows[0]) : undefined;
        if (!row) return null;
        return this.upsertApproved(
          db,
          { platform, userId: row.userId, userName: row.userName, admin: options.admin === true },
          now,
        );
      }),
    );
  }

  private async upsertApproved(
    db: Queryable,
    user: Omit<ApprovedUser, "approvedAt">,
    now: number,
  ): Promise<ApprovedUser> {
    const { rows } = await db.query<ApprovedRow>(
      `INSERT INTO gateway_approved_users (${APPROVED_COLUMNS}) VALUES (${slots(5)})
       ON CONFLICT (platform, user_id) DO UPDATE SET user_name = excluded.user_name, is_admin = excluded.is_admin
       RETURNING ${APPROVED_COLUMNS}`,
      approvedValues(user, now, toPgText),
    );
    return approvedOf(rows[0]!);
  }

  approveUser(user: Omit<ApprovedUser, "approvedAt">, now = Date.now()): Promise<ApprovedUser> {
    return this.guard(() => this.upsertApproved(this.conn.pool, user, now));
  }

  async revokeUser(platform: string, userId: string): Promise<boolean> {
    return (
      (await this.changed("DELETE FROM gateway_approved_users WHERE platform = $1 AND user_id = $2", [
        toPgText(platform),
        toPgText(userId),
      ])) > 0
    );
  }

  async approvedUser(platform: string, userId: string): Promise<ApprovedUser | null> {
    const [row] = await this.rows<ApprovedRow>(
      `SELECT ${APPROVED_COLUMNS} FROM gateway_approved_users WHERE platform = $1 AND user_id = $2`,
      [toPgText(platform), toPgText(userId)],
    );
    return row ? approvedOf(row) : null;
  }

  async approvedUsers(platform?: string): Promise<ApprovedUser[]> {
    const rows =
      platform === undefined
        ? await this.rows<ApprovedRow>(
            `SELECT ${APPROVED_COLUMNS} FROM gateway_approved_users ORDER BY platform COLLATE "C", approved_at`,
          )
        : await this.rows<ApprovedRow>(
            `SELECT ${APPROVED_COLUMNS} FROM gateway_approved_users WHERE platform = $1 ORDER BY approved_at`,
            [toPgText(platform)],
          );
    return rows.map(approvedOf);
  }

  clearPairing(options: { platform?: string; approved?: boolean } = {}): Promise<number> {
    return this.guard(() =>
      this.conn.transaction(async (db) => {
        const tables = ["gateway_pairing_requests", ...(options.approved ? ["gateway_approved_users"] : [])];
        let removed = 0;
        for (const table of tables) {
          const result =
            options.platform === undefined
              ? await db.query(`DELETE FROM ${table}`)
              : await db.query(`DELETE FROM ${table} WHERE platform = $1`, [toPgText(options.platform)]);
          removed += result.rowCount ?? 0;
        }
        return removed;
      }),
    );
  }

  async setSessionRoute(route: Omit<SessionRoute, "updatedAt">, now = Date.now()): Promise<void> {
    await this.changed(
      `INSERT INTO gateway_session_routes (${ROUTE_COLUMNS}) VALUES (${slots(5)})
       ON CONFLICT (session_key) DO UPDATE SET session_id = excluded.session_id, platform = excluded.platform,
         chat_id = excluded.chat_id, updated_at = excluded.updated_at`,
      [toPgText(route.sessionKey), toPgText(route.sessionId), toPgText(route.platform), toPgText(route.chatId), now],
    );
  }

  async sessionRoute(sessionKey: string): Promise<SessionRoute | null> {
    const [row] = await this.rows<SessionRouteRow>(
      `SELECT ${ROUTE_COLUMNS} FROM gateway_session_routes WHERE session_key = $1`,
      [toPgText(sessionKey)],
    );
    return row ? toSessionRoute(row, fromPgText) : null;
  }

  async setHomeChannel(channel: Omit<HomeChannel, "setAt">, now = Date.now()): Promise<void> {
    await this.changed(
      `INSERT INTO gateway_home_channels (${HOME_COLUMNS}) VALUES (${slots(4)})
       ON CONFLICT (platform) DO UPDATE SET chat_id = excluded.chat_id, thread_id = excluded.thread_id,
         set_at = excluded.set_at`,
      [toPgText(channel.platform), toPgText(channel.chatId), toPgText(channel.threadId), now],
    );
  }

  async homeChannel(platform: string): Promise<HomeChannel | null> {
    const [row] = await this.rows<HomeChannelRow>(
      `SELECT ${HOME_COLUMNS} FROM gateway_home_channels WHERE platform = $1`,
      [toPgText(platform)],
    );
    return row ? toHomeChannel(row, fromPgText) : null;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.conn.close();
  }
}
