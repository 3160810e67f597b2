/**
 * A Chrome DevTools Protocol connection over one transport (the launched browser's pipe, or a
 * WebSocket to a browser already running): numbered commands, each with a time limit, answered
 * in any order, and events routed by method and session (flat session mode).
 */

export interface CdpTransport {
  send(message: string): void;
  onMessage(handler: (message: string) => void): void;
  /** Called once, when the other side goes away or `close` is called. */
  onClose(handler: (reason: string) => void): void;
  close(): void;
}

export class CdpError extends Error {}
/** A command the browser did not answer within its time limit. */
export class CdpTimeoutError extends CdpError {}
/** The connection is gone: the browser exited, crashed or closed the socket. */
export class CdpClosedError extends CdpError {}

export type CdpParams = Record<string, unknown>;
export type EventHandler = (params: CdpParams, sessionId: string | undefined) => void;

export interface SendOptions {
  sessionId?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Pending {
  method: string;
  resolve: (value: CdpParams) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  abort?: () => void;
}

interface Incoming {
  id?: number;
  method?: string;
  params?: CdpParams;
  result?: CdpParams;
  error?: { message?: string; code?: number; data?: string };
  sessionId?: string;
}

export class CdpConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<EventHandler>>();
  private readonly closeHandlers = new Set<(reason: string) => void>();
  /** Why the connection ended, once it has. */
  closedReason: string | null = null;

  constructor(
    private readonly transport: CdpTransport,
    private readonly defaultTimeoutMs: number,
  ) {
    transport.onMessage((text) => this.receive(text));
    transport.onClose((reason) => this.closed(reason));
  }

  send(method: string, params: CdpParams = {}, options: SendOptions = {}): Promise<CdpParams> {
    if (this.closedReason) return Promise.reject(new CdpClosedError(this.closedReason));
    if (options.signal?.aborted) return Promise.reject(new CdpError("interrupted"));
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    return new Promise<CdpParams>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(id);
        reject(new CdpTimeoutError(`${method} got no answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const entry: Pending = { method, resolve, reject, timer };
      if (options.signal) {
        const signal = options.signal;
        const onAbort = () => {
          this.settle(id);
          reject(new CdpError("interrupted"));
        };
        signal.addEventListener("abort", onAbort, { once: true });
        entry.abort = () => signal.removeEventListener("abort", onAbort);
      }
      this.pending.set(id, entry);
      const message: Record<string, unknown> = { id, method, params };
      if (options.sessionId) message.sessionId = options.sessionId;
      try {
        this.transport.send(JSON.stringify(message));
      } catch (error) {
        this.settle(id);
        reject(new CdpClosedError(`could not send ${method}: ${(error as Error).message}`));
      }
    });
  }

  /** Listen to an event (`Page.loadEventFired`); returns the function that stops listening. */
  on(method: string, handler: EventHandler): () => void {
    let set = this.listeners.get(method);
    if (!set) {
      set = new Set();
      this.listeners.set(method, set);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  onClose(handler: (reason: string) => void): () => void {
    if (this.closedReason) {
      handler(this.closedReason);
      return () => {};
    }
    this.closeHandlers.add(handler);
    return () => this.closeHandlers.delete(handler);
  }

  close(): void {
    this.transport.close();
    this.closed("the connection was closed");
  }

  private settle(id: number): Pending | undefined {
    const entry = this.pending.get(id);
    if (!entry) return undefined;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.abort?.();
    return entry;
  }

  private receive(text: string): void {
    let message: Incoming;
    try {
      message = JSON.parse(text) as Incoming;
    } catch {
      return;
    }
    if (typeof message.id === "number") {
      const entry = this.settle(message.id);
      if (!entry) return;
      if (message.error) {
        const detail = message.error.data ? ` (${message.error.data})` : "";
        entry.reject(new CdpError(`${entry.method}: ${message.error.message ?? "failed"}${detail}`));
      } else {
        entry.resolve(message.result ?? {});
      }
      return;
    }
    if (!message.method) return;
    for (const handler of [...(this.listeners.get(message.method) ?? [])]) {
      try {
        handler(message.params ?? {}, message.sessionId);
      } catch {
        // One listener's bug must not stop the others or the connection.
      }
    }
  }

  private closed(reason: string): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    for (const id of [...this.pending.keys()]) {
      const entry = this.settle(id);
      entry?.reject(new CdpClosedError(reason));
    }
    for (const handler of [...this.closeHandlers]) handler(reason);
    this.closeHandlers.clear();
  }
}
