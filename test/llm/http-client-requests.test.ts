import assert from "node:assert/strict";
import { lookup } from "node:dns";
import { getEventListeners, once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect, type Socket } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { LlmError } from "../../src/llm/errors.js";
import { hostOf, httpRequest, networkError } from "../../src/llm/http-client.js";
import { closedPort, signalled, startLoggingServer } from "./http-client-helpers.js";

/** A certificate for `model.test`, signed by itself (the caller passes it as the CA). */
const cert = readFileSync(join(import.meta.dirname, "fixtures", "proxy-target.crt"));
const key = readFileSync(join(import.meta.dirname, "fixtures", "proxy-target.key"));

const isLlmError = (kind: LlmError["kind"], check: (e: LlmError) => boolean = () => true) => {
  return (error: unknown) => {
    assert.ok(error instanceof LlmError, `expected an LlmError, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    return check(error);
  };
};

describe("httpRequest request shape", () => {
  test("a request without a body is a GET with the default user agent and encodings and no content length", async () => {
    const server = await startLoggingServer((_req, res) => res.end("ok"));
    try {
      const response = await httpRequest(`${server.url}/v1/models?limit=2&after=m`);
      assert.equal(await response.text(), "ok");
      const [seen] = server.requests;
      assert.equal(seen?.method, "GET");
      assert.equal(seen?.url, "/v1/models?limit=2&after=m");
      assert.equal(seen?.headers["user-agent"], "hermes-agent");
      assert.equal(seen?.headers["accept-encoding"], "gzip, deflate, br");
      assert.equal(seen?.headers["content-length"], undefined);
      assert.equal(seen?.headers["transfer-encoding"], undefined);
    } finally {
      await server.close();
    }
  });

  test("a body without a method is POSTed with its byte length, for bytes as for text", async () => {
    const server = await startLoggingServer((_req, res) => res.end());
    try {
      const bytes = new Uint8Array([0, 1, 2, 250, 251]);
      await (await httpRequest(server.url, { body: bytes })).text();
      await (await httpRequest(server.url, { body: "€1" })).text();
      const [first, second] = server.requests;
      assert.equal(first?.method, "POST");
      assert.equal(first?.headers["content-length"], "5");
      assert.deepEqual([...(first?.body ?? [])], [...bytes]);
      assert.equal(second?.method, "POST");
      assert.equal(second?.headers["content-length"], "4");
      assert.equal(second?.body.toString(), "€1");
    } finally {
      await server.close();
    }
  });

  test("the caller's user agent, encodings and content length win over the defaults, whatever their case", async () => {
    const server = await startLoggingServer((_req, res) => res.end());
    try {
      const headers = { "User-Agent": "probe/1", "ACCEPT-ENCODING": "identity", "Content-Length": "05" };
      await (await httpRequest(server.url, { method: "PUT", headers, body: "hello" })).text();
      const [seen] = server.requests;
      assert.equal(seen?.method, "PUT");
      assert.equal(seen?.headers["user-agent"], "probe/1");
      assert.equal(seen?.headers["accept-encoding"], "identity");
      assert.equal(seen?.headers["content-length"], "05");
      assert.equal(seen?.body.toString(), "hello");
    } finally {
      await server.close();
    }
  });

  test("an IPv6 loopback URL is dialled as an address, without its brackets", async () => {
    const server = await startLoggingServer((_req, res) => res.end("v6"), "::1");
    try {
      const response = await httpRequest(`http://[::1]:${server.port}/x`);
      assert.equal(await response.text(), "v6");
      assert.equal(server.requests[0]?.headers.host, `[::1]:${server.port}`);
    } finally {
      await server.close();
    }
  });

  test("an https target is dialled with the caller's TLS options over a keep-alive connection", async () => {
    let connections = 0;
    const server = createHttpsServer({ cert, key }, (req, res) => {
      req.resume();
      req.on("end", () => res.end(`${req.method} ${req.url} ${connections}`));
    });
    server.keepAliveTimeout = 60_000;
    const sockets = new Set<Socket>();
    server.on("secureConnection", (socket: Socket) => {
      connections++;
      sockets.add(socket);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x?q=1`;
    try {
      const tls = { ca: cert, servername: "model.test" };
      assert.equal(await (await httpRequest(url, { tls, body: "{}" })).text(), "POST /v1/x?q=1 1");
      assert.equal(await (await httpRequest(url, { tls, body: "{}" })).text(), "POST /v1/x?q=1 1");
      // Without the caller's CA the self-signed certificate does not verify.
      await assert.rejects(
        httpRequest(url, { tls: { servername: "model.test" } }),
        isLlmError("network", (e) => typeof e.code === "string" && e.code.length > 0),
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });

  test("TLS options are not applied to a plain http target", async () => {
    const server = await startLoggingServer((_req, res) => res.end("plain"));
    const looked: string[] = [];
    try {
      const tls = {
        lookup: ((hostname: string, options: object, callback: () => void) => {
          looked.push(hostname);
          lookup(hostname, options, callback);
        }) as unknown as typeof lookup,
      };
      const response = await httpRequest(`http://localhost:${server.port}/`, { tls });
      assert.equal(await response.text(), "plain");
      assert.deepEqual(looked, []);
    } finally {
      await server.close();
    }
  });
});

describe("httpRequest failures", () => {
  test("a URL with another scheme is refused as a network error before anything is sent", async () => {
    await assert.rejects(
      httpRequest("ftp://127.0.0.1/file", { context: { provider: "acme" } }),
      isLlmError("network", (e) => {
        assert.equal(e.code, "ERR_INVALID_PROTOCOL");
        assert.equal(e.message, "Could not reach 127.0.0.1 (ERR_INVALID_PROTOCOL).");
        assert.equal((e.cause as Error).message, "Unsupported URL scheme ftp:");
        assert.equal(e.provider, "acme");
        return true;
      }),
    );
  });

  test("a malformed URL is a network error that quotes it", async () => {
    await assert.rejects(
      httpRequest("not a url", { context: { model: "m1" } }),
      isLlmError("network", (e) => {
        assert.equal(e.message, "Could not reach not a url (ERR_INVALID_URL).");
        assert.equal(e.code, "ERR_INVALID_URL");
        assert.equal(e.url, "not a url");
        assert.equal(e.model, "m1");
        return true;
      }),
    );
  });

  test("a refused connection names the host, the URL and the context, and leaves no abort listener", async () => {
    const port = await closedPort();
    const controller = new AbortController();
    await assert.rejects(
      httpRequest(`http://127.0.0.1:${port}/v1/chat`, {
        signal: controller.signal,
        context: { provider: "local", model: "m" },
      }),
      isLlmError("network", (e) => {
        assert.equal(e.message, `Could not reach 127.0.0.1:${port} (ECONNREFUSED).`);
        assert.equal(e.url, `http://127.0.0.1:${port}/v1/chat`);
        assert.equal(e.provider, "local");
        assert.equal(e.model, "m");
        return true;
      }),
    );
    assert.equal(getEventListeners(controller.signal, "abort").length, 0);
  });

  test("networkError returns an LlmError unchanged and words an error without a code plainly", () => {
    const original = new LlmError("already classified", { kind: "http", status: 500 });
    assert.equal(networkError(original, "http://h:1/x", { provider: "p" }), original);
    const cause = new Error("boom");
    const plain = networkError(cause, "http://h:1/x", { provider: "p" });
    assert.equal(plain.kind, "network");
    assert.equal(plain.message, "Could not reach h:1.");
    assert.equal(plain.code, undefined);
    assert.equal(plain.cause, cause);
    assert.equal(plain.url, "http://h:1/x");
    assert.equal(plain.provider, "p");
  });

  test("hostOf gives host and port of a URL and the text itself otherwise", () => {
    assert.equal(hostOf("https://api.example.test:8443/v1?x=1"), "api.example.test:8443");
    assert.equal(hostOf("http://[::1]:80/"), "[::1]");
    assert.equal(hostOf("nowhere"), "nowhere");
  });

  test("a connection reset on a fresh connection is a network error and is not retried", async () => {
    const server = await startLoggingServer((req) => req.socket.destroy());
    try {
      await assert.rejects(
        httpRequest(server.url, { body: "{}" }),
        isLlmError("network", (e) => e.code === "ECONNRESET"),
      );
      assert.equal(server.requests.length, 1);
    } finally {
      await server.close();
    }
  });

  test("a retry that lands on another dropped pooled connection fails without a third try", async () => {
    const bothArrived = signalled();
    let dropping = false;
    const server = await startLoggingServer((req, res) => {
      if (dropping) {
        req.socket.destroy();
        return;
      }
      if (server.requests.length === 2) bothArrived.resolve();
      void bothArrived.promise.then(() => res.end("ok"));
    });
    try {
      // Two requests at once leave two idle pooled connections behind.
      const pair = await Promise.all([httpRequest(server.url, { body: "a" }), httpRequest(server.url, { body: "b" })]);
      assert.deepEqual(await Promise.all(pair.map((response) => response.text())), ["ok", "ok"]);
      dropping = true;
      await assert.rejects(
        httpRequest(server.url, { body: "c", context: { provider: "acme" } }),
        isLlmError("network", (e) => {
          assert.equal(e.code, "ECONNRESET");
          assert.equal(e.message, `Could not reach 127.0.0.1:${server.port} (ECONNRESET).`);
          assert.equal((e.cause as Error).message, "socket hang up");
          assert.equal(e.provider, "acme");
          return true;
        }),
      );
      // The request went out once on each pooled connection and never on a fresh one.
      const retried = server.requests.slice(2).map((seen) => seen.socketId);
      assert.deepEqual(retried.sort(), [1, 2]);
    } finally {
      await server.close();
    }
  });
});

describe("httpRequest aborts", () => {
  test("an already aborted signal rejects before anything is sent", async () => {
    const server = await startLoggingServer((_req, res) => res.end("ok"));
    try {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(
        httpRequest(`${server.url}/aborted`, { signal: controller.signal, context: { provider: "acme" } }),
        isLlmError("abort", (e) => e.provider === "acme" && e.message === "The request was cancelled."),
      );
      await (await httpRequest(`${server.url}/next`)).text();
      assert.deepEqual(
        server.requests.map((seen) => seen.url),
        ["/next"],
      );
    } finally {
      await server.close();
    }
  });

  test("an abort right after the call wins over the connection error that follows", async () => {
    const port = await closedPort();
    const controller = new AbortController();
    const pending = httpRequest(`http://127.0.0.1:${port}/`, {
      signal: controller.signal,
      context: { model: "m2" },
    });
    controller.abort();
    await assert.rejects(
      pending,
      isLlmError("abort", (e) => e.model === "m2"),
    );
  });

  test("an abort while waiting for the response closes the connection and rejects with the context", async () => {
    const arrived = signalled();
    const server = await startLoggingServer(() => arrived.resolve());
    const controller = new AbortController();
    try {
      const pending = httpRequest(server.url, { signal: controller.signal, context: { provider: "acme" } });
      await arrived.promise;
      controller.abort();
      await assert.rejects(
        pending,
        isLlmError("abort", (e) => e.provider === "acme"),
      );
      await server.socketClosed(1);
      assert.equal(getEventListeners(controller.signal, "abort").length, 0);
    } finally {
      await server.close();
    }
  });

  test("the signal carries one abort listener while the body streams and none once it has been read", async () => {
    const go = signalled();
    const server = await startLoggingServer((_req, res) => {
      res.writeHead(200);
      res.write("a");
      void go.promise.then(() => res.end("b"));
    });
    const controller = new AbortController();
    try {
      const response = await httpRequest(server.url, { signal: controller.signal });
      assert.equal(getEventListeners(controller.signal, "abort").length, 1);
      go.resolve();
      assert.equal(await response.text(), "ab");
      assert.equal(getEventListeners(controller.signal, "abort").length, 0);
    } finally {
      await server.close();
    }
  });
});

describe("httpRequest through a proxy", () => {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const proxySocketIds = new WeakMap<Socket, number>();
  let proxySockets = 0;
  /** What the CONNECT handler does: tunnel, refuse, or hold the request without answering. */
  let connectMode: "tunnel" | "refuse" | "hold" = "tunnel";
  let connectArrived = signalled();
  const echo = (req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      res.end(
        JSON.stringify({
          method: req.method,
          host: req.headers.host,
          path: req.url,
          body: Buffer.concat(parts).toString(),
        }),
      );
    });
  };
  const target = createServer(echo);
  const secureTarget = createHttpsServer({ cert, key }, echo);
  const proxy = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} via ${proxySocketIds.get(req.socket)}`);
    const url = new URL(req.url ?? "/");
    const upstream = forward(
      {
        host: "127.0.0.1",
        port: (target.address() as AddressInfo).port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  let proxyUrl = "";

  before(async () => {
    proxy.keepAliveTimeout = 60_000;
    proxy.on("connection", (socket: Socket) => {
      proxySocketIds.set(socket, ++proxySockets);
      sockets.add(socket);
    });
    proxy.on("connect", (req: IncomingMessage, client: Socket) => {
      seen.push(`CONNECT ${req.url}`);
      sockets.add(client);
      connectArrived.resolve();
      if (connectMode === "hold") return;
      if (connectMode === "refuse") {
        client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
        return;
      }
      const upstream = connect((secureTarget.address() as AddressInfo).port, "127.0.0.1", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
    });
    for (const server of [target, secureTarget, proxy]) {
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
    }
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  after(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all([target, secureTarget, proxy].map((server) => new Promise((done) => server.close(done))));
  });

  test("http targets are sent to the proxy in absolute form over one kept-alive proxy connection", async () => {
    seen.length = 0;
    const first = await httpRequest("http://model.test/v1/chat?x=1", { body: '{"a":1}', proxy: proxyUrl });
    assert.deepEqual(await first.json(), { method: "POST", host: "model.test", path: "/v1/chat?x=1", body: '{"a":1}' });
    const second = await httpRequest("http://model.test/v1/models", { method: "GET", proxy: proxyUrl });
    assert.deepEqual(await second.json(), { method: "GET", host: "model.test", path: "/v1/models", body: "" });
    const [lines, via] = [seen.map((line) => line.split(" via ")[0]), seen.map((line) => line.split(" via ")[1])];
    assert.deepEqual(lines, ["POST http://model.test/v1/chat?x=1", "GET http://model.test/v1/models"]);
    assert.equal(via[0], via[1]);
  });

  test("https targets go through a CONNECT tunnel, with TLS to the target using the caller's options", async () => {
    seen.length = 0;
    connectMode = "tunnel";
    const response = await httpRequest("https://model.test/v1/messages?beta=1", {
      method: "PUT",
      body: "{}",
      tls: { ca: cert },
      proxy: proxyUrl,
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      method: "PUT",
      host: "model.test",
      path: "/v1/messages?beta=1",
      body: "{}",
    });
    assert.deepEqual(seen, ["CONNECT model.test:443"]);
  });

  test("a proxy that refuses the tunnel is a network error carrying EPROXY", async () => {
    connectMode = "refuse";
    await assert.rejects(
      httpRequest("https://model.test/v1/messages", { body: "{}", proxy: proxyUrl, context: { provider: "acme" } }),
      (e: unknown) =>
        e instanceof LlmError &&
        e.kind === "network" &&
        e.code === "EPROXY" &&
        e.provider === "acme" &&
        e.message === "Could not reach model.test (EPROXY).",
    );
  });

  test("an abort while the tunnel is being set up rejects with an abort error", async () => {
    connectMode = "hold";
    connectArrived = signalled();
    const controller = new AbortController();
    const pending = httpRequest("https://model.test/v1/messages", {
      body: "{}",
      proxy: proxyUrl,
      signal: controller.signal,
      context: { model: "m3" },
    });
    await connectArrived.promise;
    controller.abort();
    await assert.rejects(pending, (e: unknown) => e instanceof LlmError && e.kind === "abort" && e.model === "m3");
  });
});
