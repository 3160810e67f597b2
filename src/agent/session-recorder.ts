/**
 * Persists a session as it happens: the session row when the system prompt is first known,
 * then each message the moment it is final, so a killed process loses at most the message
 * in flight. A compression either compacts the stored conversation in place (what it condensed
 * stays archived in the session) or continues it in a child session linked to its parent, which
 * keeps the full transcript. Without a store every method is a no-op.
 */
import type { Message, Usage } from "../llm/types.js";
import type { SessionStore } from "../state/session-store.js";

export class SessionRecorder {
  private started = false;
  private warned = false;
  /** The model the stored session names, so usage records rewrite it only when it changes. */
  private storedModel: string | null = null;

  constructor(
    private readonly store: SessionStore | undefined,
    private sessionId: string,
    private readonly source: string,
  ) {}

  async storedSystemPrompt(): Promise<string | undefined> {
    const session = await this.store?.getSession(this.sessionId);
    return session?.systemPrompt ?? undefined;
  }

  async loadHistory(): Promise<Message[]> {
    if (!this.store || !(await this.store.getSession(this.sessionId))) return [];
    const stored = await this.store.getMessages(this.sessionId);
    return stored.filter((m) => m.role !== "system");
  }

  async start(systemPrompt: string, model: string): Promise<void> {
    if (!this.store || this.started) return;
    this.started = true;
    const existing = await this.store.getSession(this.sessionId);
    if (!existing) {
      await this.store.createSession({ id: this.sessionId, source: this.source, model, systemPrompt });
      this.storedModel = model;
    } else {
      this.storedModel = existing.model;
      if (!existing.systemPrompt) await this.store.updateSession(this.sessionId, { systemPrompt });
    }
  }

  /**
   * Ends the current session and continues in `childId`, a session linked to it as its
   * parent, holding the given system prompt and the messages that remain after compression.
   */
  async continueAs(childId: string, systemPrompt: string, model: string, messages: readonly Message[]): Promise<void> {
    const parentId = this.sessionId;
    this.sessionId = childId;
    if (!this.store) return;
    await this.guard(async () => {
      if (this.started) await this.store?.updateSession(parentId, { endedAt: Date.now() });
      await this.store?.createSession({
        id: childId,
        source: this.source,
        model,
        systemPrompt,
        parentSessionId: this.started ? parentId : null,
      });
      this.storedModel = model;
      this.started = true;
      if (messages.length > 0) await this.store?.appendMessages(childId, messages);
    });
  }

  /** The stored conversation becomes `messages` under the same id; what it held before is archived. */
  async compactInPlace(systemPrompt: string, model: string, messages: readonly Message[]): Promise<void> {
    if (!this.store) return;
    if (!this.started) {
      await this.start(systemPrompt, model);
      if (messages.length > 0)
        await this.guard(() => this.store!.appendMessages(this.sessionId, messages).then(() => {}));
      return;
    }
    await this.guard(() => this.store!.compactInPlace(this.sessionId, systemPrompt, messages));
  }

  /**
   * Makes the stored transcript equal `history` (a history the caller supplied, e.g. after
   * /undo): the common beginning stays, the rest is replaced.
   */
  async syncHistory(history: readonly Message[]): Promise<void> {
    if (!this.store || !this.started) return;
    const store = this.store;
    await this.guard(async () => {
      const stored = (await store.getMessages(this.sessionId)).filter((m) => m.role !== "system");
      let same = 0;
      while (same < stored.length && same < history.length && sameMessage(stored[same]!, history[same]!)) same++;
      if (same < stored.length) await store.truncateMessages(this.sessionId, same);
      if (same < history.length) await store.appendMessages(this.sessionId, history.slice(same));
    });
  }

  async append(message: Message): Promise<void> {
    if (!this.store || !this.started) return;
    await this.guard(() => this.store!.appendMessage(this.sessionId, message).then(() => {}));
  }

  async recordUsage(usage: Usage, model: string): Promise<void> {
    if (!this.store || !this.started) return;
    try {
      await this.store.recordUsage(this.sessionId, {
        promptTokens: usage.inputTokens,
        completionTokens: usage.outputTokens,
        cacheReadTokens: usage.cacheReadTokens,
        cacheWriteTokens: usage.cacheWriteTokens,
        totalTokens: usage.inputTokens + usage.outputTokens,
      });
      if (model !== this.storedModel) {
        await this.store.updateSession(this.sessionId, { model });
        this.storedModel = model;
      }
    } catch {
      // Usage counters are informative; the messages themselves are already saved.
    }
  }

  private async guard(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        process.stderr.write(`hermes: could not save to the session store: ${(error as Error).message}\n`);
      }
    }
  }
}

function sameMessage(a: Message, b: Message): boolean {
  const shape = (m: Message) =>
    JSON.stringify([m.role, m.content ?? null, m.tool_calls ?? null, m.tool_call_id ?? null]);
  return shape(a) === shape(b);
}
