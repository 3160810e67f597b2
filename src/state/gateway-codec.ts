/**
 * Rows of the gateway tables as both stores read and write them (sqlite-gateway-store.ts,
 * postgres/gateway-store.ts): the row shapes, the column lists, row → record mappers and the
 * values of a new row in column order. `text` encodes or decodes a stored text column
 * (PostgreSQL escapes what its text type cannot hold); the embedded store passes it through.
 */
import type {
  ApprovedUser,
  DeliveryRecord,
  DeliveryState,
  HomeChannel,
  InboundKey,
  InboundRecord,
  InboundState,
  NewDelivery,
  PairingRequest,
  RecentChat,
  SessionRoute,
} from "./gateway-store.js";

export interface InboundRow {
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

export interface DeliveryRow {
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

export interface PairingRow {
  platform: string;
  code: string;
  user_id: string;
  user_name: string | null;
  chat_id: string;
  created_at: number;
  expires_at: number;
}

export interface ApprovedRow {
  platform: string;
  user_id: string;
  user_name: string | null;
  is_admin: number;
  approved_at: number;
}

export interface SessionRouteRow {
  session_key: string;
  session_id: string;
  platform: string;
  chat_id: string;
  updated_at: number;
}

export interface HomeChannelRow {
  platform: string;
  chat_id: string;
  thread_id: string | null;
  set_at: number;
}

export const INBOUND_COLUMNS =
  "platform, chat_id, message_id, session_key, state, attempts, payload, error, received_at, updated_at";
export const DELIVERY_COLUMNS =
  "id, platform, chat_id, thread_id, reply_to, session_key, body, idempotency_key, state, attempts, " +
  "next_attempt_at, possible_duplicate, platform_message_id, last_error, created_at, updated_at";
export const PAIRING_COLUMNS = "platform, code, user_id, user_name, chat_id, created_at, expires_at";
export const APPROVED_COLUMNS = "platform, user_id, user_name, is_admin, approved_at";
export const ROUTE_COLUMNS = "session_key, session_id, platform, chat_id, updated_at";
export const HOME_COLUMNS = "platform, chat_id, thread_id, set_at";

/** Encodes a value for, or decodes it from, a text column. */
export type TextCodec = <T extends string | null>(value: T) => T;
const asStored: TextCodec = (value) => value;

/** Booleans are INTEGER 0/1 in both schemas. */
export const flag = (value: boolean): number => (value ? 1 : 0);

/** A JSON column (payload, body): undefined is stored as null. */
export const toJsonText = (value: unknown, text: TextCodec = asStored): string => text(JSON.stringify(value ?? null));

const fromJsonText = (value: string, text: TextCodec): unknown => JSON.parse(text(value));

/** platform, chat_id, message_id: the inbound table's key, in that order. */
export const inboundKeyValues = (key: InboundKey, text: TextCodec = asStored): string[] => [
  text(key.platform),
  text(key.chatId),
  text(key.messageId),
];

/** A message as first stored: received, no attempts yet (INBOUND_COLUMNS order). */
export function newInboundValues(
  key: InboundKey,
  sessionKey: string,
  payload: unknown,
  now: number,
  text: TextCodec = asStored,
): unknown[] {
  return [...inboundKeyValues(key, text), text(sessionKey), "received", 0, toJsonText(payload, text), null, now, now];
}

/** A delivery as recorded: pending, due now (DELIVERY_COLUMNS order). */
export function newDeliveryValues(delivery: NewDelivery, now: number, text: TextCodec = asStored): unknown[] {
  return [
    text(delivery.id),
    text(delivery.platform),
    text(delivery.chatId),
    text(delivery.threadId ?? null),
    text(delivery.replyTo ?? null),
    text(delivery.sessionKey ?? null),
    toJsonText(delivery.body, text),
    text(delivery.idempotencyKey),
    "pending",
    0,
    now,
    0,
    null,
    null,
    now,
    now,
  ];
}

/** PAIRING_COLUMNS order. */
export function pairingValues(request: PairingRequest, text: TextCodec = asStored): unknown[] {
  return [
    text(request.platform),
    text(request.code),
    text(request.userId),
    text(request.userName),
    text(request.chatId),
    request.createdAt,
    request.expiresAt,
  ];
}

/** APPROVED_COLUMNS order. */
export function approvedValues(
  user: Omit<ApprovedUser, "approvedAt">,
  now: number,
  text: TextCodec = asStored,
): unknown[] {
  return [text(user.platform), text(user.userId), text(user.userName), flag(user.admin), now];
}

export function toInbound(row: InboundRow, text: TextCodec = asStored): InboundRecord {
  return {
    platform: text(row.platform),
    chatId: text(row.chat_id),
    messageId: text(row.message_id),
    sessionKey: text(row.session_key),
    state: row.state as InboundState,
    attempts: row.attempts,
    payload: row.payload === null ? null : fromJsonText(row.payload, text),
    error: text(row.error),
    receivedAt: row.received_at,
    updatedAt: row.updated_at,
  };
}

export function toDelivery(row: DeliveryRow, text: TextCodec = asStored): DeliveryRecord {
  return {
    id: text(row.id),
    platform: text(row.platform),
    chatId: text(row.chat_id),
    threadId: text(row.thread_id),
    replyTo: text(row.reply_to),
    sessionKey: text(row.session_key),
    body: fromJsonText(row.body, text),
    idempotencyKey: text(row.idempotency_key),
    state: row.state as DeliveryState,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    possibleDuplicate: row.possible_duplicate === 1,
    platformMessageId: text(row.platform_message_id),
    lastError: text(row.last_error),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toPairing(row: PairingRow, text: TextCodec = asStored): PairingRequest {
  return {
    platform: text(row.platform),
    code: text(row.code),
    userId: text(row.user_id),
    userName: text(row.user_name),
    chatId: text(row.chat_id),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

export function toApproved(row: ApprovedRow, text: TextCodec = asStored): ApprovedUser {
  return {
    platform: text(row.platform),
    userId: text(row.user_id),
    userName: text(row.user_name),
    admin: row.is_admin === 1,
    approvedAt: row.approved_at,
  };
}

export function toSessionRoute(row: SessionRouteRow, text: TextCodec = asStored): SessionRoute {
  return {
    sessionKey: text(row.session_key),
    sessionId: text(row.session_id),
    platform: text(row.platform),
    chatId: text(row.chat_id),
    updatedAt: row.updated_at,
  };
}

export interface RecentChatRow {
  platform: string;
  chat_id: string;
  thread_id: string | null;
  session_key: string | null;
  last_sent_at: number;
}

/** The chats sent to, newest first; `slot` is the store's placeholder for the limit (`?`, `$1`). */
export function recentChatsSql(slot: string): string {
  // Only a chat's own session names it (`agent:...`); a cron job's key (`cron:<id>`) does not.
  return `SELECT platform, chat_id, thread_id, MAX(CASE WHEN session_key LIKE 'agent:%' THEN session_key END) AS session_key,
    MAX(updated_at) AS last_sent_at
    FROM gateway_deliveries WHERE state = 'sent' GROUP BY platform, chat_id, thread_id
    ORDER BY last_sent_at DESC, platform, chat_id LIMIT ${slot}`;
}

export function toRecentChat(row: RecentChatRow, text: TextCodec = asStored): RecentChat {
  return {
    platform: text(row.platform),
    chatId: text(row.chat_id),
    threadId: row.thread_id === null ? null : text(row.thread_id),
    sessionKey: row.session_key === null ? null : text(row.session_key),
    lastSentAt: Number(row.last_sent_at),
  };
}

export function toHomeChannel(row: HomeChannelRow, text: TextCodec = asStored): HomeChannel {
  return {
    platform: text(row.platform),
    chatId: text(row.chat_id),
    threadId: text(row.thread_id),
    setAt: row.set_at,
  };
}
