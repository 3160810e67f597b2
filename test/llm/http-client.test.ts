import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { describe, test } from "node:test";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { LlmError } from "../../src/llm/errors.js";
import { httpRequest } from "../../src/llm/http-client.js";
import { readSse } from "../../src/llm/sse.js";
import { signal } from "./transport-helpers.js";

type Handler = (req: IncomingMessage, res: ServerResponse, socketId: number) => void;

/** A loopback server that numbers its connections, so tests can tell reuse from a new socket. */
async function startCountingServer(
  handler: Handler,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const ids = new WeakMap<Socket, number>();
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => handler(req, res, ids.get(req.socket) ?? -1));
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket) => {
    ids.set(socket, sockets.size + 1);
    sockets.add(socket);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

describe("httpRequest", () => {
  test("resolves with status and lower-cased headers, then streams the body as it arrives", async () => {
    let sendRest!: () => void;
    const firstArrived = new Promise<void>((resolve) => {
      sendRest = resolve;
    });
    const server = await startCountingServer((_req, res) => {
      res.setHeader("X-Request-Id", "r-1");
      res.setHeader("Vary", ["accept", "origin"]);
      res.writeHead(201, "Created Here", { "content-type": "text/plain" });
      res.write("first;");
      void firstArrived.then(() => res.end("second"));
    });
    try {
      const response = await httpRequest(`${server.url}/x`, { method: "POST", body: "{}", signal: signal() });
      assert.equal(response.status, 201);
      assert.equal(response.statusText, "Created Here");
      assert.equal(response.headers["x-request-id"], "r-1");
      assert.equal(response.headers.vary, "accept, origin");
      const parts: string[] = [];
      for await (const chunk of response.body) {
        parts.push(Buffer.from(chunk).toString());
        if (parts.length === 1) sendRest(); // the rest is only sent once the first part was read
      }
      assert.deepEqual(parts, ["first;", "second"]);
    } finally {
      await server.close();
    }
  });

  test("sends the method, headers and body, with a content length", async () => {
    let seen: { method?: string; headers: IncomingMessage["headers"] } | undefined;
    let body = "";
    const server = createServer((req, res) => {
      seen = { method: req.method, headers: req.headers };
      req.on("data", (part: Buffer) => {
        body += part.toString();
      });
      req.on("end", () => res.end("ok"));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x?a=1`;
      const response = await httpRequest(url, { method: "PUT", headers: { "X-Title": "Hermes" }, body: "héllo" });
      assert.equal(await response.text(), "ok");
      assert.equal(seen?.method, "PUT");
      assert.equal(seen?.headers["x-title"], "Hermes");
      assert.equal(seen?.headers["content-length"], String(Buffer.byteLength("héllo")));
      assert.equal(seen?.headers["accept-encoding"], "gzip, deflate, br");
      assert.equal(body, "héllo");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test("an abort mid-body rejects the read at once with an abort error and closes the connection", async () => {
    let closed!: Promise<unknown>;
    const server = await startCountingServer((_req, res) => {
      closed = once(res, "close");
      res.writeHead(200);
      res.write("partial");
    });
    const controller = new AbortController();
    try {
      const response = await httpRequest(server.url, { signal: controller.signal, context: { provider: "acme" } });
      const chunks = response.body[Symbol.asyncIterator]();
      assert.equal(Buffer.from((await chunks.next()).value).toString(), "partial");
      const pending = chunks.next();
      controller.abort();
      await assert.rejects(
        pending,
        (e: LlmError) => e instanceof LlmError && e.kind === "abort" && e.provider === "acme",
      );
      await closed;
    } finally {
      await server.close();
    }
  });

  test("an abort before the response arrives rejects with an abort error", async () => {
    const server = await startCountingServer(() => {});
    const controller = new AbortController();
    try {
      const pending = httpRequest(server.url, { signal: controller.signal });
      setImmediate(() => controller.abort());
      await assert.rejects(pending, (e: LlmError) => e.kind === "abort");
    } finally {
      await server.close();
    }
  });

  test("a refused connection is a network error carrying ECONNREFUSED", async () => {
    const port = await freePort();
    await assert.rejects(
      httpRequest(`http://127.0.0.1:${port}/v1/models`, { context: { provider: "local", model: "m" } }),
      (e: LlmError) =>
        e instanceof LlmError &&
        e.kind === "network" &&
        e.code === "ECONNREFUSED" &&
        e.provider === "local" &&
        e.message.includes(`127.0.0.1:${port}`),
    );
  });

  test("gzip, deflate and br bodies are decoded, whatever the case of the coding's name", async () => {
    const json = JSON.stringify({ error: { message: "x".repeat(2000) } });
    const encoders: Record<string, (data: Buffer) => Buffer> = {
      gzip: gzipSync,
      deflate: deflateSync,
      br: brotliCompressSync,
    };
    const server = await startCountingServer((req, res) => {
      const encoding = String(req.headers["x-want"]);
      res.writeHead(200, { "content-encoding": encoding, "content-type": "application/json" });
      res.end(encoders[encoding.toLowerCase()]!(Buffer.from(json)));
    });
    try {
      // Content codings are case-insensitive: a server may well send GZIP.
      for (const encoding of [...Object.keys(encoders), "GZIP", "Br"]) {
        const response = await httpRequest(server.url, { headers: { "x-want": encoding } });
        assert.equal(response.headers["content-encoding"], encoding);
        assert.deepEqual(await response.json(), JSON.parse(json), encoding);
      }
    } finally {
      await server.close();
    }
  });

  test("two requests in a row share one keep-alive connection", async () => {
    const server = await startCountingServer((_req, res, socketId) => res.end(String(socketId)));
    try {
      const first = await (await httpRequest(server.url, { method: "POST", body: "{}" })).text();
      const second = await (await httpRequest(server.url, { method: "POST", body: "{}" })).text();
      assert.equal(first, "1");
      assert.equal(second, "1");
    } finally {
      await server.close();
    }
  });

  test("a stream left after its last event goes back to the pool once the server ends it", async () => {
    let endFirst!: () => void;
    const server = await startCountingServer((_req, res, socketId) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${socketId}\n\n`);
      endFirst = () => res.end();
    });
    try {
      const seen: string[] = [];
      for (let i = 0; i < 2; i++) {
        const response = await httpRequest(server.url, { method: "POST", body: "{}" });
        for await (const event of readSse(response, { signal: signal() })) {
          seen.push(event.data);
          break;
        }
        endFirst();
        await response.release();
      }
      assert.deepEqual(seen, ["1", "1"]);
    } finally {
      await server.close();
    }
  });

  test("a pooled connection the server dropped is retried once on a fresh one", async () => {
    let requests = 0;
    const server = await startCountingServer((req, res, socketId) => {
      requests++;
      if (requests === 2) req.socket.destroy();
      else res.end(String(socketId));
    });
    try {
      assert.equal(await (await httpRequest(server.url, { method: "POST", body: "{}" })).text(), "1");
      assert.equal(await (await httpRequest(server.url, { method: "POST", body: "{}" })).text(), "2");
      assert.equal(requests, 3);
    } finally {
      await server.close();
    }
  });

  test("follows a 307 with the same method and body", async () => {
    const server = await startCountingServer((req, res) => {
      if (req.url === "/old") res.writeHead(307, { location: "/new" }).end();
      else res.end(`${req.method} ${req.url} ${req.headers["content-length"]}`);
    });
    try {
      const response = await httpRequest(`${server.url}/old`, { method: "POST", body: "{}" });
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "POST /new 2");
    } finally {
      await server.close();
    }
  });

  test("an idle pooled connection does not keep the process alive", async () => {
    const server = await startCountingServer((_req, res) => res.end("pong"));
    try {
      const clientModule = join(import.meta.dirname, "..", "..", "src", "llm", "http-client.ts");
      const script = [
        `import { httpRequest } from ${JSON.stringify(clientModule)};`,
        `const response = await httpRequest(${JSON.stringify(server.url)}, { method: "POST", body: "{}" });`,
        "console.log(await response.text());",
      ].join("\n");
      const started = Date.now();
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let stdout = "";
      child.stdout.on("data", (part: Buffer) => {
        stdout += part.toString();
      });
      const [code] = await once(child, "exit");
      assert.equal(code, 0);
      assert.equal(stdout.trim(), "pong");
      // The server would hold the connection open for 60 s; the child must not wait for that.
      assert.ok(Date.now() - started < 20_000, `the child took ${Date.now() - started} ms`);
    } finally {
      await server.close();
    }
  });
});

describe("httpRequest redirects", () => {
  test("a redirect to another origin drops the credentials; one on the same origin keeps them", async () => {
    const seen: Array<{ path: string; auth: string | undefined; apiKey: string | undefined }> = [];
    const other = await startCountingServer((req, res) => {
      seen.push({
        path: `other${req.url}`,
        auth: req.headers.authorization,
        apiKey: req.headers["x-api-key"] as string,
      });
      res.end("landed");
    });
    const otherPort = new URL(other.url).port;
    const origin = await startCountingServer((req, res) => {
      seen.push({
        path: `origin${req.url}`,
        auth: req.headers.authorization,
        apiKey: req.headers["x-api-key"] as string,
      });
      if (req.url === "/same") res.writeHead(307, { location: "/moved" }).end();
      else if (req.url === "/away") res.writeHead(307, { location: `http://localhost:${otherPort}/elsewhere` }).end();
      else res.end("stayed");
    });
    try {
      const headers = { Authorization: "Bearer sk-secret", "x-api-key": "sk-other" };
      const stayed = await httpRequest(`${origin.url}/same`, { method: "POST", body: "{}", headers });
      assert.equal(await stayed.text(), "stayed");
      const away = await httpRequest(`${origin.url}/away`, { method: "POST", body: "{}", headers });
      assert.equal(await away.text(), "landed");
      assert.deepEqual(seen, [
        { path: "origin/same", auth: "Bearer sk-secret", apiKey: "sk-other" },
        { path: "origin/moved", auth: "Bearer sk-secret", apiKey: "sk-other" },
        { path: "origin/away", auth: "Bearer sk-secret", apiKey: "sk-other" },
        { path: "other/elsewhere", auth: undefined, apiKey: undefined },
      ]);
    } finally {
      await origin.close();
      await other.close();
    }
  });
});
