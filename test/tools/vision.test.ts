import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { crc32, deflateSync } from "node:zlib";
import { createAuxiliaryClient } from "../../src/agent/auxiliary.js";
import { createTransport } from "../../src/llm/providers.js";
import { visionAnalyzer } from "../../src/runtime/vision.js";
import { registerVisionTools, type VisionToolOptions } from "../../src/tools/builtin/vision.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { detectImageType } from "../../src/tools/vision/image-type.js";
import { MAX_IMAGE_BYTES } from "../../src/tools/vision/types.js";
import { WebsiteBlocklist } from "../../src/tools/web/blocklist.js";
import { privateUrlReason } from "../../src/tools/web/url-guard.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { tempDir } from "../state/temp-dir.js";
import { callTool, makeContext } from "./tool-harness.js";

/** A 2×1 RGB PNG: signature, IHDR, one IDAT (zlib) and IEND, each chunk with its CRC. */
function buildPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0); // width
  header.writeUInt32BE(1, 4); // height
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const scanline = Buffer.from([0, 255, 0, 0, 0, 0, 255]); // filter 0, a red and a blue pixel
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(scanline)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A 1×1 grey baseline JPEG: one quantisation table, one-code Huffman tables for DC and AC, and
 * an entropy-coded block of "DC difference 0, end of block" (bits 00, padded with ones).
 */
function buildJpeg(): Buffer {
  const segment = (marker: number, data: number[]) => [
    0xff,
    marker,
    (data.length + 2) >> 8,
    (data.length + 2) & 0xff,
    ...data,
  ];
  const oneCodeTable = (tableClass: number) => [tableClass << 4, 1, ...new Array(15).fill(0), 0x00];
  return Buffer.from([
    0xff,
    0xd8,
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xdb, [0x00, ...new Array(64).fill(1)]),
    ...segment(0xc0, [8, 0, 1, 0, 1, 1, 1, 0x11, 0]),
    ...segment(0xc4, oneCodeTable(0)),
    ...segment(0xc4, oneCodeTable(1)),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    0x3f,
    0xff,
    0xd9,
  ]);
}

const PNG = buildPng();
const JPEG = buildJpeg();

/** Bytes the oversize route wrote before the client hung up, and whether it got that far. */
const oversize = { written: 0, finished: false };
const OVERSIZE_LIMIT = 4 * MAX_IMAGE_BYTES;
let base = "";

async function streamUntilClosed(res: ServerResponse): Promise<void> {
  res.writeHead(200, { "content-type": "image/png" });
  const chunk = Buffer.alloc(64 * 1024, 7);
  chunk.set(PNG.subarray(0, 8));
  let closed = false;
  res.on("close", () => {
    closed = true;
  });
  oversize.written = 0;
  while (!closed && oversize.written < OVERSIZE_LIMIT) {
    oversize.written += chunk.length;
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
    }
  }
  oversize.finished = !closed;
  res.end();
}

const server = createServer((req, res) => {
  switch (req.url) {
    case "/red.png":
      return res.writeHead(200, { "content-type": "image/png" }).end(PNG);
    case "/photo":
      return res.writeHead(200, { "content-type": "application/octet-stream" }).end(JPEG);
    case "/fake.png":
      return res.writeHead(200, { "content-type": "image/png" }).end("<!doctype html><h1>Not found</h1>");
    case "/moved":
      return res.writeHead(302, { location: "/red.png" }).end();
    case "/to-metadata":
      return res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    case "/to-blocked":
      return res.writeHead(301, { location: "http://blocked.example/cat.png" }).end();
    case "/declared-huge":
      res.writeHead(200, { "content-type": "image/png", "content-length": String(MAX_IMAGE_BYTES + 1) });
      res.write(PNG.subarray(0, 8));
      req.on("close", () => res.destroy());
      return;
    case "/endless":
      return void streamUntilClosed(res);
    case "/slow":
      res.writeHead(200, { "content-type": "image/png" });
      res.write(PNG.subarray(0, 8));
      req.on("close", () => res.destroy());
      return;
    default:
      return res.writeHead(404).end("no such image");
  }
});

let fake: FakeProvider;
let analyze: VisionToolOptions["analyze"];

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake = await startFakeProvider();
  const mainRoute = {
    provider: "custom",
    model: "main-model",
    transport: await createTransport({ provider: "custom", baseUrl: `${fake.url}/v1`, apiKey: "main-key" }),
  };
  const client = createAuxiliaryClient({ config: {}, mainRoute, env: {} });
  analyze = visionAnalyzer(async () => client);
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await fake.close();
});

function visionRegistry(options: VisionToolOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registerVisionTools(registry, { analyze, ...options });
  return registry;
}

/** Calls vision_analyze; the fake vision model answers `answer` to whatever it is asked. */
async function analyse(
  args: Record<string, unknown>,
  options: VisionToolOptions = { allowPrivateUrls: true },
  cwd = tempDir("hermes-vision-cwd-"),
) {
  fake.requests.length = 0;
  fake.setScript([{ text: "A red pixel beside a blue one." }]);
  return callTool(visionRegistry(options), "vision_analyze", args, makeContext(cwd));
}

type Part = { type: string; text?: string; image_url?: { url: string } };
const sentParts = () => fake.requests[0]?.body?.messages?.[0]?.content as Part[] | undefined;

test("the built PNG and JPEG, a GIF and a WebP are recognised by their first bytes; other bytes are not", () => {
  assert.equal(detectImageType(PNG), "image/png");
  assert.equal(detectImageType(JPEG), "image/jpeg");
  assert.equal(detectImageType(Buffer.from("GIF89a\x01\x00\x01\x00", "latin1")), "image/gif");
  assert.equal(detectImageType(Buffer.from("RIFF\x24\x00\x00\x00WEBPVP8 ", "latin1")), "image/webp");
  assert.equal(detectImageType(Buffer.from("RIFF\x24\x00\x00\x00WAVEfmt ", "latin1")), null);
  assert.equal(detectImageType(Buffer.from("<html>")), null);
  assert.equal(detectImageType(Buffer.alloc(0)), null);
});

test("a downloaded PNG goes to the vision model as a data URL with the question, and its answer comes back", async () => {
  const result = await analyse({ image_url: `${base}/red.png`, question: "Which colours are the pixels?" });
  assert.deepEqual(result, { success: true, analysis: "A red pixel beside a blue one." });
  assert.equal(fake.requests.length, 1);
  const parts = sentParts();
  assert.deepEqual(parts?.[0], { type: "text", text: "Which colours are the pixels?" });
  assert.equal(parts?.[1]?.type, "image_url");
  assert.equal(parts?.[1]?.image_url?.url, `data:image/png;base64,${PNG.toString("base64")}`);
});

test("a JPEG served as application/octet-stream is sent as image/jpeg; no question asks for a description", async () => {
  const result = await analyse({ image_url: `${base}/photo` });
  assert.equal(result.success, true);
  const parts = sentParts();
  assert.match(parts?.[0]?.text ?? "", /^Describe this image/);
  assert.equal(parts?.[1]?.image_url?.url, `data:image/jpeg;base64,${JPEG.toString("base64")}`);
});

test("an HTML page served as image/png is refused as not an image, and the vision model is not asked", async () => {
  const result = await analyse({ image_url: `${base}/fake.png` });
  assert.equal(result.success, false);
  assert.match(String(result.error), /not a PNG, JPEG, GIF or WebP image: it looks like HTML/);
  assert.equal(fake.requests.length, 0);
});

test("an HTTP error status is reported with the status", async () => {
  const result = await analyse({ image_url: `${base}/missing.png` });
  assert.match(String(result.error), /answered HTTP 404/);
});

test("a body past 20 MiB is refused while it streams in, long before the server is done sending", async () => {
  const result = await analyse({ image_url: `${base}/endless` });
  assert.equal(result.success, false);
  assert.match(String(result.error), /too large \(more than 20971520 bytes/);
  assert.equal(oversize.finished, false, "the download stopped the server from sending all of it");
  assert.ok(oversize.written < OVERSIZE_LIMIT, `${oversize.written} bytes were sent`);
  assert.equal(fake.requests.length, 0);
});

test("a Content-Length past 20 MiB is refused before the body is read", async () => {
  const result = await analyse({ image_url: `${base}/declared-huge` });
  assert.match(String(result.error), /too large \(20971521 bytes; at most 20971520\)/);
});

test("redirects are followed", async () => {
  const result = await analyse({ image_url: `${base}/moved` });
  assert.equal(result.success, true);
  assert.equal(sentParts()?.[1]?.image_url?.url, `data:image/png;base64,${PNG.toString("base64")}`);
});

test("without web.allow_private_urls a loopback URL is refused before anything is fetched", async () => {
  const result = await analyse({ image_url: `${base}/red.png` }, {});
  assert.equal(result.success, false);
  assert.match(
    String(result.error),
    /127\.0\.0\.1:\d+ is a private or local address; vision_analyze reads only public addresses \(set web\.allow_private_urls: true/,
  );
  assert.equal(fake.requests.length, 0);
});

test("a redirect from a public address to a private one is refused at that hop", async () => {
  // The test server stands in for a public site; every other address gets the real check.
  const checkUrl = (url: URL) =>
    url.origin === base ? Promise.resolve(null) : privateUrlReason(url, undefined, "vision_analyze");
  const result = await analyse({ image_url: `${base}/to-metadata` }, { checkUrl });
  assert.equal(result.success, false);
  assert.match(
    String(result.error),
    /redirected to http:\/\/169\.254\.169\.254\/latest\/meta-data\/, which is refused: .*private or local address/,
  );
});

test("a redirect to a site the website blocklist names is refused, even with private URLs allowed", async () => {
  const blocklist = new WebsiteBlocklist(
    { enabled: true, domains: ["blocked.example"], shared_files: [] },
    tempDir("hermes-vision-home-"),
  );
  const result = await analyse({ image_url: `${base}/to-blocked` }, { allowPrivateUrls: true, blocklist });
  assert.match(
    String(result.error),
    /redirected to http:\/\/blocked\.example\/cat\.png.*blocked by the website policy/,
  );
});

test("a server that stalls hits the download time limit", async () => {
  const started = Date.now();
  const result = await analyse({ image_url: `${base}/slow` }, { allowPrivateUrls: true, downloadTimeoutSeconds: 0.3 });
  assert.equal(result.success, false);
  assert.match(String(result.error), /took longer than 0\.3s \(auxiliary\.vision\.download_timeout\)/);
  assert.ok(Date.now() - started < 5000);
});

test("local images load by relative path and by file:// URL; a missing file and a non-image are refused", async () => {
  const cwd = tempDir("hermes-vision-files-");
  writeFileSync(join(cwd, "shot.png"), PNG);
  writeFileSync(join(cwd, "notes.png"), "just text");
  const relative = await analyse({ image_url: "shot.png", question: "What is it?" }, {}, cwd);
  assert.equal(relative.success, true);
  assert.equal(sentParts()?.[1]?.image_url?.url, `data:image/png;base64,${PNG.toString("base64")}`);
  const byUrl = await analyse({ image_url: pathToFileURL(join(cwd, "shot.png")).href }, {}, cwd);
  assert.equal(byUrl.success, true);
  const missing = await analyse({ image_url: "nope.png" }, {}, cwd);
  assert.match(String(missing.error), /there is no file at .*nope\.png/);
  const text = await analyse({ image_url: "notes.png" }, {}, cwd);
  assert.match(String(text.error), /notes\.png is not a PNG, JPEG, GIF or WebP image/);
});

test("the agent's own secret files are refused, whatever they contain", async () => {
  const home = tempDir("hermes-vision-secret-");
  writeFileSync(join(home, ".env"), PNG);
  const saved = process.env.HERMES_HOME;
  process.env.HERMES_HOME = home;
  try {
    const result = await analyse({ image_url: join(home, ".env") }, {}, home);
    assert.equal(result.success, false);
    assert.match(String(result.error), /Refusing to read .*\.env: it holds the agent's own secrets/);
    assert.equal(fake.requests.length, 0);
  } finally {
    if (saved === undefined) delete process.env.HERMES_HOME;
    else process.env.HERMES_HOME = saved;
  }
});

test("other URL schemes and data: URLs are refused with what to give instead", async () => {
  const ftp = await analyse({ image_url: "ftp://example.com/a.png" });
  assert.match(String(ftp.error), /ftp URLs are not supported: give an http\(s\) URL or a local path/);
  const data = await analyse({ image_url: `data:image/png;base64,${PNG.toString("base64")}` });
  assert.match(String(data.error), /data: URLs are not accepted/);
});

test("a vision model that fails gives success: false with the reason, not a thrown error", async () => {
  const cwd = tempDir("hermes-vision-fail-");
  writeFileSync(join(cwd, "shot.png"), PNG);
  fake.requests.length = 0;
  fake.setScript([{ fault: { kind: "status", status: 400, message: "this model does not accept images" } }]);
  const result = await callTool(visionRegistry(), "vision_analyze", { image_url: "shot.png" }, makeContext(cwd));
  assert.equal(result.success, false);
  assert.match(String(result.error), /The vision model could not analyse the image: .*does not accept images/);
});

test("the tool is always available, says what it returns, and without an analyzer fails each call clearly", async () => {
  const registry = visionRegistry();
  assert.equal(await registry.isAvailable("vision_analyze"), true);
  assert.match(registry.get("vision_analyze")?.description ?? "", /Returns JSON \{success, analysis\}/);
  const bare = new ToolRegistry();
  registerVisionTools(bare);
  assert.equal(await bare.isAvailable("vision_analyze"), true);
  const result = await callTool(bare, "vision_analyze", { image_url: "x.png" }, makeContext(tempDir("hermes-vision-")));
  assert.deepEqual(result, { success: false, error: "No vision model is available in this process." });
});

test("the runtime's vision_analyze asks the main model and honours auxiliary.vision.download_timeout", async () => {
  const config = "web:\n  allow_private_urls: true\nauxiliary:\n  vision:\n    download_timeout: 1\n";
  const test = await openTestRuntime({ script: [{ text: "two pixels" }], config });
  try {
    const { runtime } = test;
    assert.equal(runtime.config.auxiliary.vision.download_timeout, 1);
    const ctx = makeContext(runtime.cwd);
    const ok = await callTool(runtime.registry, "vision_analyze", { image_url: `${base}/red.png` }, ctx);
    assert.deepEqual(ok, { success: true, analysis: "two pixels" });
    const request = test.fake.requests.filter((r) => r.method === "POST").at(-1);
    assert.equal(request?.body?.model, "fake-model");
    const slow = await callTool(runtime.registry, "vision_analyze", { image_url: `${base}/slow` }, ctx);
    assert.match(String(slow.error), /took longer than 1s/);
  } finally {
    await test.close();
  }
});
