/**
 * The gateway's tables in state.db (schema version 4), on a connection of its own with the
 * session store's locking discipline. Every check-then-write (a redelivered message, the pairing
 * limits) happens inside one write transaction, so several gateway processes sharing the file
 * agree on the outcome.
 */
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
} from "./gateway-codec.js";
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
} from "./gateway-store.js";
import { SessionStoreError } from "./session-store.js";
import { SqliteConnection } from "./sqlite-connection.js";

const KEY_MATCH = "platform = ? AND chat_id = ? AND message_id = ?";
const keyArgs = (key: InboundKey) => inboundKeyValues(key);

export class SqliteGatewayStore implements GatewayStore {
  private closed = false;

  private constructor(private readonly conn: SqliteConnection) {}

  /** Open (and migrate, if needed) the state.db at `path`, on the process's connection to it. */
  static async open(path: string): Promise<SqliteGatewayStore> {
    return new SqliteGatewayStore(await SqliteConnection.shared(path, 10_000));
  }

  private inboundRow(key: InboundKey): InboundRow | undefined {
    return this.conn
      .statement(`SELECT ${INBOUND_COLUMNS} FROM gateway_inbound WHERE ${KEY_MATCH}`)
      .get(...keyArgs(key)) as InboundRow | undefined;
  }

  private requireInbound(key: InboundKey): InboundRow {
    const row = this.inboundRow(key);
    if (!row) {
      throw new SessionStoreError(
        `no inbound message ${key.platform}/${key.chatId}/${key.messageId} was recorded`,
        this.conn.path,
      );
    }
    return row;
  }

  claimInbound(key: InboundKey, sessionKey: string, payload: unknown, now = Date.now()): Promise<InboundClaim> {
    return this.conn.write(() => {
      const inserted = this.conn
        .statement(
          `INSERT INTO gateway_inbound (${INBOUND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (platform, chat_id, message_id) DO NOTHING`,
        )
        .run(...newInboundValues(key, sessionKey, payload, now));
      const record = toInbound(this.requireInbound(key));
      return inserted.changes > 0 ? { accepted: true, record } : { accepted: false, record };
    });
  }

  startInbound(key: InboundKey, now = Date.now()): Promise<InboundRecord> {
    return this.conn.write(() => {
      this.requireInbound(key);
      this.conn
        .statement(
          `UPDATE gateway_inbound SET state = 'running', attempts = attempts + 1, updated_at = ? WHERE ${KEY_MATCH}`,
        )
        .run(now, ...keyArgs(key));
      return toInbound(this.requireInbound(key));
    });
  }

  finishInbound(key: InboundKey, now = Date.now()): Promise<void> {
    return this.conn.write(() => {
      this.conn
        .statement(`UPDATE gateway_inbound SET state = 'done', payload = NULL, updated_at = ? WHERE ${KEY_MATCH}`)
        .run(now, ...keyArgs(key));
    });
  }

  quarantineInbound(key: InboundKey, reason: string, now = Date.now()): Promise<void> {
    return this.conn.write(() => {
      this.conn
        .statement(`UPDATE gateway_inbound SET state = 'quarantined', error = ?, updated_at = ? WHERE ${KEY_MATCH}`)
        .run(reason, now, ...keyArgs(key));
    });
  }

  inboundRecord(key: InboundKey): Promise<InboundRecord | null> {
    return this.conn.read(() => {
      const row = this.inboundRow(key);
      return row ? toInbound(row) : null;
    });
  }

  unfinishedInbound(sessionKey?: string): Promise<InboundRecord[]> {
    const ofSession = sessionKey === undefined ? "" : "AND session_key = ?";
    return this.conn.read(() =>
      (
        this.conn
          .statement(
            `SELECT ${INBOUND_COLUMNS} FROM gateway_inbound WHERE state IN ('received', 'running') ${ofSession}
             ORDER BY received_at, rowid`,
          )
          .all(...(sessionKey === undefined ? [] : [sessionKey])) as InboundRow[]
      ).map((row) => toInbound(row)),
    );
  }

  pruneInbound(before: number): Promise<number> {
    return this.conn.write(
      () =>
        this.conn
          .statement("DELETE FROM gateway_inbound WHERE state IN ('done', 'quarantined') AND updated_at < ?")
          .run(before).changes,
    );
  }

  private deliveryRow(id: string): DeliveryRow | undefined {
    return this.conn.statement(`SELECT ${DELIVERY_COLUMNS} FROM gateway_deliveries WHERE id = ?`).get(id) as
      | DeliveryRow
      | undefined;
  }

  private requireDelivery(id: string): DeliveryRow {
    const row = this.deliveryRow(id);
    if (!row) throw new SessionStoreError(`no delivery "${id}" is recorded`, this.conn.path);
    return row;
  }

  recordDelivery(delivery: NewDelivery, now = Date.now()): Promise<DeliveryRecord> {
    return this.conn.write(() => {
      const existing = this.conn
        .statement(`SELECT ${DELIVERY_COLUMNS} FROM gateway_deliveries WHERE idempotency_key = ?`)
        .get(delivery.idempotencyKey) as DeliveryRow | undefined;
      if (existing) return toDelivery(existing);
      this.conn
        .statement(
          `INSERT INTO gateway_deliveries (${DELIVERY_COLUMNS})
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(...newDeliveryValues(delivery, now));
      return toDelivery(this.requireDelivery(delivery.id));
    });
  }

  claimSending(id: string, now = Date.now()): Promise<DeliveryRecord | null> {
    return this.conn.write(() => {
      const claimed = this.conn
        .statement(
          `UPDATE gateway_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = ?
           WHERE id = ? AND state = 'pending' AND next_attempt_at <= ?`,
        )
        .run(now, id, now).changes;
      return claimed === 1 ? toDelivery(this.requireDelivery(id)) : null;
    });
  }

  markSending(id: string, now = Date.now()): Promise<DeliveryRecord> {
    return this.conn.write(() => {
      const row = this.requireDelivery(id);
      if (row.state === "sent" || row.state === "failed") {
        throw new SessionStoreError(`delivery "${id}" is already ${row.state}`, this.conn.path);
      }
      this.conn
        .statement(
          "UPDATE gateway_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = ? WHERE id = ?",
        )
        .run(now, id);
      return toDelivery(this.requireDelivery(id));
    });
  }

  markSent(id: string, platformMessageId: string | null, now = Date.now()): Promise<void> {
    return this.conn.write(() => {
      this.requireDelivery(id);
      this.conn
        .statement(
          `UPDATE gateway_deliveries SET state = 'sent', platform_message_id = ?, last_error = NULL, updated_at = ?
           WHERE id = ?`,
        )
        .run(platformMessageId, now, id);
    });
  }

  markRetry(id: string, error: string, nextAttemptAt: number, now = Date.now()): Promise<void> {
    return this.conn.write(() => {
      this.requireDelivery(id);
      this.conn
        .statement(
          `UPDATE gateway_deliveries SET state = 'pending', last_error = ?, next_attempt_at = ?, updated_at = ?
           WHERE id = ?`,
        )
        .run(error, nextAttemptAt, now, id);
    });
  }

  markFailed(id: string, error: string, now = Date.now()): Promise<void> {
    return this.conn.write(() => {
      this.requireDelivery(id);
      this.conn
        .statement("UPDATE gateway_deliveries SET state = 'failed', last_error = ?, updated_at = ? WHERE id = ?")
        .run(error, now, id);
    });
  }

  getDelivery(id: string): Promise<DeliveryRecord | null> {
    return this.conn.read(() => {
      const row = this.deliveryRow(id);
      return row ? toDelivery(row) : null;
    });
  }

  dueDeliveries(now: number, limit: number): Promise<DeliveryRecord[]> {
    return this.conn.read(() =>
      (
        this.conn
          .statement(
            `SELECT ${DELIVERY_COLUMNS} FROM gateway_deliveries WHERE state = 'pending' AND next_attempt_at <= ?
             ORDER BY created_at, rowid LIMIT ?`,
          )
          .all(now, Math.max(1, Math.trunc(limit))) as DeliveryRow[]
      ).map((row) => toDelivery(row)),
    );
  }

  reconcileDeliveries(now = Date.now(), staleBefore = Number.POSITIVE_INFINITY): Promise<number> {
    return this.conn.write(
      () =>
        this.conn
          .statement(
            `UPDATE gateway_deliveries SET state = 'pending', possible_duplicate = 1, next_attempt_at = ?, updated_at = ?
             WHERE state = 'sending' AND updated_at < ?`,
          )
          .run(now, now, staleBefore).changes,
    );
  }

  reclaimDelivery(id: string, now = Date.now()): Promise<boolean> {
    return this.conn.write(
      () =>
        this.conn
          .statement(
            `UPDATE gateway_deliveries SET state = 'pending', possible_duplicate = 1, next_attempt_at = ?, updated_at = ?
             WHERE id = ? AND state = 'sending'`,
          )
          .run(now, now, id).changes === 1,
    );
  }

  pruneDeliveries(before: number): Promise<number> {
    return this.conn.write(
      () =>
        this.conn
          .statement("DELETE FROM gateway_deliveries WHERE state IN ('sent', 'failed') AND updated_at < ?")
          .run(before).changes,
    );
  }

  recentChats(limit: number): Promise<RecentChat[]> {
    return this.conn.read(() =>
      (this.conn.statement(recentChatsSql("?")).all(Math.max(1, Math.trunc(limit))) as RecentChatRow[]).map((row) =>
        toRecentChat(row),
      ),
    );
  }

  createPairingRequest(request: PairingRequest, limits: PairingLimits, now = Date.now()): Promise<PairingResult> {
    return this.conn.write((): PairingResult => {
      this.conn.statement("DELETE FROM gateway_pairing_requests WHERE expires_at <= ?").run(now);
      const latest = this.conn
        .statement(
          `SELECT ${PAIRING_COLUMNS} FROM gateway_pairing_requests WHERE platform = ? AND user_id = ?
           ORDER BY created_at DESC LIMIT 1`,
        )
        .get(request.platform, request.userId) as PairingRow | undefined;
      if (latest && now - latest.created_at < limits.perUserIntervalMs) {
        return { created: false, reason: "too_soon", existing: toPairing(latest) };
      }
      const pending = this.conn
        .statement("SELECT COUNT(*) AS n FROM gateway_pairing_requests WHERE platform = ?")
        .get(request.platform) as { n: number };
      if (pending.n >= limits.maxPendingPerPlatform) return { created: false, reason: "too_many_pending" };
      // A user has one live code at a time: a new one replaces the old.
      this.conn
        .statement("DELETE FROM gateway_pairing_requests WHERE platform = ? AND user_id = ?")
        .run(request.platform, request.userId);
      const stored: PairingRequest = { ...request, createdAt: now, expiresAt: now + limits.ttlMs };
      this.conn
        .statement(`INSERT INTO gateway_pairing_requests (${PAIRING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`)
        .run(...pairingValues(stored));
      return { created: true, request: stored };
    });
  }

  pendingPairingRequests(platform?: string, now = Date.now()): Promise<PairingRequest[]> {
    return this.conn.read(() => {
      const rows = (
        platform === undefined
          ? this.conn
              .statement(
                `SELECT ${PAIRING_COLUMNS} FROM gateway_pairing_requests WHERE expires_at > ? ORDER BY created_at DESC`,
              )
              .all(now)
          : this.conn
              .statement(
                `SELECT ${PAIRING_COLUMNS} FROM gateway_pairing_requests WHERE platform = ? AND expires_at > ?
                 ORDER BY created_at DESC`,
              )
              .all(platform, now)
      ) as PairingRow[];
      return rows.map((row) => toPairing(row));
    });
  }

  approvePairingCode(
    platform: string,
    code: string,
    options: { admin?: boolean } = {},
    now = Date.now(),
  ): Promise<ApprovedUser | null> {
    return this.conn.write(() => {
      const row = this.conn
        .statement(
          `SELECT ${PAIRING_COLUMNS} FROM gateway_pairing_requests WHERE platform = ? AND code = ? AND expires_at > ?`,
        )
        .get(platform, code.toUpperCase(), now) as PairingRow | undefined;
      if (!row) return null;
      this.conn
        .statement("DELETE FROM gateway_pairing_requests WHERE platform = ? AND code = ?")
        .run(platform, row.code);
      return this.upsertApproved(
        { platform, userId: row.user_id, userName: row.user_name, admin: options.admin === true },
        now,
      );
    });
  }

  private upsertApproved(user: Omit<ApprovedUser, "approvedAt">, now: number): ApprovedUser {
    this.conn
      .statement(
        `INSERT INTO gateway_approved_users (${APPROVED_COLUMNS}) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (platform, user_id) DO UPDATE SET user_name = excluded.user_name, is_admin = excluded.is_admin`,
      )
      .run(...approvedValues(user, now));
    return toApproved(
      this.conn
        .statement(`SELECT ${APPROVED_COLUMNS} FROM gateway_approved_users WHERE platform = ? AND user_id = ?`)
        .get(user.platform, user.userId) as ApprovedRow,
    );
  }

  approveUser(user: Omit<ApprovedUser, "approvedAt">, now = Date.now()): Promise<ApprovedUser> {
    return this.conn.write(() => this.upsertApproved(user, now));
  }

  revokeUser(platform: string, userId: string): Promise<boolean> {
    return this.conn.write(
      () =>
        this.conn
          .statement("DELETE FROM gateway_approved_users WHERE platform = ? AND user_id = ?")
          .run(platform, userId).changes > 0,
    );
  }

  approvedUser(platform: string, userId: string): Promise<ApprovedUser | null> {
    return this.conn.read(() => {
      const row = this.conn
        .statement(`SELECT ${APPROVED_COLUMNS} FROM gateway_approved_users WHERE platform = ? AND user_id = ?`)
        .get(platform, userId) as ApprovedRow | undefined;
      return row ? toApproved(row) : null;
    });
  }

  approvedUsers(platform?: string): Promise<ApprovedUser[]> {
    return this.conn.read(() =>
      (
        (platform === undefined
          ? this.conn
              .statement(`SELECT ${APPROVED_COLUMNS} FROM gateway_approved_users ORDER BY platform, approved_at`)
              .all()
          : this.conn
              .statement(
                `SELECT ${APPROVED_COLUMNS} FROM gateway_approved_users WHERE platform = ? ORDER BY approved_at`,
              )
              .all(platform)) as ApprovedRow[]
      ).map((row) => toApproved(row)),
    );
  }

  clearPairing(options: { platform?: string; approved?: boolean } = {}): Promise<number> {
    return this.conn.write(() => {
      const tables = ["gateway_pairing_requests", ...(options.approved ? ["gateway_approved_users"] : [])];
      let removed = 0;
      for (const table of tables) {
        removed +=
          options.platform === undefined
            ? this.conn.statement(`DELETE FROM ${table}`).run().changes
            : this.conn.statement(`DELETE FROM ${table} WHERE platform = ?`).run(options.platform).changes;
      }
      return removed;
    });
  }

  setSessionRoute(route: Omit<SessionRoute, "updatedAt">, now = Date.now()): Promise<void> {
    return this.conn.write(() => {
      this.conn
        .statement(
          `INSERT INTO gateway_session_routes (${ROUTE_COLUMNS})
           VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (session_key) DO UPDATE SET session_id = excluded.session_id, platform = excluded.platform,
             chat_id = excluded.chat_id, updated_at = excluded.updated_at`,
        )
        .run(route.sessionKey, route.sessionId, route.platform, route.chatId, now);
    });
  }

  sessionRoute(sessionKey: string): Promise<SessionRoute | null> {
    return this.conn.read(() => {
      const row = this.conn
        .statement(`SELECT ${ROUTE_COLUMNS} FROM gateway_session_routes WHERE session_key = ?`)
        .get(sessionKey) as SessionRouteRow | undefined;
      return row ? toSessionRoute(row) : null;
    });
  }

  setHomeChannel(channel: Omit<HomeChannel, "setAt">, now = Date.now()): Promise<void> {
    return this.conn.write(() => {
      this.conn
        .statement(`INSERT OR REPLACE INTO gateway_home_channels (${HOME_COLUMNS}) VALUES (?, ?, ?, ?)`)
        .run(channel.platform, channel.chatId, channel.threadId, now);
    });
  }

  homeChannel(platform: string): Promise<HomeChannel | null> {
    return this.conn.read(() => {
      const row = this.conn
        .statement(`SELECT ${HOME_COLUMNS} FROM gateway_home_channels WHERE platform = ?`)
        .get(platform) as HomeChannelRow | undefined;
      return row ? toHomeChannel(row) : null;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.conn.close();
  }
}
