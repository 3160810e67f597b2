/**
 * What the fake Matrix homeserver holds: users, rooms (members, name), one event stream that
 * `/sync` reads (messages, memberships, invites, edits), media, and the routes of the
 * Client-Server API the adapter uses, answering in the spec's shapes (`{errcode, error}` on
 * failure, `retry_after_ms` on 429), plus the calls it received, for tests to read.
 */
import { randomBytes } from "node:crypto";

export const SERVER_NAME = "fake.local";
/** The bot account's password on every fake homeserver. */
export const FAKE_PASSWORD = "correct horse battery staple";

export function opaque(length = 18): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  return Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join("");
}

export interface FakeUser {
  userId: string;
  displayName: string;
}

export interface FakeRoom {
  id: string;
  name: string;
  members: Set<string>;
  invited: Set<string>;
}

export interface FakeEvent {
  event_id: string;
  room_id: string;
  sender: string;
  type: string;
  state_key?: string;
  content: Record<string, unknown>;
  origin_server_ts: number;
  /** For the bot's messages: every body an edit gave it, in order. */
  edits: string[];
  redacted: boolean;
}

export interface RecordedCall {
  method: string;
  /** The path under /_matrix/client/v3 (or under /_matrix for media), decoded, without its query. */
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
  status: number;
  at: number;
}

export interface RouteFault {
  status: number;
  errcode: string;
  /** For 429: the wait named in the body. */
  retryAfterMs?: number;
}

export interface Reply {
  status: number;
  body: unknown;
}

export function matrixError(status: number, errcode: string, error: string, extra: object = {}): Reply {
  return { status, body: { errcode, error, ...extra } };
}

/** A route as tests name it: ids replaced by `:room`, `:event`, `:user`, `:txn`. */
export function routeOf(method: string, path: string): string {
  const shaped = path
    .split("/")
    .map((segment, index, all) => {
      if (segment.startsWith("!")) return ":room";
      if (segment.startsWith("$")) return ":event";
      if (segment.startsWith("@")) return ":user";
      if (all[index - 1] === "m.room.message" || all[index - 1] === "m.reaction" || all[index - 2] === "redact") {
        return ":txn";
      }
      return segment;
    })
    .join("/");
  return `${method} ${shaped}`;
}

export class FakeMatrixState {
  readonly users = new Map<string, FakeUser>();
  readonly rooms = new Map<string, FakeRoom>();
  /** The stream `/sync` reads; a sync token is a position in it. */
  readonly stream: FakeEvent[] = [];
  readonly media = new Map<string, { data: Buffer; contentType: string; name: string }>();
  readonly calls: RecordedCall[] = [];
  readonly bot: FakeUser;
  private readonly txns = new Map<string, string>();
  private readonly faults = new Map<string, RouteFault[]>();
  /** Access tokens the server accepts, with the device each belongs to. */
  readonly sessions = new Map<string, string>();
  /** The bot account's password (undefined: password login is refused). */
  password: string | undefined = FAKE_PASSWORD;
  /** Devices password logins created, in order. */
  readonly loginDevices: string[] = [];

  constructor(readonly token: string) {
    this.bot = this.addUser("hermes", "Hermes");
    this.sessions.set(token, "FAKEDEVICE");
  }

  /** Ends every session of `device` (an admin logging the device out): its tokens stop working. */
  revokeDevice(device: string): void {
    for (const [token, owner] of this.sessions) if (owner === device) this.sessions.delete(token);
  }

  /** `POST /login`, the one call made without a token. */
  logIn(body: Record<string, unknown>): Reply {
    const identifier = body.identifier as { type?: string; user?: string } | undefined;
    const user = identifier?.user ?? (body.user as string | undefined);
    const userId = user?.startsWith("@") ? user : `@${user}:${SERVER_NAME}`;
    if (body.type !== "m.login.password" || identifier?.type !== "m.id.user") {
      return matrixError(400, "M_UNKNOWN", "Unknown login type");
    }
    if (this.password === undefined || userId !== this.bot.userId || body.password !== this.password) {
      return matrixError(403, "M_FORBIDDEN", "Invalid username or password");
    }
    const device = typeof body.device_id === "string" && body.device_id ? body.device_id : `DEV${opaque(8)}`;
    this.revokeDevice(device);
    const token = `syt_${opaque(24)}`;
    this.sessions.set(token, device);
    this.loginDevices.push(device);
    return { status: 200, body: { access_token: token, device_id: device, user_id: this.bot.userId } };
  }

  addUser(localpart: string, displayName = localpart): FakeUser {
    const user = { userId: `@${localpart}:${SERVER_NAME}`, displayName };
    this.users.set(user.userId, user);
    return user;
  }

  /** A room the bot is already in, with these other members. */
  addRoom(name: string, members: FakeUser[]): FakeRoom {
    const room: FakeRoom = {
      id: `!${opaque()}:${SERVER_NAME}`,
      name,
      members: new Set([this.bot.userId, ...members.map((m) => m.userId)]),
      invited: new Set(),
    };
    this.rooms.set(room.id, room);
    return room;
  }

  /** The next `times` calls of a route ("PUT /rooms/:room/send/m.room.message/:txn") fail this way. */
  fail(route: string, fault: RouteFault, times = 1): void {
    const list = this.faults.get(route) ?? [];
    for (let i = 0; i < times; i++) list.push(fault);
    this.faults.set(route, list);
  }

  takeFault(route: string): Reply | undefined {
    const fault = this.faults.get(route)?.shift();
    if (!fault) return undefined;
    const extra = fault.retryAfterMs === undefined ? {} : { retry_after_ms: fault.retryAfterMs };
    return matrixError(fault.status, fault.errcode, "A fault the test asked for.", extra);
  }

  append(roomId: string, sender: string, type: string, content: Record<string, unknown>, stateKey?: string): FakeEvent {
    const event: FakeEvent = {
      event_id: `$${opaque(24)}`,
      room_id: roomId,
      sender,
      type,
      content,
      origin_server_ts: Date.now(),
      edits: [],
      redacted: false,
      ...(stateKey === undefined ? {} : { state_key: stateKey }),
    };
    this.stream.push(event);
    return event;
  }

  /** The bot's messages in a room that are still there (edits folded into the message they change). */
  visible(roomId: string): FakeEvent[] {
    return this.stream.filter(
      (e) =>
        e.room_id === roomId &&
        e.sender === this.bot.userId &&
        e.type === "m.room.message" &&
        !e.redacted &&
        (e.content["m.relates_to"] as { rel_type?: string } | undefined)?.rel_type !== "m.replace",
    );
  }

  /** The reactions the bot has on `eventId` now (redacted ones gone), by emoji. */
  reactionsOn(eventId: string): string[] {
    return this.stream
      .filter((e) => e.type === "m.reaction" && !e.redacted && e.sender === this.bot.userId)
      .map((e) => e.content["m.relates_to"] as { event_id?: string; key?: string })
      .filter((relation) => relation.event_id === eventId)
      .map((relation) => relation.key ?? "");
  }

  /** The body a message shows now. */
  static bodyOf(event: FakeEvent): string {
    return event.edits.at(-1) ?? String(event.content.body ?? "");
  }

  routes(method: string, path: string, body: Record<string, unknown>, token = this.token): Reply {
    const parts = path.split("/").map(decodeURIComponent);
    const route = routeOf(method, path);
    const room = parts[2] ? this.rooms.get(parts[2]) : undefined;
    switch (route) {
      case "GET /account/whoami":
        return { status: 200, body: { user_id: this.bot.userId, device_id: this.sessions.get(token) } };
      case "POST /logout":
        this.sessions.delete(token);
        return { status: 200, body: {} };
      case "GET /profile/:user/displayname": {
        const user = this.users.get(parts[2] ?? "");
        return user
          ? { status: 200, body: { displayname: user.displayName } }
          : matrixError(404, "M_NOT_FOUND", "Profile was not found");
      }
      case "POST /rooms/:room/join": {
        if (!room || (!room.invited.has(this.bot.userId) && !room.members.has(this.bot.userId))) {
          return matrixError(403, "M_FORBIDDEN", "You are not invited to this room.");
        }
        room.invited.delete(this.bot.userId);
        room.members.add(this.bot.userId);
        this.append(room.id, this.bot.userId, "m.room.member", { membership: "join" }, this.bot.userId);
        return { status: 200, body: { room_id: room.id } };
      }
      case "PUT /rooms/:room/send/m.room.message/:txn":
        return this.sendMessage(room, parts[5] ?? "", body);
      case "PUT /rooms/:room/send/m.reaction/:txn": {
        if (!room?.members.has(this.bot.userId)) return matrixError(403, "M_FORBIDDEN", "User not in room");
        const relation = body["m.relates_to"] as { rel_type?: string; event_id?: string; key?: string } | undefined;
        if (relation?.rel_type !== "m.annotation" || !relation.event_id || !relation.key) {
          return matrixError(400, "M_BAD_JSON", "A reaction needs an m.annotation relation with a key");
        }
        const event = this.append(room.id, this.bot.userId, "m.reaction", body);
        return { status: 200, body: { event_id: event.event_id } };
      }
      case "PUT /rooms/:room/typing/:user":
        if (parts[4] !== this.bot.userId)
          return matrixError(403, "M_FORBIDDEN", "Cannot set another user's typing state");
        if (!room?.members.has(this.bot.userId)) return matrixError(403, "M_FORBIDDEN", "User not in room");
        return { status: 200, body: {} };
      case "PUT /rooms/:room/redact/:event/:txn": {
        const target = this.stream.find((e) => e.event_id === parts[4] && e.room_id === room?.id);
        if (!target) return matrixError(404, "M_NOT_FOUND", "Event not found");
        target.redacted = true;
        return { status: 200, body: { event_id: `$${opaque(24)}` } };
      }
      default:
        return matrixError(404, "M_UNRECOGNIZED", "Unrecognized request");
    }
  }

  private sendMessage(room: FakeRoom | undefined, txnId: string, content: Record<string, unknown>): Reply {
    if (!room?.members.has(this.bot.userId)) return matrixError(403, "M_FORBIDDEN", "User not in room");
    const known = this.txns.get(`${room.id}/${txnId}`);
    if (known) return { status: 200, body: { event_id: known } };
    if (typeof content.body !== "string" || typeof content.msgtype !== "string") {
      return matrixError(400, "M_BAD_JSON", "body and msgtype are required");
    }
    const relation = content["m.relates_to"] as { rel_type?: string; event_id?: string } | undefined;
    if (relation?.rel_type === "m.replace") {
      const target = this.stream.find((e) => e.event_id === relation.event_id && e.room_id === room.id);
      if (!target || target.sender !== this.bot.userId) return matrixError(400, "M_BAD_JSON", "Cannot edit that event");
      const replacement = content["m.new_content"] as { body?: unknown } | undefined;
      target.edits.push(String(replacement?.body ?? ""));
    }
    const event = this.append(room.id, this.bot.userId, "m.room.message", content);
    this.txns.set(`${room.id}/${txnId}`, event.event_id);
    return { status: 200, body: { event_id: event.event_id } };
  }
}
