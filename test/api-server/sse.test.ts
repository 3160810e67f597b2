import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { type HttpBindings, serve } from "@hono/node-server";
import { Hono } from "hono";
import { openSse } from "../../src/api-server/sse.js";

/** A server whose one route streams what `script` writes, counting the writes that reach Node's response. */
async function sseServer(script: (out: ReturnType<typeof openSse>) => Promise<void>) {
  const counts = { writes: 0, ends: 0 };
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.get("/events", async (c) => {
    const outgoing = c.env.outgoing as ServerResponse;
    const write = outgoing.write.bind(outgoing) as (...args: unknown[]) => boolean;
    outgoing.write = ((...args: unknown[]) => {
      counts.writes++;
      return write(...args);
    }) as typeof outgoing.write;
    const end = outgoing.end.bind(outgoing) as (...args: unknown[]) => ServerResponse;
    outgoing.end = ((...args: unknown[]) => {
      if (typeof args[0] === "string" && args[0]) counts.writes++;
      counts.ends++;
      return end(...args);
    }) as typeof outgoing.end;
    const out = openSse(c);
    await script(out);
    return out.response;
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(started));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  return { url, counts, close: () => new Promise((resolve) => server.close(resolve)) };
}

test("events written in one loop turn leave in one write, and the end carries what is left", async () => {
  const { url, counts, close } = await sseServer(async (out) => {
    await out.write("data: 1\n\n");
    await out.write("data: 2\n\n");
    await out.write("data: 3\n\n");
    await new Promise((resolve) => setImmediate(resolve));
    await out.write("data: 4\n\n");
    await out.write("data: [DONE]\n\n");
    out.end();
  });
  try {
    const response = await fetch(url);
    assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
    assert.equal(await response.text(), "data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\ndata: [DONE]\n\n");
    assert.equal(counts.writes, 2, "three events in one write, the last two with the end");
    assert.equal(counts.ends, 1);
  } finally {
    await close();
  }
});

test("the headers leave within a loop turn of opening, before any event", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { url, close } = await sseServer(async (out) => {
    await released;
    await out.write("data: late\n\n");
    out.end();
  });
  try {
    const response = await fetch(url);
    assert.equal(response.status, 200, "headers arrived while the stream had nothing to say");
    release();
    assert.equal(await response.text(), "data: late\n\n");
  } finally {
    await close();
  }
});
