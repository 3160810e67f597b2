// The filtering proxy itself, spoken to over its Unix socket the way the relay inside the sandbox
// does: what it forwards, what it refuses and how, CONNECT tunnels, and its socket's lifetime.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { connect, createServer as createTcpServer, type Socket, type Server as TcpServer } from "node:net";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { type HostFilterProxy, startHostFilterProxy } from "../../src/tools/sandbox-proxy.js";
import { tempDir } from "../state/temp-dir.js";

const started: HostFilterProxy[] = [];
const servers: (Server | TcpServer)[] = [];
after(() => {
  for (const proxy of started) proxy.close();
  for (const server of servers) server.close();
});

function proxyFor(allowed: string[]): HostFilterProxy {
  const proxy = startHostFilterProxy(allowed);
  started.push(proxy);
  return proxy;
}

async function listening<T extends Server | TcpServer>(server: T, host = "127.0.0.1"): Promise<number> {
  servers.push(server);
  server.listen(0, host);
  await new Promise((resolve) => server.once("listening", resolve));
  return (server.address() as { port: number }).port;
}

/** A port nothing listens on: bound once, then let go. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  const port = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP server that records what reached it and answers 201 with a header of its own. */
async function recordingUpstream(): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.writeHead(201, { "x-upstream": "yes", "content-type": "text/plain" });
      res.end(`upstream answered ${req.method} ${req.url}`);
    });
  });
  return { port: await listening(server), seen };
}

/** A TCP server that answers every chunk with `echo:` and the chunk. */
async function echoServer(host = "127.0.0.1"): Promise<{ port: number; closed: Promise<void> }> {
  let closedOnce: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    closedOnce = resolve;
  });
  const server = createTcpServer((socket) => {
    socket.on("data", (chunk) => socket.write(`echo:${chunk.toString()}`));
    socket.on("error", () => {});
    socket.on("close", () => closedOnce());
  });
  return { port: await listening(server, host), closed };
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP request sent to the proxy, with `url` as the request target (absolute for a proxy). */
function viaProxy(
  proxy: HostFilterProxy,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: proxy.socketPath, path: url, method: options.method ?? "GET", headers: options.headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Raw bytes written to the proxy's socket; resolves with everything read until it closes. */
function raw(proxy: HostFilterProxy, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxy.socketPath);
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
    socket.write(text);
  });
}

/** Opens a CONNECT tunnel; `head` travels in the same write as the request. */
function openTunnel(
  proxy: HostFilterProxy,
  authority: string,
  head: string,
): { socket: Socket; next: (text: string) => Promise<string> } {
  const socket = connect(proxy.socketPath);
  let buffer = "";
  let waiter: { text: string; resolve: (all: string) => void } | undefined;
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    if (waiter && buffer.includes(waiter.text)) {
      const w = waiter;
      waiter = undefined;
      w.resolve(buffer);
    }
  });
  /** Resolves with everything received so far once `text` has arrived. */
  const next = (text: string) =>
    new Promise<string>((resolve) => {
      if (buffer.includes(text)) resolve(buffer);
      else waiter = { text, resolve };
    });
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n${head}`);
  return { socket, next };
}

test("an allowed plain-http request reaches the host with its method, path, query, body and headers", async () => {
  const upstream = await recordingUpstream();
  const proxy = proxyFor(["localhost"]);
  const reply = await viaProxy(proxy, `http://localhost:${upstream.port}/a/b?x=1&y=two`, {
    method: "POST",
    headers: {
      "x-custom": "kept",
      "proxy-connection": "keep-alive",
      "proxy-authorization": "Basic c2VjcmV0OnNlY3JldA==",
      "content-type": "text/plain",
    },
    body: "payload",
  });
  assert.equal(reply.status, 201);
  assert.equal(reply.headers["x-upstream"], "yes");
  assert.equal(reply.body, `upstream answered POST /a/b?x=1&y=two`);
  assert.equal(upstream.seen.length, 1);
  const [seen] = upstream.seen;
  assert.equal(seen!.method, "POST");
  assert.equal(seen!.url, "/a/b?x=1&y=two");
  assert.equal(seen!.body, "payload");
  assert.equal(seen!.headers["x-custom"], "kept");
  assert.equal(seen!.headers.connection, "close");
  assert.equal(seen!.headers["proxy-connection"], undefined, "the proxy's own headers stop at the proxy");
  assert.equal(seen!.headers["proxy-authorization"], undefined);
});

test("a request that is not an absolute http:// URL is refused with 400 and never forwarded", async () => {
  const upstream = await recordingUpstream();
  const proxy = proxyFor(["localhost"]);
  const relative = await viaProxy(proxy, "/a/b", { headers: { host: `localhost:${upstream.port}` } });
  assert.equal(relative.status, 400);
  assert.equal(relative.body, "sandbox proxy: expected an absolute http:// URL\n");
  assert.equal(relative.headers["content-type"], "text/plain");
  assert.equal(relative.headers.connection, "close");
  const https = await viaProxy(proxy, `https://localhost:${upstream.port}/`);
  assert.equal(https.status, 400);
  assert.equal(https.body, "sandbox proxy: use CONNECT for https\n");
  const ftp = await viaProxy(proxy, `ftp://localhost:${upstream.port}/`);
  assert.equal(ftp.status, 400);
  assert.equal(upstream.seen.length, 0);
});

test("a plain-http request to a host not allowed is refused with 403 naming the allowed hosts", async () => {
  const upstream = await recordingUpstream();
  const proxy = proxyFor(["localhost", "*.example.com"]);
  const denied = await viaProxy(proxy, `http://127.0.0.1:${upstream.port}/`);
  assert.equal(denied.status, 403);
  assert.equal(
    denied.body,
    "sandbox: 127.0.0.1 is not in sandbox.network's allowed hosts (localhost, *.example.com)\n",
  );
  assert.equal(denied.headers.connection, "close");
  const none = await viaProxy(proxyFor([]), `http://localhost:${upstream.port}/`);
  assert.equal(none.status, 403);
  assert.equal(none.body, "sandbox: localhost is not in sandbox.network's allowed hosts (none)\n");
  assert.equal(upstream.seen.length, 0);
});

test("an allowed host that does not answer comes back as 502 with the reason", async () => {
  const port = await closedPort();
  const proxy = proxyFor(["localhost"]);
  const reply = await viaProxy(proxy, `http://localhost:${port}/`);
  assert.equal(reply.status, 502);
  assert.match(reply.body, new RegExp(`^sandbox proxy: localhost:${port}: connect ECONNREFUSED`));
});

test("an upstream that closes or resets in the middle of its answer cuts the client's connection too", async () => {
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-length": "1000" });
    res.write("partial", () => (req.url === "/reset" ? res.socket?.resetAndDestroy() : res.socket?.destroy()));
  });
  const port = await listening(server);
  const proxy = proxyFor(["localhost"]);
  await assert.rejects(viaProxy(proxy, `http://localhost:${port}/close`), /aborted|socket hang up|ECONNRESET/);
  await assert.rejects(viaProxy(proxy, `http://localhost:${port}/reset`), /aborted|socket hang up|ECONNRESET/);
});

test("a CONNECT to an allowed host tunnels both ways, including bytes sent with the request", async () => {
  const echo = await echoServer();
  const proxy = proxyFor(["localhost"]);
  const tunnel = openTunnel(proxy, `localhost:${echo.port}`, "early");
  const first = await tunnel.next("echo:early");
  assert.ok(first.startsWith("HTTP/1.1 200 Connection Established\r\n\r\n"), first);
  tunnel.socket.write("later");
  assert.match(await tunnel.next("echo:later"), /echo:later$/);
  tunnel.socket.end();
  await echo.closed;
});

test("closing the client's side of a tunnel closes the upstream side", async () => {
  const echo = await echoServer();
  const proxy = proxyFor(["localhost"]);
  const tunnel = openTunnel(proxy, `localhost:${echo.port}`, "");
  await tunnel.next("Connection Established\r\n\r\n");
  tunnel.socket.destroy();
  await echo.closed;
});

test("a tunnel whose client went away while the upstream still sends is torn down, not left to crash", async () => {
  let closedOnce: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    closedOnce = resolve;
  });
  // Answers the client's goodbye by sending until the proxy hangs up on it.
  const server = createTcpServer({ allowHalfOpen: true }, (socket) => {
    socket.on("end", () => {
      const chunk = Buffer.alloc(1 << 16);
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
      };
      socket.on("drain", pump);
      pump();
    });
    socket.on("error", () => {});
    socket.on("close", () => closedOnce());
  });
  const port = await listening(server);
  const proxy = proxyFor(["localhost"]);
  const tunnel = openTunnel(proxy, `localhost:${port}`, "");
  await tunnel.next("Connection Established\r\n\r\n");
  tunnel.socket.destroy();
  await closed;
});

test("an IPv6 literal in brackets is tunnelled to that address", async () => {
  const echo = await echoServer("::1");
  const proxy = proxyFor(["::1"]);
  const tunnel = openTunnel(proxy, `[::1]:${echo.port}`, "six");
  assert.match(await tunnel.next("echo:six"), /^HTTP\/1\.1 200 Connection Established\r\n\r\necho:six$/);
  tunnel.socket.end();
});

test("a CONNECT to a host not allowed is refused with 403 and a body of the stated length", async () => {
  const echo = await echoServer();
  const proxy = proxyFor(["localhost"]);
  const answer = await raw(proxy, `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
  const [head, body] = answer.split("\r\n\r\n");
  assert.match(head!, /^HTTP\/1\.1 403 Forbidden\r\n/);
  assert.match(head!, /\r\nconnection: close$/);
  assert.equal(body, "sandbox: 127.0.0.1 is not in sandbox.network's allowed hosts (localhost)\n");
  assert.equal(head!.match(/content-length: (\d+)/)![1], String(Buffer.byteLength(body!)));
});

test("brackets inside a CONNECT host do not splice an allowed name together", async () => {
  const echo = await echoServer();
  const proxy = proxyFor(["localhost"]);
  for (const host of ["[local]host", "local[host]"]) {
    const answer = await raw(proxy, `CONNECT ${host}:${echo.port} HTTP/1.1\r\nhost: x\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 403 Forbidden\r\n/, host);
    assert.ok(answer.endsWith(`sandbox: ${host} is not in sandbox.network's allowed hosts (localhost)\n`), answer);
  }
});

test("a plain-http request to an allowed IPv6 literal is forwarded", async () => {
  const { port, seen } = await (async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url!);
      res.end("six");
    });
    return { port: await listening(server, "::1"), seen };
  })();
  const proxy = proxyFor(["::1"]);
  const reply = await viaProxy(proxy, `http://[::1]:${port}/v6`);
  assert.equal(reply.status, 200, reply.body);
  assert.equal(reply.body, "six");
  assert.deepEqual(seen, ["/v6"]);
});

test("a CONNECT target that is not host:port, or whose port is out of range, is refused with 400", async () => {
  const echo = await echoServer();
  const proxy = proxyFor(["localhost"]);
  const badRequest = "HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n";
  for (const authority of [
    "localhost",
    "localhost:",
    "localhost:0",
    "localhost:65536",
    "localhost:123456",
    `localhost:${echo.port}x`,
    `evil.example:localhost:${echo.port}`,
    `[::1]:${echo.port}:`,
    `localhost:-${echo.port}`,
  ]) {
    const answer = await raw(proxy, `CONNECT ${authority} HTTP/1.1\r\nhost: x\r\n\r\n`);
    assert.equal(answer, badRequest, authority);
  }
});

test("a CONNECT to an allowed host that does not answer gets 502", async () => {
  const port = await closedPort();
  const proxy = proxyFor(["localhost"]);
  const answer = await raw(proxy, `CONNECT localhost:${port} HTTP/1.1\r\nhost: x\r\n\r\n`);
  assert.equal(answer, "HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n");
});

test("the highest port is a valid CONNECT target", async () => {
  const proxy = proxyFor(["localhost"]);
  // Nothing listens there, so the proxy tries and reports the host unreachable, not malformed.
  const answer = await raw(proxy, "CONNECT localhost:65535 HTTP/1.1\r\nhost: x\r\n\r\n");
  assert.equal(answer, "HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n");
});

test("bytes that are not HTTP get the connection closed without an answer", async () => {
  const proxy = proxyFor(["localhost"]);
  assert.equal(await raw(proxy, "\x00\x01 not http at all\r\n\r\n"), "");
});

test("the proxy does not keep the agent's process alive, and close() removes its socket", async () => {
  const pipes = () => process.getActiveResourcesInfo().filter((name) => name === "PipeWrap").length;
  const before = pipes();
  const proxy = startHostFilterProxy(["localhost"]);
  assert.ok(existsSync(proxy.socketPath));
  assert.equal(pipes(), before, "the listening socket does not hold the event loop");
  const { port, seen } = await recordingUpstream();
  assert.equal((await viaProxy(proxy, `http://localhost:${port}/`)).status, 201);
  assert.equal(seen.length, 1);
  proxy.close();
  assert.equal(existsSync(dirname(proxy.socketPath)), false);
  await assert.rejects(viaProxy(proxy, `http://localhost:${port}/`), /ENOENT/);
});

test("close() does not fail when something already cleared the socket's directory", () => {
  const proxy = startHostFilterProxy(["localhost"]);
  // A temp cleaner may remove it while the agent runs.
  rmSync(dirname(proxy.socketPath), { recursive: true });
  proxy.close();
  assert.equal(existsSync(dirname(proxy.socketPath)), false);
});

test("close() also cuts a request still waiting for its upstream", async () => {
  let arrived: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server = createServer(() => arrived());
  const port = await listening(server);
  const proxy = startHostFilterProxy(["localhost"]);
  const pending = viaProxy(proxy, `http://localhost:${port}/`);
  await reached;
  proxy.close();
  await assert.rejects(pending, /socket hang up|ECONNRESET/);
  server.closeAllConnections();
});

test("close() also ends open CONNECT tunnels, both sides", async () => {
  const echo = await echoServer();
  const proxy = startHostFilterProxy(["localhost"]);
  const tunnel = openTunnel(proxy, `localhost:${echo.port}`, "");
  await tunnel.next("Connection Established\r\n\r\n");
  const clientClosed = new Promise<void>((resolve) => tunnel.socket.once("close", () => resolve()));
  proxy.close();
  await Promise.all([clientClosed, echo.closed]);
});

test("the socket lives in the temp dir when its path is short enough, in /tmp otherwise", () => {
  const saved = process.env.TMPDIR;
  const parent = tempDir("hermes-sbx-len-");
  const ofLength = (length: number) => {
    const dir = join(parent, "d".repeat(length - parent.length - 1));
    mkdirSync(dir);
    return dir;
  };
  const exactly60 = ofLength(60);
  const longer = ofLength(61);
  try {
    process.env.TMPDIR = exactly60;
    const near = startHostFilterProxy([]);
    near.close();
    assert.equal(dirname(dirname(near.socketPath)), exactly60);
    process.env.TMPDIR = longer;
    const far = startHostFilterProxy([]);
    far.close();
    assert.equal(dirname(dirname(far.socketPath)), "/tmp");
    assert.match(far.socketPath, /^\/tmp\/hermes-net-[^/]+\/proxy\.sock$/);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
});
