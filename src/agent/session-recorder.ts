/**
 * Persists a session as it happens: the session row when the system prompt is first known,
 * then each message the moment it is final, so a killed process loses at most the message
 * in flight. Without a store every method is a no-op.
 */
import type { Message, Usage } from "../llm/types.js";
import type { SessionStore } from "../state/session-store.js";

export class SessionRecorder {
  private started = false;
  private warned = false;

  constructor(
    private readonly store: SessionStore | undefined,
    private readonly sessionId: string,
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
    } else if (!existing.systemPrompt) {
      await this.store.updateSession(this.sessionId, { systemPrompt });
    }
  }

  async append(message: Message): Promise<void> {
    if (!this.store || !this.started) return;
    try {
      await this.store.appendMessage(this.sessionId, message);
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        process.stderr.write(`hermes: could not save a message to the session store: ${(error as Error).message}\n`);
      }
    }
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
      await this.store.updateSession(this.sessionId, { model });
    } catch {
      // Usage counters are informative; the messages themselves are already saved.
    }
  }
}
