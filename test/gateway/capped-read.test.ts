import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { formatBytes, mediaCap, readCapped } from "../../src/gateway/adapters/capped-read.js";

const CHUNK = Buffer.alloc(64 * 1024, "x");
const ENDLESS_LIMIT = 64 * 1024 * 1024;

/** A loopback server; `respond` writes each response. Returns its URL and a closer. */
async function serve(respond: (res: ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_req, res) => respond(res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/file`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test("the gateway ceiling applies only when it is set and below the platform's own limit", () => {
  assert.deepEqual(mediaCap(20_000, 1_000), { bytes: 1_000, fromGateway: true });
  assert.deepEqual(mediaCap(20_000, 50_000), { bytes: 20_000, fromGateway: false });
  assert.deepEqual(mediaCap(20_000, 20_000), { bytes: 20_000, fromGateway: false });
  assert.deepEqual(mediaCap(20_000, 0), { bytes: 20_000, fromGateway: false }, "0 means no ceiling");
  assert.deepEqual(mediaCap(20_000, undefined), { bytes: 20_000, fromGateway: false });
  assert.equal(formatBytes(4096), "4096 bytes");
  assert.equal(formatBytes(128 * 1024 * 1024), "128 MiB");
  assert.equal(formatBytes(1.5 * 1024 * 1024), "1.5 MiB");
});

test("a body within the limit is read whole", async () => {
  const body = Buffer.alloc(3000, "a");
  const server = await serve((res) => {
    res.writeHead(200);
    res.end(body);
  });
  try {
    assert.deepEqual(await readCapped(await fetch(server.url), 3000), body);
  } finally {
    await server.close();
  }
});

test("a body that declares a length over the limit is refused before it is read", async () => {
  const server = await serve((res) => {
    res.writeHead(200, { "content-length": String(CHUNK.length) });
    res.end(CHUNK);
  });
  try {
    assert.equal(await readCapped(await fetch(server.url), 1000), undefined);
  } finally {
    await server.close();
  }
});

test("an undeclared body is dropped once it passes the limit, and the sender is cut off long before the end", async () => {
  let written = 0;
  let closed!: () => void;
  const cutOff = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const server = await serve((res) => {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.on("close", () => closed());
    const pump = () => {
      while (written < ENDLESS_LIMIT && !res.destroyed) {
        written += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once("drain", pump);
      }
      res.end();
    };
    pump();
  });
  try {
    assert.equal(await readCapped(await fetch(server.url), 100 * 1024), undefined);
    await cutOff;
    assert.ok(written < ENDLESS_LIMIT / 2, `the sender stopped after ${written} bytes`);
  } finally {
    await server.close();
  }
});
