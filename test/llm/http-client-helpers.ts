/** Loopback servers for the HTTP client tests: they number connections and log what arrived. */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  socketId: number;
}

export type LoggedHandler = (req: IncomingMessage, res: ServerResponse, seen: SeenRequest) => void;

export interface LoggingServer {
  url: string;
  port: number;
  server: Server;
  /** Every request, in arrival order, once its body has been read. */
  requests: SeenRequest[];
  /** Resolves when the server side of connection `id` (1-based) has closed. */
  socketClosed(id: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a loopback server that reads each request body before calling `handler`. */
export async function startLoggingServer(handler: LoggedHandler, host = "127.0.0.1"): Promise<LoggingServer> {
  const ids = new WeakMap<Socket, number>();
  const sockets: Socket[] = [];
  const closed: Array<Promise<void>> = [];
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const seen: SeenRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(parts),
        socketId: ids.get(req.socket) ?? -1,
      };
      requests.push(seen);
      handler(req, res, seen);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket: Socket) => {
    sockets.push(socket);
    ids.set(socket, sockets.length);
    closed.push(once(socket, "close").then(() => undefined));
  });
  server.listen(0, host);
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    server,
    requests,
    socketClosed: (id) => closed[id - 1] ?? Promise.reject(new Error(`no connection ${id}`)),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

/** A port nothing listens on (it was bound and released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

/** A promise with its resolver, for handing a go-ahead between the test and a server handler. */
export function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
