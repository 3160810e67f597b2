// The LSP client's JSON-RPC framing (Content-Length headers) over in-memory streams.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { RpcConnection, RpcError } from "../../src/tools/lsp/jsonrpc.js";

function frame(message: object): Buffer {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
}

function connection() {
  const fromServer = new PassThrough();
  const toServer = new PassThrough();
  const sent: string[] = [];
  toServer.on("data", (chunk: Buffer) => sent.push(chunk.toString("utf8")));
  return { rpc: new RpcConnection(fromServer, toServer), fromServer, sent };
}

test("answers arrive whole when frames are split anywhere, even inside a multi-byte character", async () => {
  const { rpc, fromServer } = connection();
  const first = rpc.request("a");
  const second = rpc.request("b");
  const notes: unknown[] = [];
  rpc.onNotification = (method, params) => notes.push([method, params]);
  const bytes = Buffer.concat([
    frame({ id: second.id, result: "zweite Antwort – ü" }),
    frame({ method: "note", params: { text: "é" } }),
    frame({ id: first.id, result: { ok: true } }),
  ]);
  for (let at = 0; at < bytes.length; at += 7) fromServer.write(bytes.subarray(at, at + 7));
  assert.deepEqual(await first.answer, { ok: true });
  assert.equal(await second.answer, "zweite Antwort – ü");
  assert.deepEqual(notes, [["note", { text: "é" }]]);
});

test("requests from the server are answered, and an error answer rejects its request", async () => {
  const { rpc, fromServer, sent } = connection();
  rpc.onRequest = (method) => (method === "workspace/configuration" ? [null] : null);
  fromServer.write(frame({ id: 7, method: "workspace/configuration", params: { items: [{}] } }));
  const pending = rpc.request("textDocument/diagnostic");
  fromServer.write(frame({ id: pending.id, error: { code: -32802, message: "busy" } }));
  await assert.rejects(pending.answer, (error: unknown) => error instanceof RpcError && error.code === -32802);
  const answer = sent.map((chunk) => chunk.split("\r\n\r\n")[1] ?? "").find((body) => body.includes('"id":7'));
  assert.deepEqual(JSON.parse(answer ?? "{}"), { jsonrpc: "2.0", id: 7, result: [null] });
});

test("a frame without a valid Content-Length fails every waiting request instead of hanging", async () => {
  const { rpc, fromServer } = connection();
  const pending = rpc.request("initialize");
  fromServer.write("Content-Type: nothing\r\n\r\n{}");
  await assert.rejects(pending.answer, /the server sent a message without a valid Content-Length/);
  await assert.rejects(rpc.request("later").answer, /valid Content-Length/);
});
