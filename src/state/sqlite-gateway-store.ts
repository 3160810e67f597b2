/**
 * The gateway's tables in state.db (schema version 4), on a connection of its own with the
 * session store's locking discipline. Every check-then-write (a redelivered message, the pairing
 * limits) happens inside one write transaction, so several gateway processes sharing the file
 * agree on the outcome.
 */
import type {
  ApprovedUser,
  DeliveryRecord,
  DeliveryState,
  GatewayStore,
  HomeChannel,
  InboundClaim,
  InboundKey,
  InboundRecord,
  InboundState,
  NewDelivery,
  PairingLimits,
  PairingRequest,
  PairingResult,
  SessionRoute,
} from "./gateway-store.js";
import { SessionStoreError } from "./session-store.js";
import { SqliteConnection } from "./sqlite-connection.js";

interface InboundRow {
  platform: string;
  chat_id: string;
  message_id: string;
  session_key: string;
  state: string;
  attempts: number;
  payload: string | null;
  error: string | null;
  received_at: number;
  updated_at: number;
}

interface DeliveryRow {
  id: string;
  platform: string;
  chat_id: string;
  thread_id: string | null;
  reply_to: string | null;
  session_key: string | null;
  body: string;
  idempotency_key: string;
  state: string;
  attempts: number;
  next_attempt_at: number;
  possible_duplicate: number;
  platform_message_id: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

interface PairingRow {
  platform: string;
  code: string;
  user_id: string;
  user_name: string | null;
  chat_id: string;
  created_at: number;
  expires_at: number;
}

interface ApprovedRow {
  platform: string;
  user_id: string;
  user_name: string | null;
  is_admin: number;
  approved_at: number;
}

const INBOUND_COLUMNS =
  "platform, chat_id, message_id, session_key, state, attempts, payload, error, received_at, updated_at";
const DELIVERY_COLUMNS =
  "id, platform, chat_id, thread_id, reply_to, session_key, body, idempotency_key, state, attempts, " +
  "next_attempt_at, possible_duplicate, platform_message_id, last_error, created_at, updated_at";
const PAIRING_COLUMNS = "platform, code, user_id, user_name, chat_id, created_at, expires_at";
const APPROVED_COLUMNS = "platform, user_id, user_name, is_admin, approved_at";
const KEY_MATCH = "platform = ? AND chat_id = ? AND message_id = ?";

const keyArgs = (key: InboundKey) => [key.platform, key.chatId, key.messageId] as const;

function toInbound(row: InboundRow): InboundRecord {
  return {
    platform: row.platform,
    chatId: row.chat_id,
    messageId: row.message_id,
    sessionKey: row.session_key,
    state: row.state as InboundState,
    attempts: row.attempts,
    payload: row.payload === null ? null : JSON.parse(row.payload),
    error: row.error,
    receivedAt: row.received_at,
    updatedAt: row.updated_at,
  };
}

function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    platform: row.platform,
    chatId: row.chat_id,
    threadId: row.thread_id,
    replyTo: row.reply_to,
    sessionKey: row.session_key,
    body: JSON.parse(row.body),
    idempotencyKey: row.idempotency_key,
    state: row.state as DeliveryState,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    possibleDuplicate: row.possible_duplicate === 1,
    platformMessageId: row.platform_message_id,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toPairing(row: PairingRow): PairingRequest {
  return {
    platform: row.platform,
    code: row.code,
    userId: row.user_id,
    userName: row.user_name,
    chatId: row.chat_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

function toApproved(row: ApprovedRow): ApprovedUser {
  return {
    platform: row.platform,
    userId: row.user_id,
    userName: row.user_name,
    admin: row.is_admin === 1,
    approvedAt: row.approved_at,
  };
}

export class SqliteGatewayStore implements GatewayStore {
  private constructor(private readonly conn: SqliteConnection) {}

  /** Open (and migrate, if needed) the state.db at `path` with a connection of its own. */
  static async open(path: string): Promise<SqliteGatewayStore> {
    return new SqliteGatewayStore(await SqliteConnection.open(path, 10_000));
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
          `INSERT INTO gateway_inbound (${INBOUND_COLUMNS}) VALUES (?, ?, ?, ?, 'received', 0, ?, NULL, ?, ?)
           ON CONFLICT (platform, chat_id, message_id) DO NOTHING`,
        )
        .run(...keyArgs(key), sessionKey, JSON.stringify(payload ?? null), now, now);
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

  unfinishedInbound(): Promise<InboundRecord[]> {
    return this.conn.read(() =>
      (
        this.conn
          .statement(
            `SELECT ${INBOUND_COLUMNS} FROM gateway_inbound WHERE state IN ('received', 'running')
             ORDER BY received_at, rowid`,
          )
          .all() as InboundRow[]
      ).map(toInbound),
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
      this.conn
        .statement(
          `INSERT INTO gateway_deliveries (${DELIVERY_COLUMNS})
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, 0, NULL, NULL, ?, ?)`,
        )
        .run(
          delivery.id,
          delivery.platform,
          delivery.chatId,
          delivery.threadId ?? null,
          delivery.replyTo ?? null,
          delivery.sessionKey ?? null,
          JSON.stringify(delivery.body ?? null),
          delivery.idempotencyKey,
          now,
          now,
          now,
        );
      return toDelivery(this.requireDelivery(delivery.id));
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
      ).map(toDelivery),
    );
  }

  reconcileDeliveries(now = Date.now()): Promise<number> {
    return this.conn.write(
      () =>
        this.conn
          .statement(
            `UPDATE gateway_deliveries SET state = 'pending', possible_duplicate = 1, next_attempt_at = ?, updated_at = ?
             WHERE state = 'sending'`,
          )
          .run(now, now).changes,
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
        .run(
          stored.platform,
          stored.code,
          stored.userId,
          stored.userName,
          stored.chatId,
          stored.createdAt,
          stored.expiresAt,
        );
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
      return rows.map(toPairing);
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
      .run(user.platform, user.userId, user.userName, user.admin ? 1 : 0, now);
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
      ).map(toApproved),
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
          `INSERT INTO gateway_session_routes (session_key, session_id, platform, chat_id, updated_at)
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
        .statement(
          "SELECT session_key, session_id, platform, chat_id, updated_at FROM gateway_session_routes WHERE session_key = ?",
        )
        .get(sessionKey) as
        | { session_key: string; session_id: string; platform: string; chat_id: string; updated_at: number }
        | undefined;
      return row
        ? {
            sessionKey: row.session_key,
            sessionId: row.session_id,
            platform: row.platform,
            chatId: row.chat_id,
            updatedAt: row.updated_at,
          }
        : null;
    });
  }

  setHomeChannel(channel: Omit<HomeChannel, "setAt">, now = Date.now()): Promise<void> {
    return this.conn.write(() => {
      this.conn
        .statement(
          `INSERT OR REPLACE INTO gateway_home_channels (platform, chat_id, thread_id, set_at) VALUES (?, ?, ?, ?)`,
        )
        .run(channel.platform, channel.chatId, channel.threadId, now);
    });
  }

  homeChannel(platform: string): Promise<HomeChannel | null> {
    return this.conn.read(() => {
      const row = this.conn
        .statement("SELECT platform, chat_id, thread_id, set_at FROM gateway_home_channels WHERE platform = ?")
        .get(platform) as { platform: string; chat_id: string; thread_id: string | null; set_at: number } | undefined;
      return row ? { platform: row.platform, chatId: row.chat_id, threadId: row.thread_id, setAt: row.set_at } : null;
    });
  }

  close(): void {
    this.conn.close();
  }
}
