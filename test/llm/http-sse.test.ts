import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, test } from "node:test";
import { LlmError } from "../../src/llm/errors.js";
import { postJson } from "../../src/llm/http.js";
import type { HttpResponse } from "../../src/llm/http-client.js";
import { readSse, type SseEvent } from "../../src/llm/sse.js";
import { signal, startServer } from "./transport-helpers.js";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function readAll(response: HttpResponse, options: Parameters<typeof readSse>[1]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of readSse(response, options)) out.push(event);
  return out;
}

describe("postJson", () => {
  test("an HTML error page keeps its status, text body and headers", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(502, { "content-type": "text/html", "cf-ray": "abc" });
      res.end("<html><body>Bad gateway</body></html>");
    });
    try {
      const error = await postJson(`${server.url}/x`, {}, { signal: signal(), provider: "acme", model: "m1" }).then(
        () => assert.fail("expected a rejection"),
        (e: unknown) => e as LlmError,
      );
      assert.ok(error instanceof LlmError);
      assert.equal(error.kind, "http");
      assert.equal(error.status, 502);
      assert.equal(error.body, "<html><body>Bad gateway</body></html>");
      assert.equal(error.headers?.["cf-ray"], "abc");
      assert.equal(error.provider, "acme");
      assert.equal(error.model, "m1");
    } finally {
      await server.close();
    }
  });

  test("a JSON error body is parsed", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end('{"error":{"message":"context too long","code":"context_length_exceeded"}}');
    });
    try {
      await assert.rejects(postJson(server.url, {}, { signal: signal() }), (e: LlmError) => {
        assert.deepEqual(e.body, { error: { message: "context too long", code: "context_length_exceeded" } });
        return e.status === 400;
      });
    } finally {
      await server.close();
    }
  });

  test("a refused connection is a network error with its code", async () => {
    const port = await freePort();
    await assert.rejects(
      postJson(`http://127.0.0.1:${port}/v1/chat/completions`, {}, { signal: signal() }),
      (e: LlmError) => e.kind === "network" && e.code === "ECONNREFUSED",
    );
  });

  test("a reset connection is a network error with its code", async () => {
    const server = await startServer((req) => req.socket.destroy());
    try {
      await assert.rejects(
        postJson(server.url, {}, { signal: signal() }),
        (e: LlmError) => e.kind === "network" && typeof e.code === "string",
      );
    } finally {
      await server.close();
    }
  });

  test("no response headers within the limit is a timeout", async () => {
    const server = await startServer(() => {});
    try {
      await assert.rejects(
        postJson(server.url, {}, { signal: signal(), timeouts: { headersMs: 100 } }),
        (e: LlmError) => e.kind === "timeout",
      );
    } finally {
      await server.close();
    }
  });

  test("an abort while waiting for headers is an abort", async () => {
    const server = await startServer(() => {});
    const controller = new AbortController();
    try {
      const pending = postJson(server.url, {}, { signal: controller.signal });
      setImmediate(() => controller.abort());
      await assert.rejects(pending, (e: LlmError) => e.kind === "abort");
    } finally {
      await server.close();
    }
  });

  test("sends JSON with the given headers", async () => {
    let seen: { headers: Record<string, unknown>; body: string } | undefined;
    const server = await startServer((req, res, body) => {
      seen = { headers: req.headers, body };
      res.end("{}");
    });
    try {
      await postJson(server.url, { a: 1 }, { signal: signal(), headers: { "x-title": "Hermes" } });
      assert.equal(seen?.headers["content-type"], "application/json");
      assert.equal(seen?.headers["x-title"], "Hermes");
      assert.equal(seen?.body, '{"a":1}');
    } finally {
      await server.close();
    }
  });
});

describe("readSse", () => {
  test("parses named events and data across chunk boundaries", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: one\nda");
      res.write('ta: {"a":1}\n\n: comment\n\ndata: two\n');
      res.end("\n");
    });
    try {
      const response = await postJson(server.url, {}, { signal: signal() });
      const events = await readAll(response, { signal: signal() });
      assert.deepEqual(
        events.map((e) => [e.event, e.data]),
        [
          ["one", '{"a":1}'],
          [undefined, "two"],
        ],
      );
    } finally {
      await server.close();
    }
  });

  test("dispatches a last event whose closing blank line never came, but not a cut-off line", async () => {
    for (const [tail, expected] of [
      ["data: last\n", ["first", "last"]],
      ["data: la", ["first"]],
    ] as const) {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(`data: first\n\n${tail}`);
      });
      try {
        const response = await postJson(server.url, {}, { signal: signal() });
        const events = await readAll(response, { signal: signal() });
        assert.deepEqual(
          events.map((e) => e.data),
          expected,
        );
      } finally {
        await server.close();
      }
    }
  });

  test("keep-alive comments alone make the stream stale", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      const timer = setInterval(() => res.write(": keep-alive\n\n"), 20);
      res.on("close", () => clearInterval(timer));
    });
    try {
      const response = await postJson(server.url, {}, { signal: signal() });
      await assert.rejects(
        readAll(response, { signal: signal(), timeouts: { readMs: 5000, staleMs: 250 } }),
        (e: LlmError) => e.kind === "stale_stream",
      );
    } finally {
      await server.close();
    }
  });

  test("silence is a read timeout", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
    });
    try {
      const response = await postJson(server.url, {}, { signal: signal() });
      await assert.rejects(
        readAll(response, { signal: signal(), timeouts: { readMs: 150, staleMs: 5000 } }),
        (e: LlmError) => e.kind === "timeout",
      );
    } finally {
      await server.close();
    }
  });

  test("an abort rejects at once and closes the connection", async () => {
    let closed!: Promise<void>;
    const server = await startServer((_req, res) => {
      closed = new Promise((resolve) => res.on("close", () => resolve()));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
    });
    const controller = new AbortController();
    try {
      const response = await postJson(server.url, {}, { signal: controller.signal });
      const started = Date.now();
      await assert.rejects(
        (async () => {
          for await (const _event of readSse(response, { signal: controller.signal })) controller.abort();
        })(),
        (e: LlmError) => e.kind === "abort",
      );
      await closed;
      assert.ok(Date.now() - started < 1000);
    } finally {
      await server.close();
    }
  });
});
