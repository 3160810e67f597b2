/**
 * Questions an agent asks in the middle of a run (approve this command? which of these?) wait
 * here, by session key, until the chat answers with /approve, /deny or a plain message, or the
 * deadline passes. An unanswered approval is a denial.
 */
import type { ApprovalAnswer } from "../tools/registry.js";

interface Waiting<T> {
  resolve(answer: T): void;
  timer: NodeJS.Timeout | undefined;
}

export class PendingInteractions {
  private readonly approvals = new Map<string, Waiting<ApprovalAnswer>>();
  private readonly questions = new Map<string, Waiting<string>>();

  /** Waits for the session's answer to an approval prompt; "deny" after `timeoutMs`. */
  approval(sessionKey: string, timeoutMs: number): Promise<ApprovalAnswer> {
    return this.wait(this.approvals, sessionKey, timeoutMs, "deny");
  }

  /** Waits for the session's next message as the answer to a question; "" after `timeoutMs`. */
  question(sessionKey: string, timeoutMs: number): Promise<string> {
    return this.wait(this.questions, sessionKey, timeoutMs, "");
  }

  hasApproval(sessionKey: string): boolean {
    return this.approvals.has(sessionKey);
  }

  hasQuestion(sessionKey: string): boolean {
    return this.questions.has(sessionKey);
  }

  /** Answers the session's waiting approval; false when none waits. */
  answerApproval(sessionKey: string, answer: ApprovalAnswer): boolean {
    return this.settle(this.approvals, sessionKey, answer);
  }

  answerQuestion(sessionKey: string, answer: string): boolean {
    return this.settle(this.questions, sessionKey, answer);
  }

  /** Settles everything the session waits on with its "no answer" value (on /stop, /new). */
  cancel(sessionKey: string): void {
    this.settle(this.approvals, sessionKey, "deny");
    this.settle(this.questions, sessionKey, "");
  }

  cancelAll(): void {
    for (const key of [...this.approvals.keys(), ...this.questions.keys()]) this.cancel(key);
  }

  private wait<T>(map: Map<string, Waiting<T>>, key: string, timeoutMs: number, fallback: T): Promise<T> {
    // A new question replaces one still open (it can no longer be the one being answered).
    this.settle(map, key, fallback);
    return new Promise<T>((resolve) => {
      const timer = timeoutMs > 0 ? setTimeout(() => this.settle(map, key, fallback), timeoutMs) : undefined;
      timer?.unref();
      map.set(key, { resolve, timer });
    });
  }

  private settle<T>(map: Map<string, Waiting<T>>, key: string, answer: T): boolean {
    const waiting = map.get(key);
    if (!waiting) return false;
    map.delete(key);
    clearTimeout(waiting.timer);
    waiting.resolve(answer);
    return true;
  }
}
