/**
 * A local stand-in for a Mattermost server on one loopback port: REST API v4 under `/api/v4`
 * (bearer token, AppError bodies, 429 with the rate-limit headers Mattermost sends), file upload
 * (`POST /files`, multipart) and download, and the WebSocket at `/api/v4/websocket`, which
 * speaks the real protocol: an `authentication_challenge` answered `{status: "OK", seq_reply}`
 * (a bad token closes the socket), a `hello` event, then `posted` / `post_edited` events whose
 * `data.post` is the post as a JSON string, numbered by `seq`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { ConditionWaiters } from "../../helpers/condition-waiters.js";
import {
  type FakeChannel,
  FakeMattermostState,
  type FakePost,
  type FakeUser,
  newId,
  type RecordedCall,
} from "./state.js";

interface Connection {
  socket: WebSocket;
  authenticated: boolean;
  seq: number;
  id: string;
}

export class FakeMattermost {
  readonly state: FakeMattermostState;
  /** Every event sent to a client, in order. */
  readonly sentEvents: Record<string, unknown>[] = [];
  /** Sockets that passed the authentication challenge. */
  connections = 0;
  /** Challenges refused (wrong token). */
  refusedChallenges = 0;
  private readonly server: Server;
  /** Pings go unanswered while set, as from a server that hangs without closing the socket. */
  mutePongs = false;
  private readonly wss = new WebSocketServer({ noServer: true, autoPong: false });
  private readonly live = new Set<Connection>();
  private readonly conditions = new ConditionWaiters("fake Mattermost");
  private port = 0;

  constructor(token = "fake-mattermost-token") {
    this.state = new FakeMattermostState(token, { id: newId(), username: "hermes", is_bot: true });
    this.state.onPosted = (post) => this.broadcastPost("posted", post);
    this.state.onEdited = (post) => this.broadcastPost("post_edited", post);
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on("upgrade", (req, socket, head) => {
      if (new URL(req.url ?? "/", "http://fake").pathname !== "/api/v4/websocket") {
        socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n");
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
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

  get connected(): boolean {
    return [...this.live].some((c) => c.authenticated);
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A user writes in a channel, as the web app would; the `posted` event goes to every client. */
  userPost(
    user: FakeUser,
    channel: FakeChannel,
    message: string,
    extra: Partial<Pick<FakePost, "root_id" | "file_ids" | "props" | "type">> = {},
  ): FakePost {
    const post = this.state.createPost(user.id, channel.id, message, extra);
    this.broadcastPost("posted", post);
    return post;
  }

  /** Drops every connection without a close frame, as a network failure would. */
  dropSockets(): void {
    for (const connection of this.live) connection.socket.terminate();
  }

  /** Resolves when `test` holds, checked after every call and event; rejects after `timeoutMs`. */
  waitFor(test: () => boolean, what = "a condition", timeoutMs = 20_000): Promise<void> {
    return this.conditions.waitFor(test, what, timeoutMs);
  }

  /** Resolves with the first recorded call of `method path` (path with `:id` for ids) that `match` accepts. */
  async waitForCall(route: string, match: (call: RecordedCall) => boolean = () => true): Promise<RecordedCall> {
    const find = () => this.calls.find((call) => routeOf(call) === route && match(call));
    await this.waitFor(() => find() !== undefined, `a ${route} call`);
    return find() as RecordedCall;
  }

  notify(): void {
    this.conditions.notify();
  }

  private broadcastPost(event: "posted" | "post_edited", post: FakePost): void {
    const channel = this.state.channels.get(post.channel_id);
    const sender = this.state.users.get(post.user_id);
    const { edits: _edits, ...shape } = post;
    const mentions = this.mentionsOf(post, channel);
    const data: Record<string, unknown> =
      event === "posted"
        ? {
            channel_display_name: channel?.display_name ?? "",
            channel_name: channel?.name ?? "",
            channel_type: channel?.type ?? "O",
            post: JSON.stringify({ ...shape, metadata: {} }),
            sender_name: `@${sender?.username ?? "unknown"}`,
            set_online: true,
            team_id: channel?.team_id ?? "",
            ...(mentions.length ? { mentions: JSON.stringify(mentions) } : {}),
          }
        : { post: JSON.stringify({ ...shape, metadata: {} }) };
    const broadcast = { omit_users: null, user_id: "", channel_id: post.channel_id, team_id: "", connection_id: "" };
    for (const connection of this.live) {
      if (connection.authenticated) this.send(connection, { event, data, broadcast });
    }
  }

  /** Who the server notifies: users named with @username, and the other member of a DM. */
  private mentionsOf(post: FakePost, channel: FakeChannel | undefined): string[] {
    const ids = new Set<string>();
    for (const user of this.state.users.values()) {
      if (user.id !== post.user_id && new RegExp(`@${user.username}(?![\\w-])`, "i").test(post.message))
        ids.add(user.id);
    }
    if (channel?.type === "D") {
      for (const id of channel.name.split("__")) if (id !== post.user_id) ids.add(id);
    }
    return [...ids];
  }

  private send(connection: Connection, event: Record<string, unknown>): void {
    const frame = { ...event, seq: connection.seq++ };
    this.sentEvents.push(frame);
    connection.socket.send(JSON.stringify(frame));
    this.notify();
  }

  private accept(ws: WebSocket): void {
    const connection: Connection = { socket: ws, authenticated: false, seq: 0, id: newId() };
    this.live.add(connection);
    ws.on("ping", (data) => {
      if (!this.mutePongs) ws.pong(data);
    });
    ws.on("close", () => {
      this.live.delete(connection);
      this.notify();
    });
    ws.on("message", (raw) => {
      let frame: { seq?: number; action?: string; data?: { token?: string } };
      try {
        frame = JSON.parse(raw.toString());
      } catch {
        return;
      }
      if (frame.action === "authentication_challenge") {
        if (frame.data?.token !== this.state.token) {
          this.refusedChallenges += 1;
          ws.close();
          this.notify();
          return;
        }
        connection.authenticated = true;
        this.connections += 1;
        ws.send(JSON.stringify({ status: "OK", seq_reply: frame.seq }));
        this.send(connection, {
          event: "hello",
          data: { server_version: "10.5.0.fake", connection_id: connection.id },
          broadcast: { omit_users: null, user_id: this.state.bot.id, channel_id: "", team_id: "" },
        });
        return;
      }
      if (!connection.authenticated) {
        const error = { id: "api.web_socket_router.not_authenticated.app_error", message: "No websocket session." };
        ws.send(JSON.stringify({ status: "FAIL", seq_reply: frame.seq, error }));
        return;
      }
      ws.send(JSON.stringify({ status: "OK", seq_reply: frame.seq }));
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await readBody(req);
    const path = url.pathname.replace(/^\/api\/v4/, "");
    const header = req.headers.authorization;
    const token = header?.startsWith("Bearer ") ? header.slice(7) : undefined;
    const method = req.method ?? "GET";
    if (!url.pathname.startsWith("/api/v4/")) {
      res.writeHead(404).end("not found");
      return;
    }
    const download = /^\/files\/([a-z0-9]{26})$/.exec(path);
    if (method === "GET" && download && token === this.state.token) {
      const file = this.state.files.get(download[1] as string);
      this.state.calls.push({ method, path, body: {}, status: file ? 200 : 404, response: null, at: Date.now() });
      if (!file) res.writeHead(404).end();
      else res.writeHead(200, { "content-type": file.mime_type, "content-length": file.data.length }).end(file.data);
      this.notify();
      return;
    }
    let params: Record<string, unknown> = {};
    if (method === "POST" && path === "/files" && token === this.state.token) {
      params = await this.receiveUpload(req, body);
    } else if (body.length > 0) {
      try {
        params = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ message: "bad JSON" }));
        return;
      }
    }
    const reply =
      method === "POST" && path === "/files" && token === this.state.token
        ? this.uploadReply(params)
        : this.state.call(method, path, params, token);
    const isText = typeof reply.body === "string";
    res.writeHead(reply.status, {
      "content-type": isText ? "text/plain; charset=utf-8" : "application/json",
      ...reply.headers,
    });
    res.end(isText ? reply.body : JSON.stringify(reply.body));
    this.notify();
  }

  private async receiveUpload(req: IncomingMessage, body: Buffer): Promise<Record<string, unknown>> {
    const type = req.headers["content-type"] ?? "";
    const form = await new Response(new Uint8Array(body), { headers: { "content-type": type } }).formData();
    const channelId = String(form.get("channel_id") ?? "");
    const uploaded: Array<{ name: string; type: string; data: Buffer }> = [];
    for (const value of form.getAll("files")) {
      if (typeof value === "string") continue;
      uploaded.push({ name: value.name, type: value.type, data: Buffer.from(await value.arrayBuffer()) });
    }
    return { channel_id: channelId, uploaded };
  }

  private uploadReply(params: Record<string, unknown>): ReturnType<FakeMattermostState["call"]> {
    const channelId = String(params.channel_id ?? "");
    const uploaded = (params.uploaded ?? []) as Array<{ name: string; type: string; data: Buffer }>;
    const record = (status: number, response: unknown) => {
      const files = uploaded.map((f) => ({ name: f.name, bytes: f.data.length }));
      this.state.calls.push({
        method: "POST",
        path: "/files",
        body: { channel_id: channelId, files },
        status,
        response,
        at: Date.now(),
      });
      return { status, body: response };
    };
    if (!this.state.channels.has(channelId) || uploaded.length === 0) {
      return record(400, {
        id: "api.file.upload_file.incorrect_channelId.app_error",
        message: "Unable to upload the file.",
        status_code: 400,
      });
    }
    const infos = uploaded.map((f) =>
      this.state.fileInfo(this.state.storeFile(f.name, f.type || "application/octet-stream", f.data, channelId)),
    );
    return record(201, { file_infos: infos, client_ids: [] });
  }
}

export function routeOf(call: RecordedCall): string {
  return `${call.method} ${call.path.replaceAll(/\/[a-z0-9]{26}(?=\/|$)/g, "/:id")}`;
}

export async function startFakeMattermost(token?: string): Promise<FakeMattermost> {
  return new FakeMattermost(token).listen();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
