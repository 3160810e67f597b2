/**
 * A local Telegram Bot API: `POST /bot<token>/<method>` and `GET /file/bot<token>/<path>` over
 * real HTTP, so grammY runs unmodified against it. getUpdates long-polls for real (held until an
 * update arrives or its timeout passes; an `offset` confirms what came before it). Tests queue
 * what users do, read what the bot did, and inject faults: error answers for the next calls of a
 * method, and long-poll connections cut mid-flight.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseBody, readRequest, type UploadedFile } from "./body.js";
import { invokeDraftOrRich } from "./drafts.js";
import { ApiError, type BotMessage, type FakeUser, TelegramWorld } from "./methods.js";
import { ALICE, type UserMessageInput, userMessage } from "./users.js";
import { WebhookPusher } from "./webhook-push.js";

export type { DraftFrame } from "./drafts.js";
export type { BotMessage, FakeChat, FakeUser } from "./methods.js";
export { ALICE, type UserMessageInput } from "./users.js";

export interface ApiCall {
  method: string;
  params: Record<string, unknown>;
  files: Record<string, UploadedFile>;
  /** Epoch ms the call arrived. */
  at: number;
  /** `performance.now()` when the call arrived, for precise intervals. */
  atHr: number;
  /** The HTTP status answered (0 when the connection was cut instead). */
  status: number;
  result?: unknown;
}

interface Fault {
  code: number;
  description: string;
  retryAfter?: number;
}

interface HeldPoll {
  res: ServerResponse;
  offset: number;
  timer: NodeJS.Timeout;
}

interface CallWaiter {
  test: (call: ApiCall) => boolean;
  resolve: (call: ApiCall) => void;
}

export class FakeTelegram {
  readonly world = new TelegramWorld();
  readonly calls: ApiCall[] = [];
  private readonly updates: Array<{ update_id: number } & Record<string, unknown>> = [];
  private confirmed = 0;
  private nextUpdateId = 1000;
  private readonly held = new Set<HeldPoll>();
  /** getUpdates calls cut short by another one, as Telegram answers two bot instances polling at once. */
  conflicts = 0;
  private readonly faults = new Map<string, Fault[]>();
  private readonly lostAnswers: string[] = [];
  private pollsToCut = 0;
  private waiters: CallWaiter[] = [];
  private callbackCounter = 0;
  private pusher: WebhookPusher | undefined;
  private readonly missing = new Set<string>();

  private constructor(
    private readonly server: Server,
    readonly token: string,
  ) {}

  static async start(options: { token?: string } = {}): Promise<FakeTelegram> {
    const server = createServer();
    const fake = new FakeTelegram(server, options.token ?? "7000001:TEST-token_abcdefghijklmnop");
    server.on("request", (req, res) => void fake.route(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  /** The API root to give grammY. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get messages(): BotMessage[] {
    return this.world.messages;
  }

  /** Messages the bot has in a chat now (deleted ones left out). */
  messagesIn(chatId: number, threadId?: number): BotMessage[] {
    return this.world.messages.filter(
      (m) => m.chatId === chatId && !m.deleted && (threadId === undefined || m.threadId === threadId),
    );
  }

  /** Long polls being held open right now. */
  get heldPolls(): number {
    return this.held.size;
  }

  callsOf(method: string): ApiCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** A user writes (or sends a file); returns the update as queued. */
  userMessage(input: UserMessageInput): Record<string, unknown> {
    return this.queue({ message: userMessage(this.world, input) });
  }

  /** A user presses an inline button under one of the bot's messages. */
  press(input: { message: BotMessage; data: string; from?: FakeUser }): Record<string, unknown> {
    const id = `cbq-${++this.callbackCounter}`;
    this.world.callbackIds.add(id);
    return this.queue({
      callback_query: {
        id,
        from: input.from ?? ALICE,
        chat_instance: "ci-1",
        data: input.data,
        message: this.world.wire(input.message),
      },
    });
  }

  /**
   * The next `times` calls of `method` take effect (a message is posted) but their connection is
   * cut before the answer: a network failure after Telegram did the work.
   */
  loseAnswerOfNext(method: string, times = 1): void {
    for (let i = 0; i < times; i++) this.lostAnswers.push(method);
  }

  /** The next `times` calls of `method` answer this error instead. */
  failNext(method: string, fault: Fault, times = 1): void {
    this.faults.set(method, [...(this.faults.get(method) ?? []), ...Array.from({ length: times }, () => fault)]);
  }

  /** From now on these methods answer as a server that does not have them (404 Not Found). */
  withoutMethods(...methods: string[]): void {
    for (const method of methods) this.missing.add(method);
  }

  /** Cuts the connection of every long poll being held now; returns how many. */
  dropHeldPolls(): number {
    const count = this.held.size;
    for (const poll of [...this.held]) {
      this.held.delete(poll);
      clearTimeout(poll.timer);
      poll.res.socket?.destroy();
    }
    return count;
  }

  /** The next `count` getUpdates that would deliver updates have their connection cut instead. */
  cutNextDeliveries(count = 1): void {
    this.pollsToCut += count;
  }

  /** As if the call confirming the updates so far never arrived (the bot died right after reading them). */
  forgetConfirmations(): void {
    this.confirmed = 0;
  }

  /** Resolves with the first call (made or to come) that matches. */
  waitForCall(test: (call: ApiCall) => boolean, timeoutMs = 20_000): Promise<ApiCall> {
    const found = this.calls.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new Error(
            `no matching Bot API call within ${timeoutMs} ms; calls: ${this.calls.map((c) => c.method).join(", ")}`,
          ),
        );
      }, timeoutMs);
      const waiter: CallWaiter = {
        test,
        resolve: (call) => {
          clearTimeout(timer);
          resolve(call);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Resolves once the bot's messages satisfy `test` (checked after every call). */
  async waitForMessages(test: (messages: BotMessage[]) => boolean, timeoutMs = 20_000): Promise<void> {
    if (test(this.world.messages)) return;
    await this.waitForCall(() => test(this.world.messages), timeoutMs);
  }

  /** Where updates are pushed while a webhook is set. */
  get webhook(): { url: string; secret?: string } | undefined {
    return this.pusher?.target;
  }

  async close(): Promise<void> {
    await this.pusher?.stop();
    this.dropHeldPolls();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private queue(update: Record<string, unknown>): Record<string, unknown> {
    const queued = { update_id: this.nextUpdateId++, ...update };
    this.updates.push(queued);
    for (const poll of [...this.held]) this.answerPoll(poll);
    this.pusher?.kick();
    return queued;
  }

  private pending(offset: number) {
    const from = Math.max(offset, this.confirmed);
    return this.updates.filter((u) => u.update_id >= from).slice(0, 100);
  }

  /** Answers a held poll if it has updates to deliver; returns whether it did. */
  private answerPoll(poll: HeldPoll): boolean {
    const updates = this.pending(poll.offset);
    if (updates.length === 0) return false;
    this.held.delete(poll);
    clearTimeout(poll.timer);
    if (this.pollsToCut > 0) {
      this.pollsToCut -= 1;
      poll.res.socket?.destroy();
      return true;
    }
    reply(poll.res, 200, { ok: true, result: updates });
    return true;
  }

  private getUpdates(params: Record<string, unknown>, res: ServerResponse): void {
    const offset = Number(params.offset ?? 0);
    // Calling with an offset confirms every update before it.
    if (offset > 0) this.confirmed = Math.max(this.confirmed, offset);
    const timeout = Math.min(Number(params.timeout ?? 0), 50);
    const poll: HeldPoll = {
      res,
      offset,
      timer: setTimeout(() => {
        this.held.delete(poll);
        reply(res, 200, { ok: true, result: [] });
      }, timeout * 1000),
    };
    // Telegram allows one poller per bot: a new getUpdates ends the one being held with 409.
    for (const other of [...this.held]) {
      this.held.delete(other);
      clearTimeout(other.timer);
      this.conflicts += 1;
      reply(other.res, 409, {
        ok: false,
        error_code: 409,
        description:
          "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      });
    }
    if (this.answerPoll(poll)) return;
    if (timeout <= 0) {
      clearTimeout(poll.timer);
      reply(res, 200, { ok: true, result: [] });
      return;
    }
    this.held.add(poll);
    // The response's close (not the request's, which fires once its body is read) tells of a
    // poller that went away, killed processes included.
    res.on("close", () => {
      if (!this.held.delete(poll)) return;
      clearTimeout(poll.timer);
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (file && req.method === "GET")
      return this.download(file[1] as string, decodeURIComponent(file[2] as string), res);
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    if (!match) return reply(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    const method = match[2] as string;
    const body = await readRequest(req);
    let parsed: ReturnType<typeof parseBody>;
    try {
      parsed = parseBody(req.headers["content-type"], body, url.searchParams);
    } catch {
      return reply(res, 400, { ok: false, error_code: 400, description: "Bad Request: can't parse request body" });
    }
    const call: ApiCall = {
      method,
      params: parsed.params,
      files: parsed.files,
      at: Date.now(),
      atHr: performance.now(),
      status: 0,
    };
    this.calls.push(call);
    try {
      if (match[1] !== this.token) throw new ApiError(401, "Unauthorized");
      if (this.missing.has(method)) throw new ApiError(404, "Not Found");
      const fault = this.faults.get(method)?.shift();
      if (fault) {
        throw new ApiError(
          fault.code,
          fault.description,
          fault.retryAfter !== undefined ? { retry_after: fault.retryAfter } : undefined,
        );
      }
      if (method === "getUpdates" && this.pusher) {
        throw new ApiError(
          409,
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        );
      }
      if (method === "setWebhook" || method === "deleteWebhook") {
        await this.setWebhook(
          method === "setWebhook" ? parsed.params : { drop_pending_updates: parsed.params.drop_pending_updates },
        );
        call.result = true;
        call.status = 200;
        reply(res, 200, { ok: true, result: true });
      } else if (method === "getUpdates") {
        call.status = 200;
        this.getUpdates(parsed.params, res);
      } else {
        call.result = this.invoke(method, parsed.params, parsed.files);
        call.status = 200;
        const lost = this.lostAnswers.indexOf(method);
        if (lost >= 0) {
          this.lostAnswers.splice(lost, 1);
          res.socket?.destroy();
        } else {
          reply(res, 200, { ok: true, result: call.result });
        }
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      call.status = error.code;
      reply(res, error.code, {
        ok: false,
        error_code: error.code,
        description: error.description,
        ...(error.parameters ? { parameters: error.parameters } : {}),
      });
    }
    this.notify(call);
  }

  private invoke(method: string, params: Record<string, unknown>, files: Record<string, UploadedFile>): unknown {
    const { world } = this;
    const drafted = invokeDraftOrRich(world, method, params);
    if (drafted !== undefined) return drafted;
    switch (method) {
      case "getMe":
        return {
          ...world.bot,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        };
      case "getWebhookInfo":
        return {
          url: this.pusher?.target.url ?? "",
          has_custom_certificate: false,
          pending_update_count: this.pending(0).length,
          ...(this.pusher?.lastError
            ? { last_error_date: Math.floor(Date.now() / 1000), last_error_message: this.pusher.lastError }
            : {}),
        };
      case "sendMessage":
        return world.send(params, files, "text");
      case "sendPhoto":
        return world.send(params, files, "photo");
      case "sendDocument":
        return world.send(params, files, "document");
      case "sendVoice":
        return world.send(params, files, "voice");
      case "sendAudio":
        return world.send(params, files, "audio");
      case "editMessageText":
        return world.editText(params);
      case "editMessageReplyMarkup":
        return world.editMarkup(params);
      case "deleteMessage":
        return world.delete(params);
      case "sendChatAction":
        world.chatOf(params);
        return true;
      case "answerCallbackQuery":
        if (!world.callbackIds.delete(String(params.callback_query_id))) {
          throw new ApiError(400, "Bad Request: query is too old and response timeout expired or query ID is invalid");
        }
        return true;
      case "getFile":
        return world.getFile(params);
      default:
        throw new ApiError(404, "Not Found");
    }
  }

  /** setWebhook with a URL starts pushing updates there; without one (deleteWebhook) it stops. */
  private async setWebhook(params: Record<string, unknown>): Promise<void> {
    await this.pusher?.stop();
    this.pusher = undefined;
    if (params.drop_pending_updates === true) this.confirmed = this.nextUpdateId;
    if (typeof params.url !== "string" || !params.url) return;
    const secret = typeof params.secret_token === "string" ? params.secret_token : undefined;
    this.pusher = new WebhookPusher(
      { url: params.url, ...(secret ? { secret } : {}) },
      () => this.pending(0)[0],
      (updateId) => {
        this.confirmed = Math.max(this.confirmed, updateId + 1);
      },
    );
    this.pusher.kick();
  }

  private download(token: string, path: string, res: ServerResponse): void {
    const file = [...this.world.files.values()].find((f) => f.path === path);
    if (token !== this.token || !file?.bytes) {
      reply(res, 404, { ok: false, error_code: 404, description: "Not Found" });
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(file.bytes.length) });
    res.end(file.bytes);
  }

  private notify(call: ApiCall): void {
    const ready = this.waiters.filter((w) => w.test(call));
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.resolve(call);
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
