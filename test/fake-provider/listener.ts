/**
 * One loopback port serving both HTTP/1.1 and cleartext HTTP/2 with prior knowledge (h2c).
 * The AWS SDK's Bedrock runtime client speaks HTTP/2 by default, while fetch and the OpenAI and
 * Anthropic clients speak HTTP/1.1, so each connection is routed by its first bytes.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";

/** Every HTTP/2 connection opens with this preface; no HTTP/1 request line does. */
const HTTP2_PREFACE_START = Buffer.from("PRI ");

export type RequestHandler = (
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
) => void;

export interface Listener {
  address: AddressInfo;
  /** Stops accepting connections and destroys the open ones (stalled streams included). */
  close(): Promise<void>;
}

export async function listen(handler: RequestHandler, port: number, host: string): Promise<Listener> {
  const http1 = createHttpServer(handler);
  const http2 = createHttp2Server(handler);
  const sockets = new Set<Socket>();

  const server = createNetServer((socket) => {
    sockets.add(socket);
    // Replies are many small writes; without this, delayed ACKs add ~40 ms to some requests.
    socket.setNoDelay(true);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let head = Buffer.alloc(0);
    const sniff = (data: Buffer) => {
      head = Buffer.concat([head, data]);
      if (head.length < HTTP2_PREFACE_START.length && HTTP2_PREFACE_START.subarray(0, head.length).equals(head)) return;
      socket.off("data", sniff);
      socket.pause();
      socket.unshift(head);
      if (head.subarray(0, HTTP2_PREFACE_START.length).equals(HTTP2_PREFACE_START)) {
        // The HTTP/2 session drains the socket's buffered bytes itself when it takes the handle over.
        http2.emit("connection", socket);
      } else {
        http1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", sniff);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
