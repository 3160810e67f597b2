/**
 * A local stand-in for a Matrix homeserver on one loopback port: the Client-Server API under
 * `/_matrix/client/v3` (bearer token, `{errcode, error}` bodies, 429 `M_LIMIT_EXCEEDED` with
 * `retry_after_ms`), `/sync` as a real long poll (held open until events arrive or `timeout`
 * passes; the first sync honours the filter's timeline limit, a room just joined comes with its
 * history), media upload (`/_matrix/media/v3/upload`) and authenticated download
 * (`/_matrix/client/v1/media/download/{server}/{id}`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ConditionWaiters } from "../../helpers/condition-waiters.js";
import {
  type FakeEvent,
  FakeMatrixState,
  type FakeRoom,
  type FakeUser,
  matrixError,
  opaque,
  type RecordedCall,
  type Reply,
  routeOf,
  SERVER_NAME,
} from "./state.js";

/** How many events of its history a room just joined shows. */
const JOIN_HISTORY = 10;

export class FakeMatrix {
  readonly state: FakeMatrixState;
  /** Sync requests answered (successfully). */
  syncs = 0;
  /** Long polls held open right now. */
  pendingPolls = 0;
  private readonly server: Server;
  private readonly conditions = new ConditionWaiters("fake Matrix");
  private port = 0;

  constructor(token = "fake-matrix-token") {
    this.state = new FakeMatrixState(token);
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get bot(): FakeUser {
    return this.state.bot;
  }

  get calls(): RecordedCall[] {
    return this.state.calls;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A user writes in a room, as a client would (content beyond msgtype and body in `extra`). */
  userSays(user: FakeUser, room: FakeRoom, body: string, extra: Record<string, unknown> = {}): FakeEvent {
    const event = this.state.append(room.id, user.userId, "m.room.message", { msgtype: "m.text", body, ...extra });
    this.notify();
    return event;
  }

  /** A user sends any room event (an encrypted one, a file message). */
  userSends(user: FakeUser, room: FakeRoom, type: string, content: Record<string, unknown>): FakeEvent {
    const event = this.state.append(room.id, user.userId, type, content);
    this.notify();
    return event;
  }

  /** Media a user uploaded; returns its mxc:// address. */
  storeMedia(name: string, contentType: string, data: Buffer): string {
    const id = opaque();
    this.state.media.set(id, { data, contentType, name });
    return `mxc://${SERVER_NAME}/${id}`;
  }

  /** `user` makes a room and invites the bot (`direct`: as a DM). */
  invite(user: FakeUser, name: string, direct: boolean): FakeRoom {
    const room: FakeRoom = {
      id: `!${opaque()}:${SERVER_NAME}`,
      name,
      members: new Set([user.userId]),
      invited: new Set(),
    };
    this.state.rooms.set(room.id, room);
    room.invited.add(this.bot.userId);
    this.state.append(
      room.id,
      user.userId,
      "m.room.member",
      { membership: "invite", is_direct: direct },
      this.bot.userId,
    );
    this.notify();
    return room;
  }

  /** Resolves when `test` holds, checked after every call and event; rejects after `timeoutMs`. */
  waitFor(test: () => boolean, what = "a condition", timeoutMs = 20_000): Promise<void> {
    return this.conditions.waitFor(test, what, timeoutMs);
  }

  /** Resolves with the first recorded call of `route` that `match` accepts. */
  async waitForCall(route: string, match: (call: RecordedCall) => boolean = () => true): Promise<RecordedCall> {
    const find = () => this.calls.find((call) => routeOf(call.method, call.path) === route && match(call));
    await this.waitFor(() => find() !== undefined, `a ${route} call`);
    return find() as RecordedCall;
  }

  notify(): void {
    this.conditions.notify();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const raw = await readBody(req);
    const decoded = url.pathname.split("/").map(decodeURIComponent).join("/");
    const path = decoded.startsWith("/_matrix/client/v3/")
      ? decoded.slice("/_matrix/client/v3".length)
      : decoded.replace(/^\/_matrix/, "");
    const method = req.method ?? "GET";
    const header = req.headers.authorization;
    const token = header?.startsWith("Bearer ") ? header.slice(7) : undefined;
    let body: Record<string, unknown> = {};
    const isUpload = method === "POST" && path === "/media/v3/upload";
    if (!isUpload && raw.length > 0) {
      try {
        body = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
      } catch {
        return this.respond(
          res,
          method,
          path,
          url.searchParams,
          body,
          matrixError(400, "M_NOT_JSON", "Content not JSON."),
        );
      }
    }
    const fault = this.state.takeFault(routeOf(method, path));
    if (fault) return this.respond(res, method, path, url.searchParams, body, fault);
    if (method === "POST" && path === "/login") {
      return this.respond(
        res,
        method,
        path,
        url.searchParams,
        { ...body, password: "[given]" },
        this.state.logIn(body),
      );
    }
    if (!token)
      return this.respond(
        res,
        method,
        path,
        url.searchParams,
        body,
        matrixError(401, "M_MISSING_TOKEN", "Missing access token"),
      );
    if (!this.state.sessions.has(token)) {
      const reply = matrixError(401, "M_UNKNOWN_TOKEN", "Invalid access token passed.", { soft_logout: false });
      return this.respond(res, method, path, url.searchParams, body, reply);
    }
    const download = /^\/client\/v1\/media\/download\/([^/]+)\/([^/]+)$/.exec(path);
    if (method === "GET" && download) {
      const media = download[1] === SERVER_NAME ? this.state.media.get(download[2] as string) : undefined;
      this.record(method, path, url.searchParams, {}, media ? 200 : 404);
      if (!media)
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ errcode: "M_NOT_FOUND", error: "Not found" }));
      else
        res.writeHead(200, { "content-type": media.contentType, "content-length": media.data.length }).end(media.data);
      this.notify();
      return;
    }
    if (isUpload) {
      const id = opaque();
      const name = url.searchParams.get("filename") ?? "upload";
      this.state.media.set(id, { data: raw, contentType: String(req.headers["content-type"] ?? ""), name });
      const reply = { status: 200, body: { content_uri: `mxc://${SERVER_NAME}/${id}` } };
      return this.respond(res, method, path, url.searchParams, { filename: name, bytes: raw.length }, reply);
    }
    if (method === "GET" && path === "/sync") {
      const reply = await this.sync(url.searchParams, req);
      if (!reply) return;
      this.syncs += 1;
      return this.respond(res, method, path, url.searchParams, body, reply);
    }
    this.respond(res, method, path, url.searchParams, body, this.state.routes(method, path, body, token));
  }

  private respond(
    res: ServerResponse,
    method: string,
    path: string,
    query: URLSearchParams,
    body: Record<string, unknown>,
    reply: Reply,
  ): void {
    this.record(method, path, query, body, reply.status);
    if (!res.destroyed) {
      res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.body));
    }
    this.notify();
  }

  private record(method: string, path: string, query: URLSearchParams, body: Record<string, unknown>, status: number) {
    this.state.calls.push({ method, path, query, body, status, at: Date.now() });
  }

  /** A long poll: waits for stream events after `since` (up to `timeout` ms); undefined when the client left. */
  private async sync(query: URLSearchParams, req: IncomingMessage): Promise<Reply | undefined> {
    const since = query.get("since");
    if (since === null) return { status: 200, body: this.firstSync(query) };
    const from = Number(since);
    if (!Number.isInteger(from) || from < 0 || from > this.state.stream.length) {
      return matrixError(400, "M_INVALID_PARAM", "Invalid since token");
    }
    const timeout = Math.min(Number(query.get("timeout") ?? 0) || 0, 60_000);
    if (this.state.stream.length === from && timeout > 0) {
      let left = false;
      const gone = () => {
        left = true;
        this.notify();
      };
      req.socket.once("close", gone);
      this.pendingPolls += 1;
      this.notify();
      await this.waitFor(() => left || this.state.stream.length > from, "sync events", timeout).catch(() => undefined);
      this.pendingPolls -= 1;
      req.socket.off("close", gone);
      if (left) return undefined;
    }
    return { status: 200, body: this.batch(from) };
  }

  private firstSync(query: URLSearchParams): Record<string, unknown> {
    let limit = 10;
    try {
      const filter = JSON.parse(query.get("filter") ?? "{}") as { room?: { timeline?: { limit?: number } } };
      limit = filter.room?.timeline?.limit ?? limit;
    } catch {}
    const join: Record<string, unknown> = {};
    const invite: Record<string, unknown> = {};
    for (const room of this.state.rooms.values()) {
      if (room.members.has(this.bot.userId)) {
        const events = this.state.stream.filter((e) => e.room_id === room.id).slice(-limit);
        join[room.id] = this.joinedRoom(room, events);
      } else if (room.invited.has(this.bot.userId)) {
        invite[room.id] = this.invitedRoom(room);
      }
    }
    return { next_batch: String(this.state.stream.length), rooms: { join, invite, leave: {} } };
  }

  private batch(from: number): Record<string, unknown> {
    const fresh = this.state.stream.slice(from);
    const join: Record<string, unknown> = {};
    const invite: Record<string, unknown> = {};
    for (const roomId of new Set(fresh.map((e) => e.room_id))) {
      const room = this.state.rooms.get(roomId);
      if (!room) continue;
      if (room.members.has(this.bot.userId)) {
        let events = fresh.filter((e) => e.room_id === roomId);
        const joinedNow = events.some((e) => e.type === "m.room.member" && e.state_key === this.bot.userId);
        if (joinedNow) {
          const earlier = this.state.stream.slice(0, from).filter((e) => e.room_id === roomId);
          events = [...earlier.slice(-JOIN_HISTORY), ...events];
        }
        join[roomId] = this.joinedRoom(room, events);
      } else if (room.invited.has(this.bot.userId)) {
        invite[roomId] = this.invitedRoom(room);
      }
    }
    return { next_batch: String(this.state.stream.length), rooms: { join, invite, leave: {} } };
  }

  private joinedRoom(room: FakeRoom, events: FakeEvent[]): Record<string, unknown> {
    const state = room.name ? [stateEvent(room, "m.room.name", "", { name: room.name })] : [];
    return {
      timeline: { events: events.map(wire), limited: false },
      state: { events: state },
      summary: { "m.joined_member_count": room.members.size },
    };
  }

  private invitedRoom(room: FakeRoom): Record<string, unknown> {
    const invite = [...this.state.stream]
      .reverse()
      .find((e) => e.room_id === room.id && e.type === "m.room.member" && e.state_key === this.bot.userId);
    const events = [
      ...(room.name ? [{ type: "m.room.name", state_key: "", sender: "", content: { name: room.name } }] : []),
      ...(invite
        ? [{ type: invite.type, state_key: invite.state_key, sender: invite.sender, content: invite.content }]
        : []),
    ];
    return { invite_state: { events } };
  }
}

function wire(event: FakeEvent): Record<string, unknown> {
  const { edits: _edits, redacted, ...shape } = event;
  return redacted ? { ...shape, content: {}, unsigned: { redacted_because: {} } } : shape;
}

function stateEvent(room: FakeRoom, type: string, stateKey: string, content: Record<string, unknown>) {
  return {
    type,
    state_key: stateKey,
    sender: "",
    content,
    event_id: `$${opaque(24)}`,
    room_id: room.id,
    origin_server_ts: 0,
  };
}

export async function startFakeMatrix(token?: string): Promise<FakeMatrix> {
  return new FakeMatrix(token).listen();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
