import assert from "node:assert/strict";
import { getEventListeners, once } from "node:events";
import type { Readable } from "node:stream";
import { describe, test } from "node:test";
import { constants, createGzip, gzipSync } from "node:zlib";
import { type HttpResponse, httpRequest } from "../../src/llm/http-client.js";
import { signalled, startLoggingServer } from "./http-client-helpers.js";

/**
 * The stream a response body reads from. Backpressure has no other effect a test-sized body can
 * show (the reader only stops pulling from the socket), so the tests watch its pause and resume.
 */
function sourceOf(response: HttpResponse): Readable {
  return (response.body as unknown as { source: Readable }).source;
}

/** Resolves once the body's stream is paused (it may already be when the response resolves). */
async function paused(source: Readable): Promise<void> {
  if (source.isPaused()) return;
  const first = await Promise.race([once(source, "pause").then(() => "pause"), once(source, "end").then(() => "end")]);
  assert.equal(first, "pause", "the body ended without ever pausing its connection");
}

/** How long a released body may take to finish (RELEASE_GRACE_MS in http-client.ts). */
const GRACE_MS = 2000;

/** `promise`, or a failure naming `what` if it has not settled long after the grace period. */
async function withinGrace<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${3 * GRACE_MS} ms`)), 3 * GRACE_MS);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

// The groups run side by side, so the grace period the last one waits out costs no extra time.
describe("httpRequest response bodies", { concurrency: true }, () => {
  describe("response headers and decoding", () => {
    test("repeated response headers are joined with a comma", async () => {
      const server = await startLoggingServer((_req, res) => {
        res.setHeader("set-cookie", ["a=1", "b=2"]);
        res.end();
      });
      try {
        const response = await httpRequest(server.url);
        assert.equal(response.headers["set-cookie"], "a=1, b=2");
        await response.text();
      } finally {
        await server.close();
      }
    });

    test("content encodings are matched without regard to case, and x-gzip is gzip", async () => {
      const json = JSON.stringify({ ok: "yes".repeat(50) });
      const server = await startLoggingServer((req, res) => {
        res.writeHead(200, { "content-encoding": String(req.headers["x-want"]) });
        res.end(gzipSync(json));
      });
      try {
        for (const encoding of ["GZip", "x-gzip"]) {
          const response = await httpRequest(server.url, { headers: { "x-want": encoding } });
          assert.deepEqual(await response.json(), JSON.parse(json), encoding);
        }
      } finally {
        await server.close();
      }
    });

    test("a body in an encoding the client does not know is passed through as sent", async () => {
      const server = await startLoggingServer((_req, res) => {
        res.writeHead(200, { "content-encoding": "zstd" });
        res.end("not really zstd");
      });
      try {
        const response = await httpRequest(server.url);
        assert.equal(await response.text(), "not really zstd");
      } finally {
        await server.close();
      }
    });

    test("a gzip stream cut off before its trailer yields what arrived, decoded as it streams", async () => {
      const readFirst = signalled();
      const server = await startLoggingServer((_req, res) => {
        res.writeHead(200, { "content-encoding": "gzip" });
        const gzip = createGzip();
        gzip.on("data", (part: Buffer) => res.write(part));
        gzip.write("data: one\n\n");
        gzip.flush(constants.Z_SYNC_FLUSH, () => {
          void readFirst.promise.then(() => {
            gzip.write("data: two\n\n");
            // The reply ends without the gzip trailer, as a proxy cutting a stream short would.
            gzip.flush(constants.Z_SYNC_FLUSH, () => res.end());
          });
        });
      });
      try {
        const response = await httpRequest(server.url);
        const parts: string[] = [];
        for await (const chunk of response.body) {
          parts.push(Buffer.from(chunk).toString());
          readFirst.resolve();
        }
        assert.equal(parts.join(""), "data: one\n\ndata: two\n\n");
        assert.equal(parts[0], "data: one\n\n");
      } finally {
        await server.close();
      }
    });

    test("a corrupt gzip body fails the read with the decoder's error and closes the connection", async () => {
      const server = await startLoggingServer((_req, res) => {
        res.writeHead(200, { "content-encoding": "gzip" });
        res.write("this is not gzip at all");
      });
      try {
        const response = await httpRequest(server.url);
        await assert.rejects(response.text(), (error: { code?: string }) => error.code === "Z_DATA_ERROR");
        await server.socketClosed(1);
      } finally {
        await server.close();
      }
    });
  });

  describe("response body reading", () => {
    test("a reader 64 chunks behind pauses the connection and resumes it below 32, losing nothing", async () => {
      const count = 100;
      const server = await startLoggingServer((_req, res) => {
        res.writeHead(200);
        for (let i = 0; i < count; i++) res.write(`${i};`);
        res.end();
      });
      try {
        const response = await httpRequest(server.url);
        const source = sourceOf(response);
        await paused(source);
        const body = response.body[Symbol.asyncIterator]();
        const values: string[] = [];
        let readWhenResumed = -1;
        for (;;) {
          const next = await body.next();
          if (next.done) break;
          values.push(Buffer.from(next.value).toString());
          if (readWhenResumed === -1 && !source.isPaused()) readWhenResumed = values.length;
        }
        // 64 were queued when it paused; it resumes on the read that leaves 31.
        assert.equal(readWhenResumed, 33);
        assert.equal(values.join(""), Array.from({ length: count }, (_, i) => `${i};`).join(""));
      } finally {
        await server.close();
      }
    });

    test("cancel fails the read, closes the connection, and that failure is the one a later read sees", async () => {
      const server = await startLoggingServer((_req, res) => {
        res.writeHead(200);
        res.write("partial");
      });
      const controller = new AbortController();
      try {
        const response = await httpRequest(server.url, { signal: controller.signal });
        const body = response.body[Symbol.asyncIterator]();
        assert.equal(Buffer.from((await body.next()).value).toString(), "partial");
        const pending = body.next();
        response.cancel();
        await assert.rejects(pending, { message: "The response was cancelled." });
        await server.socketClosed(1);
        // Once the connection is closed the body is settled, and neither the close nor an abort
        // replaces the first failure.
        await response.release();
        controller.abort();
        await assert.rejects(body.next(), { message: "The response was cancelled." });
        assert.equal(getEventListeners(controller.signal, "abort").length, 0);
      } finally {
        await server.close();
      }
    });

    test("a body read to its end ignores a later cancel and its connection is reused", async () => {
      const server = await startLoggingServer((_req, res, seen) => res.end(`socket ${seen.socketId}`));
      try {
        const first = await httpRequest(server.url);
        assert.equal(await first.text(), "socket 1");
        first.cancel();
        assert.equal(await first.text(), "");
        await first.release();
        assert.equal(await (await httpRequest(server.url)).text(), "socket 1");
      } finally {
        await server.close();
      }
    });

    test("a server closing the connection mid-body fails the read with ECONNRESET", async () => {
      const server = await startLoggingServer((req, res) => {
        res.writeHead(200);
        res.write("partial", () => req.socket.destroy());
      });
      try {
        const response = await httpRequest(server.url, { context: { provider: "acme" } });
        await assert.rejects(response.text(), (error: { code?: string }) => error.code === "ECONNRESET");
      } finally {
        await server.close();
      }
    });

    test("releasing a body whose rest arrives soon discards the rest and returns the connection to the pool", async () => {
      const released = signalled();
      const server = await startLoggingServer((req, res, seen) => {
        if (req.url === "/again") {
          res.end(`socket ${seen.socketId}`);
          return;
        }
        res.writeHead(200);
        for (let i = 0; i < 100; i++) res.write(`${i};`);
        void released.promise.then(() => {
          for (let i = 100; i < 200; i++) res.write(`${i};`);
          res.end();
        });
      });
      try {
        const response = await httpRequest(server.url);
        // The reader is 64 chunks behind, so the socket is paused; releasing must drain it.
        await paused(sourceOf(response));
        const done = response.release();
        released.resolve();
        await withinGrace(done, "the release");
        const rest = response.body[Symbol.asyncIterator]();
        assert.deepEqual(await rest.next(), { value: undefined, done: true });
        assert.equal(await (await httpRequest(`${server.url}/again`)).text(), "socket 1");
      } finally {
        await server.close();
      }
    });

    test("leaving a read loop early discards the rest of the body", async () => {
      const broke = signalled();
      const server = await startLoggingServer((req, res, seen) => {
        if (req.url === "/again") {
          res.end(`socket ${seen.socketId}`);
          return;
        }
        res.writeHead(200);
        res.write("first");
        void broke.promise.then(() => res.end("second"));
      });
      try {
        const response = await httpRequest(server.url);
        for await (const chunk of response.body) {
          assert.equal(Buffer.from(chunk).toString(), "first");
          break;
        }
        broke.resolve();
        let after = 0;
        for await (const _chunk of response.body) after++;
        assert.equal(after, 0);
        assert.equal(await (await httpRequest(`${server.url}/again`)).text(), "socket 1");
      } finally {
        await server.close();
      }
    });

    test("a status line without a reason gives an empty status text", async () => {
      const server = await startLoggingServer((_req, res) => {
        res.writeHead(204, "");
        res.end();
      });
      try {
        const response = await httpRequest(server.url);
        assert.equal(response.status, 204);
        assert.equal(response.statusText, "");
        assert.equal(await response.text(), "");
      } finally {
        await server.close();
      }
    });
  });

  // Both tests wait out the grace period, so they run side by side.
  describe("bodies that never finish", { concurrency: true }, () => {
    test("a released body that never ends has its connection closed after the grace period", async () => {
      const server = await startLoggingServer((_req, res) => {
        res.writeHead(200);
        res.write("endless");
      });
      try {
        const response = await httpRequest(server.url);
        const started = Date.now();
        await withinGrace(response.release(), "the release");
        await withinGrace(server.socketClosed(1), "the close");
        const waited = Date.now() - started;
        assert.ok(waited >= GRACE_MS - 100, `closed after ${waited} ms`);
        // The reader reports the cut-off body to anyone still reading it.
        await assert.rejects(response.text(), { code: "ECONNRESET" });
      } finally {
        await server.close();
      }
    });

    test("a redirect whose body never ends is followed, and its connection is closed after the grace period", async () => {
      const server = await startLoggingServer((req, res) => {
        if (req.url === "/old") {
          res.writeHead(302, { location: "/new" });
          res.write("moved, and this body never ends");
        } else res.end("new");
      });
      try {
        const response = await httpRequest(`${server.url}/old`);
        assert.equal(await response.text(), "new");
        const redirect = server.requests.find((seen) => seen.url === "/old");
        assert.ok(redirect);
        await withinGrace(server.socketClosed(redirect.socketId), "the close of the redirect's connection");
      } finally {
        await server.close();
      }
    });
  });
});
