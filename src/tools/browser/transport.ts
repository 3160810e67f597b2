/**
 * The two ways to reach a browser. A browser we launch speaks over `--remote-debugging-pipe`
 * (fd 3 in, fd 4 out, NUL-delimited JSON): no TCP port is opened that any other local process
 * could drive, no port has to be picked or scraped from stderr, and the browser exits when our
 * end of the pipe closes, even if this process dies without cleaning up. A browser the user
 * already runs (`browser.cdp_url`) is reached over its WebSocket, through the `ws` package,
 * imported only then.
 */
import type { Readable, Writable } from "node:stream";
import type { CdpTransport } from "./cdp.js";

/** The biggest single message accepted (a full-page screenshot is a few megabytes of base64). */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export function pipeTransport(input: Writable, output: Readable): CdpTransport {
  let onMessage: (message: string) => void = () => {};
  let onClose: (reason: string) => void = () => {};
  let chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  const end = (reason: string) => {
    if (ended) return;
    ended = true;
    onClose(reason);
  };
  output.on("data", (data: Buffer) => {
    let start = 0;
    for (let nul = data.indexOf(0); nul !== -1; nul = data.indexOf(0, start)) {
      chunks.push(data.subarray(start, nul));
      const text = Buffer.concat(chunks).toString("utf8");
      chunks = [];
      size = 0;
      start = nul + 1;
      onMessage(text);
    }
    if (start < data.length) {
      chunks.push(data.subarray(start));
      size += data.length - start;
      if (size > MAX_MESSAGE_BYTES) {
        output.destroy();
        end("the browser sent a message larger than 256 MB");
      }
    }
  });
  output.on("error", () => end("the browser's pipe failed"));
  output.on("close", () => end("the browser closed its pipe"));
  input.on("error", () => end("the browser's pipe failed"));
  return {
    send(message) {
      if (ended) throw new Error("the pipe is closed");
      input.write(`${message}\0`);
    },
    onMessage(handler) {
      onMessage = handler;
    },
    onClose(handler) {
      onClose = handler;
    },
    close() {
      input.end();
      output.destroy();
      end("the connection was closed");
    },
  };
}

export async function webSocketTransport(url: string, timeoutMs: number): Promise<CdpTransport> {
  const { WebSocket } = await import("ws");
  const socket = new WebSocket(url, {
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
    handshakeTimeout: timeoutMs,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", (error) => reject(new Error(`could not connect to ${safeUrl(url)}: ${error.message}`)));
  });
  let onClose: (reason: string) => void = () => {};
  let ended = false;
  const end = (reason: string) => {
    if (ended) return;
    ended = true;
    onClose(reason);
  };
  socket.on("close", () => end("the browser closed the connection"));
  socket.on("error", () => end("the connection to the browser failed"));
  return {
    send(message) {
      socket.send(message);
    },
    onMessage(handler) {
      socket.on("message", (data) => handler(Buffer.isBuffer(data) ? data.toString("utf8") : String(data)));
    },
    onClose(handler) {
      onClose = handler;
    },
    close() {
      socket.close();
      end("the connection was closed");
    },
  };
}

/** A URL as shown in messages: scheme, host and port only (a query string may hold a token). */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return "the configured address";
  }
}

/**
 * `browser.cdp_url` to a WebSocket URL: a ws(s):// URL is used as it is; an http(s):// one is
 * the browser's debugging endpoint, whose /json/version names the browser's WebSocket.
 */
export async function resolveCdpUrl(cdpUrl: string, timeoutMs: number): Promise<string> {
  const trimmed = cdpUrl.trim();
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    throw new Error("browser.cdp_url is not a URL: give http://host:port or a ws:// URL");
  }
  if (parsed.protocol === "ws:" || parsed.protocol === "wss:") return trimmed;
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new Error("browser.cdp_url must start with http://, https://, ws:// or wss://");
  }
  const versionUrl = new URL("/json/version", parsed);
  versionUrl.search = parsed.search;
  const response = await fetch(versionUrl, { signal: AbortSignal.timeout(timeoutMs) }).catch((error: Error) => {
    throw new Error(`could not reach the browser at ${safeUrl(trimmed)}: ${error.message}`);
  });
  if (!response.ok) throw new Error(`${safeUrl(trimmed)}/json/version answered HTTP ${response.status}`);
  const body = (await response.json().catch(() => ({}))) as { webSocketDebuggerUrl?: unknown };
  if (typeof body.webSocketDebuggerUrl !== "string" || !body.webSocketDebuggerUrl) {
    throw new Error(`${safeUrl(trimmed)}/json/version named no webSocketDebuggerUrl`);
  }
  // The browser names itself as it sees itself (often 127.0.0.1); keep the host we reached it at.
  const socketUrl = new URL(body.webSocketDebuggerUrl);
  socketUrl.protocol = parsed.protocol === "https:" ? "wss:" : "ws:";
  socketUrl.host = parsed.host;
  return socketUrl.toString();
}
