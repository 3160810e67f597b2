import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk/unstable";
import { ACP_PROTOCOL_VERSION, initializeResponse } from "../../src/acp/capabilities.js";
import { answerInitializeEarly, dropRepeatedAnswer, initializeRequestId } from "../../src/acp/early-initialize.js";

const INIT = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } });
const NEW = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } });

async function readAll(stream: PassThrough): Promise<string> {
  stream.end();
  let text = "";
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

test("the protocol version answered early is the SDK's", () => {
  assert.equal(ACP_PROTOCOL_VERSION, PROTOCOL_VERSION);
});

test("only a well-formed initialize request is answered early", () => {
  assert.equal(initializeRequestId(INIT), 0);
  assert.equal(initializeRequestId(INIT.replace('"id":0', '"id":"a"')), "a");
  for (const line of [
    NEW,
    "not json",
    "null",
    JSON.stringify({ jsonrpc: "2.0", method: "initialize", params: { protocolVersion: 1 } }),
    JSON.stringify({ jsonrpc: "2.0", id: 3, method: "initialize", params: {} }),
    JSON.stringify({ jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: "1" } }),
    JSON.stringify({ jsonrpc: "1.0", id: 3, method: "initialize", params: { protocolVersion: 1 } }),
    JSON.stringify({ jsonrpc: "2.0", id: { no: 1 }, method: "initialize", params: { protocolVersion: 1 } }),
  ]) {
    assert.equal(initializeRequestId(line), undefined, line);
  }
});

test("initialize is answered at once and every byte read is put back for the SDK, also a second frame in the same chunk", async () => {
  const stdin = new PassThrough();
  const written: string[] = [];
  const answering = answerInitializeEarly(stdin, (line) => written.push(line));
  stdin.write(`${INIT.slice(0, 20)}`);
  stdin.write(`${INIT.slice(20)}\n${NEW}\n`);
  assert.deepEqual(await answering, { id: 0 });
  assert.equal(written.length, 1);
  assert.deepEqual(JSON.parse(written[0]!), { jsonrpc: "2.0", id: 0, result: initializeResponse() });
  assert.equal(await readAll(stdin), `${INIT}\n${NEW}\n`);
});

test("a first frame that is not initialize gets no early answer and is left for the SDK", async () => {
  const stdin = new PassThrough();
  const written: string[] = [];
  const answering = answerInitializeEarly(stdin, (line) => written.push(line));
  stdin.write(`${NEW}\n`);
  assert.equal(await answering, undefined);
  assert.deepEqual(written, []);
  assert.equal(await readAll(stdin), `${NEW}\n`);
});

test("the SDK's own answer to the early-answered request is dropped once; every other frame passes", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const decode = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : undefined);
  const filter = dropRepeatedAnswer({ id: 0 });
  const note = `${JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: {} })}\n`;
  assert.equal(decode(filter(encode(note))), note);
  const sdkAnswer = `${JSON.stringify({ jsonrpc: "2.0", id: 0, result: initializeResponse() })}\n`;
  assert.equal(filter(encode(sdkAnswer)), undefined);
  assert.equal(decode(filter(encode(sdkAnswer))), sdkAnswer, "only the first is dropped");
  const error = `${JSON.stringify({ jsonrpc: "2.0", id: 0, error: { code: -32600, message: "x" } })}\n`;
  assert.equal(decode(dropRepeatedAnswer({ id: 0 })(encode(error))), error, "an error is never swallowed");
  assert.equal(decode(dropRepeatedAnswer(undefined)(encode(sdkAnswer))), sdkAnswer, "nothing answered early");
});
