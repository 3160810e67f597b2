/**
 * Gives a session a title after its first exchange, unless it has one (set with /title or
 * `hermes sessions rename`). The TUI asks the auxiliary `title` model in the background; a
 * one-shot run, which should not wait for a second model call, and any failure use the first
 * message instead (`fallbackTitle`).
 */
import type { TitleFn } from "../agent/session-title.js";
import type { SessionStore } from "../state/session-store.js";
import { fallbackTitle } from "../state/titles.js";
import { redactSecrets } from "../util/redact.js";

export class SessionTitler {
  private pending: Promise<void> | undefined;
  private readonly stop = new AbortController();

  constructor(private readonly generate?: TitleFn) {}

  /** Titles `sessionId` from this exchange if it still has no title; runs in the background. */
  afterTurn(store: SessionStore, sessionId: string, userText: string, reply: string): void {
    if (this.pending || this.stop.signal.aborted) return;
    this.pending = this.title(store, sessionId, userText, reply)
      .catch(() => {})
      .finally(() => {
        this.pending = undefined;
      });
  }

  /** Resolves when no title is being written. */
  settled(): Promise<void> {
    return this.pending ?? Promise.resolve();
  }

  /** Stops waiting for the model (the title falls back to the first message) and waits for the write. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.settled();
  }

  private async title(store: SessionStore, sessionId: string, userText: string, reply: string): Promise<void> {
    const untitled = async () => {
      const session = await store.getSession(sessionId);
      return session !== null && !session.title;
    };
    if (!userText.trim() || !(await untitled())) return;
    let title = fallbackTitle(userText);
    if (this.generate && !this.stop.signal.aborted) {
      try {
        title = await this.generate(userText, reply, this.stop.signal);
      } catch {
        // The first message stands in.
      }
    }
    // Someone may have named the session while the model was thinking. Titles are shown in
    // every session list, so a key pasted into the first message must not end up there.
    if (await untitled()) await store.rename(sessionId, redactSecrets(title));
  }
}
