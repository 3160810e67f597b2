/**
 * The Web API half of the fake Slack: `POST /api/<method>` with the form-encoded (or JSON) bodies
 * the official WebClient sends, answering `{ ok: true, ... }` or `{ ok: false, error }` with
 * HTTP 200 as Slack does, and 429 + `Retry-After` when rate-limited. Messages, edits, uploads and
 * downloads are kept in memory for tests to read.
 */
import { randomBytes } from "node:crypto";

export const FAKE_TEAM = { id: "T0FAKE001", name: "Fake Team" };
export const FAKE_BOT = { userId: "U0HERMES1", botId: "B0HERMES1", name: "hermes", appId: "A0HERMES1" };

export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  /** The token the call carried (Authorization header or `token` field). */
  token: string | undefined;
  at: number;
  /** `performance.now()` when the call arrived, for latency measurements. */
  atHr: number;
  /** What the fake answered: HTTP status and body. */
  status: number;
  response: Record<string, unknown>;
}

export interface FakeMessage {
  channel: string;
  ts: string;
  text: string;
  threadTs?: string;
  blocks?: unknown;
  edits: string[];
  deleted: boolean;
}

export interface StoredFile {
  id: string;
  name: string;
  mimeType: string;
  data: Buffer;
  /** Set once completeUploadExternal shared it. */
  sharedTo?: { channel: string; threadTs?: string; comment?: string };
}

export interface MethodFault {
  /** 429 with Retry-After (seconds) and `{ ok: false, error: "ratelimited" }`. */
  retryAfter?: number;
  /** `{ ok: false, error }` with HTTP 200. */
  error?: string;
  /** Any other HTTP status (a 5xx). */
  status?: number;
}

export interface WebApiReply {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

let tsCounter = 0;
/** Message timestamps as Slack writes them: seconds, a dot, six digits, unique per channel. */
export function nextTs(): string {
  tsCounter += 1;
  const seconds = Math.floor(Date.now() / 1000);
  return `${seconds}.${String(tsCounter % 1_000_000).padStart(6, "0")}`;
}

export class FakeSlackState {
  readonly calls: RecordedCall[] = [];
  readonly messages: FakeMessage[] = [];
  readonly files = new Map<string, StoredFile>();
  readonly missingChannels = new Set<string>();
  readonly userNames = new Map<string, string>();
  private readonly faults = new Map<string, MethodFault[]>();
  private readonly tickets = new Set<string>();

  constructor(
    readonly tokens: { bot: string; app: string },
    private readonly baseUrl: () => string,
  ) {}

  /** The next `times` calls of `method` fail this way. */
  fail(method: string, fault: MethodFault, times = 1): void {
    const list = this.faults.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(fault);
    this.faults.set(method, list);
  }

  /** A file a user "uploaded", to put in a message event's `files`. */
  addUserFile(name: string, mimeType: string, data: Buffer): Record<string, unknown> {
    const id = `F${randomBytes(5).toString("hex").toUpperCase()}`;
    this.files.set(id, { id, name, mimeType, data });
    const url = `${this.baseUrl()}/files-pri/${FAKE_TEAM.id}-${id}/download/${encodeURIComponent(name)}`;
    return {
      id,
      name,
      title: name,
      mimetype: mimeType,
      filetype: name.split(".").pop() ?? "bin",
      size: data.length,
      mode: "hosted",
      url_private: url,
      url_private_download: url,
    };
  }

  /** One-use ticket for the Socket Mode URL. */
  takeTicket(ticket: string | null): boolean {
    return ticket !== null && this.tickets.delete(ticket);
  }

  visible(channel: string): FakeMessage[] {
    return this.messages.filter((m) => m.channel === channel && !m.deleted);
  }

  call(method: string, params: Record<string, unknown>, token: string | undefined): WebApiReply {
    const reply = this.answer(method, params, token);
    this.calls.push({
      method,
      params,
      token,
      at: Date.now(),
      atHr: performance.now(),
      status: reply.status,
      response: reply.body,
    });
    return reply;
  }

  private answer(method: string, params: Record<string, unknown>, token: string | undefined): WebApiReply {
    const fault = this.faults.get(method)?.shift();
    if (fault?.retryAfter !== undefined) {
      return {
        status: 429,
        body: { ok: false, error: "ratelimited" },
        headers: { "retry-after": String(fault.retryAfter) },
      };
    }
    if (fault?.status) return { status: fault.status, body: { ok: false, error: "fatal_error" } };
    if (fault?.error) return ok(false, { error: fault.error });
    if (!token) return ok(false, { error: "not_authed" });
    if (method === "apps.connections.open") {
      if (!token.startsWith("xapp-")) return ok(false, { error: "not_allowed_token_type" });
      if (token !== this.tokens.app) return ok(false, { error: "invalid_auth" });
      const ticket = randomBytes(8).toString("hex");
      this.tickets.add(ticket);
      const wsUrl = this.baseUrl().replace(/^http/, "ws");
      return ok(true, { url: `${wsUrl}/link/?ticket=${ticket}&app_id=${FAKE_BOT.appId}` });
    }
    if (token !== this.tokens.bot)
      return ok(false, { error: token.startsWith("xoxb-") ? "invalid_auth" : "not_allowed_token_type" });
    const handler = this.methods[method];
    if (!handler) return ok(false, { error: "unknown_method" });
    return handler(params);
  }

  private channelError(channel: unknown): WebApiReply | undefined {
    if (typeof channel !== "string" || !channel) return ok(false, { error: "channel_not_found" });
    if (this.missingChannels.has(channel)) return ok(false, { error: "channel_not_found" });
    return undefined;
  }

  private readonly methods: Record<string, (params: Record<string, unknown>) => WebApiReply> = {
    "auth.test": () =>
      ok(true, {
        url: "https://fake.slack.test/",
        team: FAKE_TEAM.name,
        user: FAKE_BOT.name,
        team_id: FAKE_TEAM.id,
        user_id: FAKE_BOT.userId,
        bot_id: FAKE_BOT.botId,
        is_enterprise_install: false,
      }),
    "chat.postMessage": (params) => {
      const problem = this.channelError(params.channel);
      if (problem) return problem;
      const text = typeof params.text === "string" ? params.text : "";
      if (!text && !params.blocks) return ok(false, { error: "no_text" });
      if (text.length > 40_000) return ok(false, { error: "msg_too_long" });
      const message: FakeMessage = {
        channel: params.channel as string,
        ts: nextTs(),
        text,
        ...(typeof params.thread_ts === "string" ? { threadTs: params.thread_ts } : {}),
        ...(params.blocks ? { blocks: params.blocks } : {}),
        edits: [],
        deleted: false,
      };
      this.messages.push(message);
      return ok(true, { channel: message.channel, ts: message.ts, message: { type: "message", text, ts: message.ts } });
    },
    "chat.update": (params) => {
      const message = this.messages.find((m) => m.channel === params.channel && m.ts === params.ts && !m.deleted);
      if (!message) return ok(false, { error: "message_not_found" });
      const text = typeof params.text === "string" ? params.text : message.text;
      message.text = text;
      message.edits.push(text);
      if (params.blocks !== undefined) message.blocks = params.blocks;
      return ok(true, { channel: message.channel, ts: message.ts, text });
    },
    "chat.delete": (params) => {
      const message = this.messages.find((m) => m.channel === params.channel && m.ts === params.ts && !m.deleted);
      if (!message) return ok(false, { error: "message_not_found" });
      message.deleted = true;
      return ok(true, { channel: message.channel, ts: message.ts });
    },
    "users.info": (params) => {
      const id = typeof params.user === "string" ? params.user : "";
      if (!/^[UW][A-Z0-9]+$/.test(id)) return ok(false, { error: "user_not_found" });
      const name = this.userNames.get(id) ?? `member-${id.toLowerCase()}`;
      return ok(true, { user: { id, team_id: FAKE_TEAM.id, name, real_name: name, is_bot: false } });
    },
    "conversations.info": (params) => {
      const problem = this.channelError(params.channel);
      if (problem) return problem;
      const id = params.channel as string;
      const name = id.startsWith("D") ? undefined : `chan-${id.toLowerCase()}`;
      return ok(true, {
        channel: { id, ...(name ? { name } : {}), is_im: id.startsWith("D"), is_channel: id.startsWith("C") },
      });
    },
    "files.getUploadURLExternal": (params) => {
      const name = typeof params.filename === "string" ? params.filename : "";
      const length = Number(params.length);
      if (!name || !Number.isInteger(length) || length < 0) return ok(false, { error: "invalid_arguments" });
      const id = `F${randomBytes(5).toString("hex").toUpperCase()}`;
      this.files.set(id, { id, name, mimeType: "application/octet-stream", data: Buffer.alloc(0) });
      return ok(true, { upload_url: `${this.baseUrl()}/upload/v1/${id}`, file_id: id });
    },
    "files.completeUploadExternal": (params) => {
      const listed = Array.isArray(params.files) ? (params.files as Array<{ id?: string; title?: string }>) : [];
      if (listed.length === 0) return ok(false, { error: "invalid_arguments" });
      const channel = params.channel_id;
      if (channel !== undefined) {
        const problem = this.channelError(channel);
        if (problem) return problem;
      }
      const done: Record<string, unknown>[] = [];
      for (const entry of listed) {
        const file = entry.id ? this.files.get(entry.id) : undefined;
        if (!file || file.data.length === 0) return ok(false, { error: "file_not_found" });
        if (typeof channel === "string") {
          file.sharedTo = {
            channel,
            ...(typeof params.thread_ts === "string" ? { threadTs: params.thread_ts } : {}),
            ...(typeof params.initial_comment === "string" ? { comment: params.initial_comment } : {}),
          };
        }
        done.push({ id: file.id, name: file.name, title: entry.title ?? file.name, size: file.data.length });
      }
      return ok(true, { files: done });
    },
  };
}

function ok(success: boolean, fields: Record<string, unknown>): WebApiReply {
  return { status: 200, body: { ok: success, ...fields } };
}
