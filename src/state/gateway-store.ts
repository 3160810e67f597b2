/**
 * The messaging gateway's durable tables: inbound de-duplication (with the attempts that let a
 * message which crashed the process be quarantined instead of replayed forever), the outbound
 * delivery ledger (recorded before sending, reconciled after a crash), DM pairing, session
 * routing and home channels. Nothing outside src/state issues SQL; the embedded SQLite
 * implementation lives in state.db beside the session store, the PostgreSQL one
 * (postgres/gateway-store.ts) in the database that gateway replicas share.
 */
import { isPostgresUrl } from "./postgres/url.js";

/** Identifies one inbound platform message. */
export interface InboundKey {
  platform: string;
  chatId: string;
  /** The platform's own message id (Telegram update id, Discord snowflake, ...). */
  messageId: string;
}

/** received: stored, not started; running: a run started (attempts counts them); done; quarantined. */
export type InboundState = "received" | "running" | "done" | "quarantined";

export interface InboundRecord extends InboundKey {
  sessionKey: string;
  state: InboundState;
  /** Runs started for this message, including one that crashed the process. */
  attempts: number;
  /** The message as the gateway needs it to run again (kept until it is done). */
  payload: unknown;
  error: string | null;
  receivedAt: number;
  updatedAt: number;
}

export type InboundClaim = { accepted: true; record: InboundRecord } | { accepted: false; record: InboundRecord };

export type DeliveryState = "pending" | "sending" | "sent" | "failed";

export interface NewDelivery {
  id: string;
  platform: string;
  chatId: string;
  threadId?: string | null;
  replyTo?: string | null;
  sessionKey?: string | null;
  /** What to send (text, parts): opaque to the store. */
  body: unknown;
  /** Stable across retries and restarts, so a platform that de-duplicates can do so. */
  idempotencyKey: string;
}

export interface DeliveryRecord extends Required<NewDelivery> {
  state: DeliveryState;
  attempts: number;
  /** Epoch ms before which the next attempt must not start. */
  nextAttemptAt: number;
  /** Set when a crash may have happened after the platform accepted an earlier attempt. */
  possibleDuplicate: boolean;
  platformMessageId: string | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface PairingRequest {
  platform: string;
  code: string;
  userId: string;
  userName: string | null;
  chatId: string;
  createdAt: number;
  expiresAt: number;
}

export interface PairingLimits {
  /** How long a code stays valid. */
  ttlMs: number;
  /** A user gets at most one new code per this interval. */
  perUserIntervalMs: number;
  /** Codes waiting for approval on one platform at once. */
  maxPendingPerPlatform: number;
}

export type PairingResult =
  | { created: true; request: PairingRequest }
  | { created: false; reason: "too_soon" | "too_many_pending"; existing?: PairingRequest };

export interface ApprovedUser {
  platform: string;
  userId: string;
  userName: string | null;
  admin: boolean;
  approvedAt: number;
}

export interface SessionRoute {
  sessionKey: string;
  sessionId: string;
  platform: string;
  chatId: string;
  updatedAt: number;
}

/** A chat (or a thread of one) the gateway has delivered to. */
export interface RecentChat {
  platform: string;
  chatId: string;
  threadId: string | null;
  /** The chat's gateway session (an `agent:` key) a delivery there belonged to, if any did. */
  sessionKey: string | null;
  /** Epoch ms of the latest delivery there. */
  lastSentAt: number;
}

export interface HomeChannel {
  platform: string;
  chatId: string;
  threadId: string | null;
  setAt: number;
}

export interface GatewayStore {
  /** Stores a new inbound message; `accepted: false` (and the stored record) for a redelivery. */
  claimInbound(key: InboundKey, sessionKey: string, payload: unknown, now?: number): Promise<InboundClaim>;
  /** A run starts for the message: state running, attempts + 1. */
  startInbound(key: InboundKey, now?: number): Promise<InboundRecord>;
  /** The message was answered; its payload is dropped. */
  finishInbound(key: InboundKey, now?: number): Promise<void>;
  quarantineInbound(key: InboundKey, reason: string, now?: number): Promise<void>;
  /** Messages not done nor quarantined (of one session, when given): what a restart must look at. Oldest first. */
  unfinishedInbound(sessionKey?: string): Promise<InboundRecord[]>;
  /** The record of one inbound message, or null when it was never stored (or pruned). */
  inboundRecord(key: InboundKey): Promise<InboundRecord | null>;
  /** Forget records older than `before` (epoch ms) that are done or quarantined. */
  pruneInbound(before: number): Promise<number>;

  /**
   * Records a reply before it is sent; state pending, due now. A delivery whose idempotency key
   * is already in the ledger is not recorded again: the existing record comes back (a turn that
   * runs again after its replica died records its answer once).
   */
  recordDelivery(delivery: NewDelivery, now?: number): Promise<DeliveryRecord>;
  /** An attempt starts: state sending, attempts + 1. */
  markSending(id: string, now?: number): Promise<DeliveryRecord>;
  /**
   * The same, only for a delivery that is pending and due by `now`, checked and changed at once:
   * of several senders (gateway replicas sweeping one ledger) exactly one gets the record; the
   * others get null.
   */
  claimSending(id: string, now?: number): Promise<DeliveryRecord | null>;
  markSent(id: string, platformMessageId: string | null, now?: number): Promise<void>;
  /** The attempt failed and may be retried at `nextAttemptAt`. */
  markRetry(id: string, error: string, nextAttemptAt: number, now?: number): Promise<void>;
  /** The delivery is given up on. */
  markFailed(id: string, error: string, now?: number): Promise<void>;
  getDelivery(id: string): Promise<DeliveryRecord | null>;
  /** Pending deliveries whose time has come, in the order they were recorded. */
  dueDeliveries(now: number, limit: number): Promise<DeliveryRecord[]>;
  /**
   * After a crash: deliveries left `sending` may or may not have reached the platform. They go
   * back to pending, due now, flagged as possible duplicates. Returns how many. With
   * `staleBefore`, only those whose attempt started before it (a replica sharing the ledger must
   * not take over sends another replica is making right now).
   */
  reconcileDeliveries(now?: number, staleBefore?: number): Promise<number>;
  /**
   * One send in flight whose sender is known to be gone (its turn's session lease ran out) goes
   * back to pending and due, flagged as a possible repeat. False when it was not in flight.
   */
  reclaimDelivery(id: string, now?: number): Promise<boolean>;
  pruneDeliveries(before: number): Promise<number>;
  /** Chats (per thread) that messages were delivered to, the most recent first, at most `limit`. */
  recentChats(limit: number): Promise<RecentChat[]>;

  /** Creates a pairing code unless the limits forbid it (checked atomically across processes). */
  createPairingRequest(request: PairingRequest, limits: PairingLimits, now?: number): Promise<PairingResult>;
  /** Pending, unexpired requests of a platform (all platforms when omitted), newest first. */
  pendingPairingRequests(platform?: string, now?: number): Promise<PairingRequest[]>;
  /** Approves the user behind a pending code and removes the code; null when no such code is pending. */
  approvePairingCode(
    platform: string,
    code: string,
    options?: { admin?: boolean },
    now?: number,
  ): Promise<ApprovedUser | null>;
  approveUser(user: Omit<ApprovedUser, "approvedAt">, now?: number): Promise<ApprovedUser>;
  revokeUser(platform: string, userId: string): Promise<boolean>;
  approvedUser(platform: string, userId: string): Promise<ApprovedUser | null>;
  approvedUsers(platform?: string): Promise<ApprovedUser[]>;
  /** Removes pending codes (and, with `approved`, approved users) of a platform or of all. */
  clearPairing(options?: { platform?: string; approved?: boolean }): Promise<number>;

  setSessionRoute(route: Omit<SessionRoute, "updatedAt">, now?: number): Promise<void>;
  sessionRoute(sessionKey: string): Promise<SessionRoute | null>;
  setHomeChannel(channel: Omit<HomeChannel, "setAt">, now?: number): Promise<void>;
  homeChannel(platform: string): Promise<HomeChannel | null>;

  close(): void;
}

/** The gateway store at `path`: the embedded one in a state.db file, or PostgreSQL for a `postgres://` URL. */
export async function openGatewayStore(path: string): Promise<GatewayStore> {
  if (isPostgresUrl(path)) {
    const { PgGatewayStore } = await import("./postgres/gateway-store.js");
    return PgGatewayStore.open(path);
  }
  const { SqliteGatewayStore } = await import("./sqlite-gateway-store.js");
  return SqliteGatewayStore.open(path);
}
