/**
 * What the fake Mattermost server holds: users, channels, posts (with their edit history) and
 * files, the REST routes of API v4 the adapter uses, answering in Mattermost's shapes (a post
 * object, an AppError body on failure), and the calls it received, for tests to read.
 */
import { randomBytes } from "node:crypto";

/** Mattermost ids: 26 lowercase letters and digits. */
export function newId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(26), (byte) => alphabet[byte % alphabet.length]).join("");
}

export interface FakeUser {
  id: string;
  username: string;
  is_bot: boolean;
}

export interface FakeChannel {
  id: string;
  type: "O" | "P" | "D" | "G";
  name: string;
  display_name: string;
  team_id: string;
}

export interface FakePost {
  id: string;
  create_at: number;
  update_at: number;
  edit_at: number;
  delete_at: number;
  user_id: string;
  channel_id: string;
  root_id: string;
  message: string;
  type: string;
  props: Record<string, unknown>;
  file_ids: string[];
  /** Every text an edit gave the post, in order. */
  edits: string[];
}

export interface StoredFile {
  id: string;
  name: string;
  mime_type: string;
  data: Buffer;
  channel_id: string;
}

export interface RecordedCall {
  method: string;
  /** The path under /api/v4. */
  path: string;
  body: Record<string, unknown>;
  status: number;
  response: unknown;
  at: number;
}

export interface RouteFault {
  /** 429 with Retry-After (unless `onlyReset`) and X-RateLimit-Reset, both in seconds. */
  rateLimitSeconds?: number;
  /** Send X-RateLimit-Reset alone, without Retry-After. */
  onlyReset?: boolean;
  /** Any other HTTP status, with an AppError body. */
  status?: number;
}

export interface RestReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Mattermost's post size limit (runes) on a default server. */
export const MAX_POST_RUNES = 16_383;
export const TEAM_ID = newId();

function appError(status: number, id: string, message: string): RestReply {
  return { status, body: { id, message, detailed_error: "", request_id: newId(), status_code: status } };
}

export class FakeMattermostState {
  readonly users = new Map<string, FakeUser>();
  readonly channels = new Map<string, FakeChannel>();
  readonly posts: FakePost[] = [];
  readonly files = new Map<string, StoredFile>();
  readonly calls: RecordedCall[] = [];
  private readonly faults = new Map<string, RouteFault[]>();
  /** Called with every post created through the API, so the server can broadcast it. */
  onPosted: (post: FakePost) => void = () => undefined;
  onEdited: (post: FakePost) => void = () => undefined;

  constructor(
    readonly token: string,
    readonly bot: FakeUser,
  ) {
    this.users.set(bot.id, bot);
  }

  addUser(username: string, isBot = false): FakeUser {
    const user = { id: newId(), username, is_bot: isBot };
    this.users.set(user.id, user);
    return user;
  }

  addChannel(type: FakeChannel["type"], name: string, displayName = name): FakeChannel {
    const channel = { id: newId(), type, name, display_name: displayName, team_id: type === "D" ? "" : TEAM_ID };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** The next `times` calls of a route ("POST /posts", "PUT /posts/:id/patch") fail this way. */
  fail(route: string, fault: RouteFault, times = 1): void {
    const list = this.faults.get(route) ?? [];
    for (let i = 0; i < times; i++) list.push(fault);
    this.faults.set(route, list);
  }

  createPost(userId: string, channelId: string, message: string, extra: Partial<FakePost> = {}): FakePost {
    const now = Date.now();
    const post: FakePost = {
      id: newId(),
      create_at: now,
      update_at: now,
      edit_at: 0,
      delete_at: 0,
      user_id: userId,
      channel_id: channelId,
      root_id: "",
      message,
      type: "",
      props: {},
      file_ids: [],
      edits: [],
      ...extra,
    };
    this.posts.push(post);
    return post;
  }

  /** The bot's posts in a channel that are still there. */
  visible(channelId: string): FakePost[] {
    return this.posts.filter((p) => p.channel_id === channelId && p.user_id === this.bot.id && !p.delete_at);
  }

  call(method: string, path: string, body: Record<string, unknown>, token: string | undefined): RestReply {
    const reply = this.answer(method, path, body, token);
    this.calls.push({ method, path, body, status: reply.status, response: reply.body, at: Date.now() });
    return reply;
  }

  private answer(method: string, path: string, body: Record<string, unknown>, token: string | undefined): RestReply {
    const route = `${method} ${path.replaceAll(/\/[a-z0-9]{26}(?=\/|$)/g, "/:id")}`;
    const fault = this.faults.get(route)?.shift();
    if (fault?.rateLimitSeconds !== undefined) {
      const seconds = String(fault.rateLimitSeconds);
      return {
        status: 429,
        body: "limit exceeded\n",
        headers: {
          "x-ratelimit-limit": "10",
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": seconds,
          ...(fault.onlyReset ? {} : { "retry-after": seconds }),
        },
      };
    }
    if (fault?.status) return appError(fault.status, "app.fake.fault", "A fault the test asked for.");
    if (token !== this.token) {
      return appError(401, "api.context.session_expired.app_error", "Invalid or expired session, please login again.");
    }
    const handler = this.routes[route];
    if (!handler) return appError(404, "api.context.404.app_error", "Sorry, we could not find the page.");
    const id = /\/([a-z0-9]{26})(?=\/|$)/.exec(path)?.[1] ?? "";
    return handler(body, id);
  }

  private postReply(status: number, post: FakePost): RestReply {
    const { edits: _edits, ...shape } = post;
    return { status, body: { ...shape, hashtags: "", pending_post_id: "", reply_count: 0, metadata: {} } };
  }

  private readonly routes: Record<string, (body: Record<string, unknown>, id: string) => RestReply> = {
    "GET /users/me": () => ({ status: 200, body: { ...this.bot, email: "", roles: "system_user" } }),
    "GET /channels/:id": (_body, id) => {
      const channel = this.channels.get(id);
      return channel
        ? { status: 200, body: channel }
        : appError(404, "app.channel.get.existing.app_error", "Unable to find the existing channel.");
    },
    "POST /posts": (body) => {
      const channel = this.channels.get(String(body.channel_id ?? ""));
      if (!channel)
        return appError(403, "api.context.permissions.app_error", "You do not have the appropriate permissions.");
      const message = typeof body.message === "string" ? body.message : "";
      const fileIds = Array.isArray(body.file_ids) ? body.file_ids.map(String) : [];
      if (!message && fileIds.length === 0)
        return appError(400, "api.post.create_post.message.app_error", "Message is empty.");
      if ([...message].length > MAX_POST_RUNES)
        return appError(400, "model.post.is_valid.msg.app_error", "Invalid Message.");
      const rootId = typeof body.root_id === "string" ? body.root_id : "";
      if (rootId) {
        const root = this.posts.find((p) => p.id === rootId);
        if (!root || root.root_id || root.channel_id !== channel.id) {
          return appError(400, "api.post.create_post.root_id.app_error", "Invalid RootId parameter.");
        }
      }
      const post = this.createPost(this.bot.id, channel.id, message, {
        root_id: rootId,
        file_ids: fileIds,
        props: { from_bot: "true" },
      });
      this.onPosted(post);
      return this.postReply(201, post);
    },
    "PUT /posts/:id/patch": (body, id) => {
      const post = this.posts.find((p) => p.id === id && !p.delete_at);
      if (!post) return appError(404, "app.post.get.app_error", "Unable to get the post.");
      if (post.user_id !== this.bot.id)
        return appError(403, "api.context.permissions.app_error", "You do not have the appropriate permissions.");
      if (typeof body.message === "string") {
        if ([...body.message].length > MAX_POST_RUNES)
          return appError(400, "model.post.is_valid.msg.app_error", "Invalid Message.");
        post.message = body.message;
        post.edits.push(body.message);
      }
      post.edit_at = post.update_at = Date.now();
      this.onEdited(post);
      return this.postReply(200, post);
    },
    "DELETE /posts/:id": (_body, id) => {
      const post = this.posts.find((p) => p.id === id && !p.delete_at);
      if (!post) return appError(404, "app.post.get.app_error", "Unable to get the post.");
      post.delete_at = Date.now();
      return { status: 200, body: { status: "OK" } };
    },
    "POST /users/:id/typing": (body, id) => {
      if (id !== this.bot.id)
        return appError(403, "api.context.permissions.app_error", "You do not have the appropriate permissions.");
      if (!this.channels.has(String(body.channel_id ?? "")))
        return appError(403, "api.context.permissions.app_error", "You do not have the appropriate permissions.");
      return { status: 200, body: { status: "OK" } };
    },
    "GET /files/:id/info": (_body, id) => {
      const file = this.files.get(id);
      if (!file) return appError(404, "app.file_info.get.app_error", "Unable to get the file info.");
      return { status: 200, body: this.fileInfo(file) };
    },
  };

  fileInfo(file: StoredFile): Record<string, unknown> {
    return {
      id: file.id,
      user_id: this.bot.id,
      post_id: "",
      channel_id: file.channel_id,
      name: file.name,
      extension: file.name.split(".").pop() ?? "",
      size: file.data.length,
      mime_type: file.mime_type,
      create_at: Date.now(),
    };
  }

  storeFile(name: string, mimeType: string, data: Buffer, channelId: string): StoredFile {
    const file = { id: newId(), name, mime_type: mimeType, data, channel_id: channelId };
    this.files.set(file.id, file);
    return file;
  }
}
