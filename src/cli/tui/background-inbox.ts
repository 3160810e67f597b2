/**
 * Background subagent results in an interactive session: a notice line when one finishes, then
 * a turn for the agent carrying it, at once when the agent is idle, else right after the turn
 * in progress (the user's queued messages go first). After /stop, results wait for the user's
 * next message instead of starting a turn on their own.
 */
import {
  type BackgroundDelegations,
  type BackgroundResult,
  backgroundResultNotice,
  backgroundResultsMessage,
} from "../../agent/delegation.js";

export interface InboxHost {
  print(text: string): void;
  /** A turn is running or queued turns are draining. */
  busy(): boolean;
  closed(): boolean;
  /** Runs a turn with this text now (the session is idle). */
  start(text: string): void;
}

export class BackgroundInbox {
  private readonly waiting: BackgroundResult[] = [];
  /** What the transcript shows for each result turn in place of its full text. */
  private readonly labels = new Map<string, string>();
  private detach: () => void = () => {};

  constructor(private readonly host: InboxHost) {}

  /** Receive the results of `registry` (the session's runtime; replaced when the session is rebuilt). */
  attach(registry: BackgroundDelegations): void {
    this.detach();
    // One runtime serves one terminal session, so every result of it is this session's.
    this.detach = registry.attach({ accepts: () => true, deliver: (result) => this.arrive(result) });
  }

  /** The waiting results as one turn's text, or undefined when none wait. */
  take(): string | undefined {
    if (this.waiting.length === 0) return undefined;
    const results = this.waiting.splice(0);
    const text = backgroundResultsMessage(results);
    const ids = results.map((result) => result.id).join(", ");
    this.labels.set(text, `⇠ result${results.length === 1 ? "" : "s"} of background subagent ${ids}`);
    return text;
  }

  /** After /stop: leave the results waiting and say where they go. */
  hold(): undefined {
    const count = this.waiting.length;
    if (count > 0) {
      const what =
        count === 1
          ? "1 background subagent result waits: it goes"
          : `${count} background subagent results wait: they go`;
      this.host.print(`${what} to the agent after your next message.`);
    }
    return undefined;
  }

  /** The line the transcript shows for a turn's text (a result turn gets a short one). */
  label(text: string): string {
    const label = this.labels.get(text);
    if (label === undefined) return text;
    this.labels.delete(text);
    return label;
  }

  close(): void {
    this.detach();
    this.detach = () => {};
  }

  private arrive(result: BackgroundResult): void {
    if (this.host.closed()) return;
    this.host.print(backgroundResultNotice(result));
    this.waiting.push(result);
    if (this.host.busy()) return;
    const text = this.take();
    if (text) this.host.start(text);
  }
}
