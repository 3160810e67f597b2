/**
 * The platform side of the `bus` test plugin (fixtures/bus-platform): an HTTP server that hands
 * chat messages to gateway replicas, as a socket-mode platform spreads events over connections.
 * Each replica long-polls for its share; a message it has not acknowledged (stored) when it dies
 * is handed to another replica. What the replicas send comes back here, in arrival order.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface BusMessage {
  platform: "bus";
  chatId: string;
  chatType: "dm";
  userId: string;
  messageId: string;
  text: string;
}

export interface BusSend {
  replica: string;
  chatId: string;
  text: string;
}

interface Replica {
  queue: BusMessage[];
  poll: ServerResponse | undefined;
  alive: boolean;
}

export class Bus {
  readonly sent: BusSend[] = [];
  /** Message ids a replica stored, and which replica acknowledged them. */
  readonly acked = new Map<string, string>();
  private readonly replicas = new Map<string, Replica>();
  /** Unacknowledged messages, by id: the replicas they were handed to. */
  private readonly handed = new Map<string, { message: BusMessage; to: Set<string> }>();
  private readonly listeners: Array<() => void> = [];
  private readonly server = createServer((req, res) => void this.serve(req, res));
  url = "";

  async start(): Promise<void> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const replica of this.replicas.values()) replica.poll?.end("[]");
    this.server.closeAllConnections();
    this.server.close();
  }

  addReplica(name: string): void {
    this.replicas.set(name, { queue: [], poll: undefined, alive: true });
  }

  liveReplicas(): string[] {
    return [...this.replicas].filter(([, r]) => r.alive).map(([name]) => name);
  }

  /** Hands a message to one replica (again to another, to play a platform's redelivery). */
  hand(message: BusMessage, replicaName: string): void {
    const replica = this.replicas.get(replicaName);
    if (!replica?.alive) throw new Error(`no live replica ${replicaName}`);
    const entry = this.handed.get(message.messageId) ?? { message, to: new Set<string>() };
    entry.to.add(replicaName);
    if (!this.acked.has(message.messageId)) this.handed.set(message.messageId, entry);
    replica.queue.push(message);
    this.flush(replica);
  }

  /** The replica died: what it had not acknowledged goes to the live ones, round robin. */
  replicaDied(name: string): number {
    const replica = this.replicas.get(name);
    if (!replica) return 0;
    replica.alive = false;
    replica.queue = [];
    replica.poll = undefined;
    const live = this.liveReplicas();
    let moved = 0;
    for (const { message, to } of this.handed.values()) {
      if (!to.has(name) || [...to].some((other) => live.includes(other))) continue;
      this.hand(message, live[moved % live.length]!);
      moved += 1;
    }
    return moved;
  }

  /** Calls `listener` after every acknowledgement and every send. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private flush(replica: Replica): void {
    if (!replica.poll || replica.queue.length === 0) return;
    const res = replica.poll;
    replica.poll = undefined;
    res.end(JSON.stringify(replica.queue.splice(0)));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const name = url.searchParams.get("replica") ?? "";
    if (req.method === "GET" && url.pathname === "/next") {
      const replica = this.replicas.get(name);
      if (!replica?.alive) {
        res.writeHead(410).end("[]");
        return;
      }
      replica.poll?.end("[]");
      replica.poll = res;
      res.on("close", () => {
        if (replica.poll === res) replica.poll = undefined;
      });
      this.flush(replica);
      return;
    }
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as { replica: string; messageId?: string; chatId?: string; text?: string };
    if (url.pathname === "/ack" && body.messageId) {
      if (!this.acked.has(body.messageId)) this.acked.set(body.messageId, body.replica);
      this.handed.delete(body.messageId);
      res.end("{}");
    } else if (url.pathname === "/sent" && body.chatId !== undefined && body.text !== undefined) {
      this.sent.push({ replica: body.replica, chatId: body.chatId, text: body.text });
      res.end(JSON.stringify({ messageId: `bus-${this.sent.length}` }));
    } else {
      res.writeHead(404).end("{}");
      return;
    }
    for (const listener of this.listeners) listener();
  }
}
