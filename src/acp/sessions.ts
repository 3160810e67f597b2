/**
 * The sessions of one connection: created, loaded from the store (after a restart too),
 * resumed, forked, listed and closed. Sessions are kept in memory up to a bound; one that was
 * dropped comes back from the store the next time the editor names it.
 */

import { isAbsolute } from "node:path";
import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import {
  type ClientCapabilities,
  type McpServer,
  RequestError,
  type SessionInfo,
} from "@agentclientprotocol/sdk/unstable";
import type { HermesRuntime } from "../runtime/runtime.js";
import { sessionIdNew } from "../state/titles.js";
import { isDirectory } from "../util/fs-kind.js";
import { log } from "../util/log.js";
import { ClientBridge } from "./client-bridge.js";
import { DEFAULT_MODE, isModeId, type ModeId } from "./modes.js";
import { replayUpdates } from "./replay.js";
import { AcpSession } from "./session.js";
import { SessionIndex } from "./session-index.js";
import { SessionMcpError, startSessionMcp } from "./session-mcp.js";

const MAX_LIVE_SESSIONS = 32;
const LIST_PAGE = 50;
const MAX_PATH_CHARS = 4096;
const SESSION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export function checkedCwd(cwd: unknown): string {
  if (typeof cwd !== "string" || !isAbsolute(cwd) || cwd.length > MAX_PATH_CHARS || cwd.includes("\0")) {
    throw RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  }
  if (!isDirectory(cwd)) throw RequestError.invalidParams({ cwd }, "cwd is not an existing directory");
  return cwd;
}

function checkedSessionId(id: unknown): string {
  if (typeof id !== "string" || !SESSION_ID.test(id))
    throw RequestError.invalidParams({ sessionId: id }, "bad session id");
  return id;
}

export class SessionRegistry {
  private readonly live = new Map<string, AcpSession>();
  readonly index: SessionIndex;
  private models: string[];

  constructor(
    private readonly runtime: HermesRuntime,
    private readonly client: AgentContext,
    private readonly capabilities: () => ClientCapabilities,
    models: string[],
  ) {
    this.index = new SessionIndex(runtime.home);
    this.models = models;
  }

  setModels(models: string[]): void {
    this.models = models;
  }

  modelChoices(): string[] {
    return this.models.includes(this.runtime.model) ? this.models : [this.runtime.model, ...this.models];
  }

  async create(cwd: unknown, mcpServers: readonly McpServer[] | undefined): Promise<AcpSession> {
    const id = sessionIdNew();
    return this.open(
      id,
      { cwd: checkedCwd(cwd), storeId: id, mode: DEFAULT_MODE, model: this.runtime.model },
      mcpServers,
    );
  }

  /** A stored session, live again; with `replay`, its transcript is streamed to the editor first. */
  async load(
    rawId: unknown,
    cwd: unknown,
    mcpServers: readonly McpServer[] | undefined,
    replay: boolean,
  ): Promise<AcpSession> {
    const id = checkedSessionId(rawId);
    const where = checkedCwd(cwd);
    await this.live.get(id)?.close();
    this.live.delete(id);
    const indexed = this.index.get(id);
    const storeId = indexed?.storeId ?? id;
    if (!indexed && !(await this.runtime.store.getSession(id))) throw RequestError.sessionNotFound(id);
    const session = await this.open(
      id,
      {
        cwd: where,
        storeId,
        mode: isModeId(indexed?.mode) ? indexed.mode : DEFAULT_MODE,
        model: indexed && this.modelChoices().includes(indexed.model) ? indexed.model : this.runtime.model,
      },
      mcpServers,
    );
    if (replay) {
      const messages = await this.runtime.store.getMessages(storeId);
      for (const update of replayUpdates(messages, where)) void session.bridge.send(update);
      await session.bridge.flush();
    }
    return session;
  }

  /** A new session that starts with a copy of another's transcript. */
  async fork(rawId: unknown, cwd: unknown, mcpServers: readonly McpServer[] | undefined): Promise<AcpSession> {
    const sourceId = checkedSessionId(rawId);
    const where = checkedCwd(cwd);
    const source = this.live.get(sourceId);
    const indexed = this.index.get(sourceId);
    const sourceStore = source?.storeId ?? indexed?.storeId ?? sourceId;
    const record = await this.runtime.store.getSession(sourceStore);
    if (!record && !source && !indexed) throw RequestError.sessionNotFound(sourceId);
    const id = sessionIdNew();
    if (record) {
      await this.runtime.store.createSession({
        id,
        source: "acp",
        model: record.model,
        title: record.title ? `${record.title} (fork)` : null,
        parentSessionId: record.id,
        systemPrompt: record.systemPrompt,
      });
      const messages = (await this.runtime.store.getMessages(sourceStore)).filter((m) => m.role !== "system");
      await this.runtime.store.appendMessages(id, messages);
    }
    return this.open(
      id,
      {
        cwd: where,
        storeId: id,
        mode: source?.mode ?? (isModeId(indexed?.mode) ? indexed.mode : DEFAULT_MODE),
        model: source?.model ?? this.runtime.model,
      },
      mcpServers,
    );
  }

  /** The live session, or a stored one brought back (it was dropped from memory or the process restarted). */
  async get(rawId: unknown): Promise<AcpSession> {
    const id = checkedSessionId(rawId);
    const live = this.live.get(id);
    if (live) {
      this.live.delete(id);
      this.live.set(id, live);
      return live;
    }
    const indexed = this.index.get(id);
    if (!indexed) throw RequestError.sessionNotFound(id);
    return this.load(id, indexed.cwd, [], false);
  }

  async list(cwd: unknown, cursor: unknown): Promise<{ sessions: SessionInfo[]; nextCursor?: string }> {
    // Only compared with stored values, never used as a path.
    const wanted = typeof cwd === "string" && cwd ? cwd : undefined;
    const offset = typeof cursor === "string" && /^\d{1,7}$/.test(cursor) ? Number(cursor) : 0;
    const stored = await this.runtime.store.listSessions({ source: "acp", limit: 5000 });
    const byStoreId = new Map(stored.map((s) => [s.id, s]));
    const sessions: SessionInfo[] = [];
    for (const id of this.index.ids().reverse()) {
      const entry = this.index.get(id)!;
      if (wanted && entry.cwd !== wanted) continue;
      const record = byStoreId.get(entry.storeId) ?? byStoreId.get(id);
      if (!record && !this.live.has(id)) continue;
      sessions.push({
        sessionId: id,
        cwd: entry.cwd,
        title: record?.title ?? record?.preview?.slice(0, 80) ?? null,
        updatedAt: new Date(record?.lastActive ?? entry.updatedAt).toISOString(),
      });
    }
    const page = sessions.slice(offset, offset + LIST_PAGE);
    const next = offset + LIST_PAGE < sessions.length ? String(offset + LIST_PAGE) : undefined;
    return { sessions: page, ...(next ? { nextCursor: next } : {}) };
  }

  async close(rawId: unknown): Promise<void> {
    const id = checkedSessionId(rawId);
    const session = this.live.get(id);
    this.live.delete(id);
    await session?.close();
  }

  /** The live session, for notifications that must not bring one back (cancel). */
  liveSession(id: unknown): AcpSession | undefined {
    return typeof id === "string" ? this.live.get(id) : undefined;
  }

  async closeAll(): Promise<void> {
    const sessions = [...this.live.values()];
    this.live.clear();
    await Promise.all(sessions.map((session) => session.close()));
  }

  private async open(
    id: string,
    setup: { cwd: string; storeId: string; mode: ModeId; model: string },
    mcpServers: readonly McpServer[] | undefined,
  ): Promise<AcpSession> {
    let mcp: Awaited<ReturnType<typeof startSessionMcp>>;
    try {
      mcp = await startSessionMcp(id, mcpServers ?? [], this.runtime.registry, setup.cwd);
    } catch (error) {
      if (error instanceof SessionMcpError || error instanceof TypeError) {
        throw RequestError.invalidParams({ mcpServers: "rejected" }, error.message);
      }
      throw error;
    }
    const bridge = new ClientBridge(this.client, this.capabilities(), id);
    const session = new AcpSession({ id, ...setup, mcp }, bridge, {
      runtime: this.runtime,
      index: this.index,
      models: () => this.modelChoices(),
    });
    this.live.set(id, session);
    await this.evictIdle();
    log("info", "acp", "session open", { session: id, store: setup.storeId, mcp: mcp?.toolsets.length ?? 0 });
    return session;
  }

  private async evictIdle(): Promise<void> {
    for (const [id, session] of this.live) {
      if (this.live.size <= MAX_LIVE_SESSIONS) return;
      if (session.running) continue;
      this.live.delete(id);
      await session.close();
    }
  }
}
