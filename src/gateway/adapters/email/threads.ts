/**
 * What a reply into a conversation needs to know (whom to write, the subject, which mail it
 * answers), by chat id. Kept in a small file in $HERMES_HOME so replies and scheduled messages
 * still reach the right thread after a restart.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ThreadState {
  /** The correspondent (the address replies go to). */
  to: string;
  subject: string;
  /** The latest mail in the conversation, in either direction: what the next mail answers. */
  lastMessageId: string;
  /** References of the latest mail, its own id included. */
  references: string[];
  updatedAt: number;
}

interface StoredBook {
  threads: Record<string, ThreadState>;
  /** Message-IDs of mail we sent to a bare address, and the chat they belong to. */
  started: Record<string, string>;
  /** Mail the gateway has answered (oldest first): seen again after a restart, it is only marked seen. */
  answered: string[];
}

const MAX_THREADS = 1000;
const MAX_ANSWERED = 5000;

export class ThreadBook {
  private book: StoredBook = { threads: {}, started: {}, answered: [] };
  private answeredSet = new Set<string>();
  private readonly path: string;

  constructor(home: string) {
    this.path = join(home, "email-threads.json");
    try {
      const parsed = JSON.parse(readFileSync(this.path, "utf8")) as Partial<StoredBook>;
      if (parsed && typeof parsed.threads === "object" && parsed.threads) {
        this.book = { threads: parsed.threads, started: parsed.started ?? {}, answered: parsed.answered ?? [] };
        this.answeredSet = new Set(this.book.answered);
      }
    } catch {
      // No file yet (or an unreadable one): conversations are learnt again from incoming mail.
    }
  }

  get(chatId: string): ThreadState | undefined {
    return this.book.threads[chatId];
  }

  /** The chat a conversation root belongs to: the address we first wrote to, or the root itself. */
  chatFor(threadRoot: string): string {
    return this.book.started[threadRoot] ?? threadRoot;
  }

  update(chatId: string, state: Omit<ThreadState, "updatedAt">): void {
    this.book.threads[chatId] = { ...state, updatedAt: Date.now() };
    this.save();
  }

  /** A mail we started to a bare address: replies to it continue that address's chat. */
  started(messageId: string, chatId: string): void {
    this.book.started[messageId] = chatId;
    this.save();
  }

  wasAnswered(messageId: string): boolean {
    return this.answeredSet.has(messageId);
  }

  answered(messageIds: string[]): void {
    const fresh = messageIds.filter((id) => !this.answeredSet.has(id));
    if (fresh.length === 0) return;
    this.book.answered.push(...fresh);
    if (this.book.answered.length > MAX_ANSWERED) this.book.answered = this.book.answered.slice(-MAX_ANSWERED);
    this.answeredSet = new Set(this.book.answered);
    this.save();
  }

  private save(): void {
    const entries = Object.entries(this.book.threads);
    if (entries.length > MAX_THREADS) {
      entries.sort(([, a], [, b]) => b.updatedAt - a.updatedAt);
      this.book.threads = Object.fromEntries(entries.slice(0, MAX_THREADS));
    }
    const started = Object.entries(this.book.started);
    if (started.length > MAX_THREADS) this.book.started = Object.fromEntries(started.slice(-MAX_THREADS));
    const temp = `${this.path}.tmp`;
    writeFileSync(temp, JSON.stringify(this.book), { mode: 0o600 });
    renameSync(temp, this.path);
  }
}
