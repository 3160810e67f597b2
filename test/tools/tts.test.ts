import assert from "node:assert/strict";
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { after, before, test } from "node:test";
import { type WebSocket, WebSocketServer } from "ws";
import { registerTtsTools, type TtsToolOptions } from "../../src/tools/builtin/tts.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { MAX_SSML_TEXT_BYTES, secMsGec } from "../../src/tools/tts/edge.js";
import type { Env } from "../../src/tools/tts/types.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { tempDir } from "../state/temp-dir.js";
import { callTool, makeContext } from "./tool-harness.js";

// ---- a hosted speech endpoint (OpenAI's and ElevenLabs' shapes) ----

interface Posted {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

let posts: Posted[] = [];
let answer: (post: Posted) => { status: number; body: Buffer | string; type?: string } = () => ({
  status: 200,
  body: OGG,
});
let base = "";
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(24), Buffer.from("OpusHead fake opus audio")]);
const MP3 = Buffer.from("ID3 fake mp3 audio bytes");

const http = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const post = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>,
    };
    posts.push(post);
    const reply = answer(post);
    res.writeHead(reply.status, { "content-type": reply.type ?? "audio/ogg" }).end(reply.body);
  });
});

before(async () => {
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => http.close(() => resolve())));

function toolWith(options: TtsToolOptions): { registry: ToolRegistry; home: string } {
  const home = options.home ?? tempDir("hermes-tts-home-");
  const registry = new ToolRegistry();
  registerTtsTools(registry, { ...options, home });
  return { registry, home };
}

async function say(registry: ToolRegistry, args: Record<string, unknown>, cwd = tempDir("hermes-tts-cwd-")) {
  return callTool(registry, "text_to_speech", args, makeContext(cwd));
}

function audioFiles(home: string): string[] {
  const dir = join(home, "cache", "audio");
  return existsSync(dir) ? readdirSync(dir) : [];
}

const openaiEnv = (extra: Env = {}): (() => Env) => {
  return () => ({ VOICE_TOOLS_OPENAI_KEY: "vk-secret-0001", TTS_OPENAI_BASE_URL: `${base}/v1`, ...extra });
};

test("openai: posts model, voice, input and opus to /audio/speech with the key; the Ogg/Opus answer is the file", async () => {
  posts = [];
  answer = () => ({ status: 200, body: OGG });
  const { registry, home } = toolWith({
    settings: { provider: "openai", openaiModel: "gpt-4o-mini-tts", openaiVoice: "alloy" },
    env: openaiEnv({ OPENAI_API_KEY: "not-this-one" }),
  });
  assert.equal(await registry.isAvailable("text_to_speech"), true);
  const result = await say(registry, { text: "  Your train leaves at 9:40.  " });
  assert.equal(result.success, true, JSON.stringify(result));
  const path = result.file_path as string;
  assert.ok(path.startsWith(join(home, "cache", "audio", "tts_")), path);
  assert.ok(path.endsWith(".ogg"));
  assert.equal(result.provider, "openai");
  assert.equal(result.format, "ogg/opus");
  assert.equal(result.media_tag, `MEDIA:${path}`);
  assert.deepEqual(readFileSync(path), OGG);
  assert.equal(posts.length, 1);
  const [post] = posts;
  assert.equal(post!.method, "POST");
  assert.equal(post!.url, "/v1/audio/speech");
  assert.equal(post!.headers.authorization, "Bearer vk-secret-0001");
  assert.match(String(post!.headers["content-type"]), /^application\/json/);
  assert.deepEqual(post!.body, {
    model: "gpt-4o-mini-tts",
    voice: "alloy",
    input: "Your train leaves at 9:40.",
    response_format: "opus",
  });
});

test("openai: an output path ending in .mp3 asks for MP3 and is written there; the voice argument wins", async () => {
  posts = [];
  answer = () => ({ status: 200, body: MP3, type: "audio/mpeg" });
  const cwd = tempDir("hermes-tts-cwd-");
  const { registry, home } = toolWith({ settings: { provider: "openai" }, env: openaiEnv() });
  const result = await say(registry, { text: "Hello", output_path: "out/greeting.mp3", voice: "nova" }, cwd);
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.file_path, join(cwd, "out", "greeting.mp3"));
  assert.equal(result.format, "mp3");
  assert.deepEqual(readFileSync(join(cwd, "out", "greeting.mp3")), MP3);
  assert.equal(posts[0]!.body.response_format, "mp3");
  assert.equal(posts[0]!.body.voice, "nova");
  assert.deepEqual(audioFiles(home), [], "nothing went to the cache");
});

test("openai: 401 and 500 come back as errors naming the status, never the key; no file is written", async () => {
  const { registry, home } = toolWith({ settings: { provider: "openai" }, env: openaiEnv() });
  answer = () => ({
    status: 401,
    body: '{"error":{"message":"Incorrect API key provided: vk-secret-0001"}}',
    type: "application/json",
  });
  const refused = await say(registry, { text: "Hello" });
  assert.equal(refused.success, false);
  assert.match(String(refused.error), /HTTP 401 \(the API key was refused: check it\)/);
  assert.doesNotMatch(JSON.stringify(refused), /vk-secret-0001/);

  answer = () => ({ status: 500, body: '{"error":{"message":"The server had an error"}}', type: "application/json" });
  const broken = await say(registry, { text: "Hello" });
  assert.equal(broken.success, false);
  assert.match(String(broken.error), /OpenAI speech answered HTTP 500 .*The server had an error/);

  answer = () => ({ status: 429, body: "slow down", type: "text/plain" });
  const limited = await say(registry, { text: "Hello" });
  assert.match(String(limited.error), /HTTP 429 \(rate limited/);
  assert.deepEqual(audioFiles(home), []);
});

test("openai: without a key the tool is not offered, and a call says which key to set", async () => {
  posts = [];
  const { registry } = toolWith({ settings: { provider: "openai" }, env: () => ({ TTS_OPENAI_BASE_URL: base }) });
  assert.equal(await registry.isAvailable("text_to_speech"), false);
  const result = await say(registry, { text: "Hello" });
  assert.equal(result.success, false);
  assert.match(String(result.error), /needs VOICE_TOOLS_OPENAI_KEY \(or OPENAI_API_KEY\)/);
  assert.equal(posts.length, 0);
});

test("a speech service that cannot be reached is a clear error", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const { registry } = toolWith({
    settings: { provider: "openai" },
    env: () => ({ OPENAI_API_KEY: "k-net", TTS_OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` }),
  });
  const result = await say(registry, { text: "Hello" });
  assert.equal(result.success, false);
  assert.match(String(result.error), /could not reach OpenAI speech/);
});

test("elevenlabs: posts text and model_id to /v1/text-to-speech/<voice> as opus_48000_64 with xi-api-key", async () => {
  posts = [];
  answer = () => ({ status: 200, body: OGG });
  const { registry } = toolWith({
    settings: { provider: "elevenlabs", elevenlabsVoiceId: "voice-123", elevenlabsModelId: "eleven_multilingual_v2" },
    env: () => ({ ELEVENLABS_API_KEY: "el-secret-0002", ELEVENLABS_BASE_URL: base }),
  });
  assert.equal(await registry.isAvailable("text_to_speech"), true);
  const result = await say(registry, { text: "Guten Morgen" });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.format, "ogg/opus");
  assert.deepEqual(readFileSync(result.file_path as string), OGG);
  const [post] = posts;
  assert.equal(post!.url, "/v1/text-to-speech/voice-123?output_format=opus_48000_64");
  assert.equal(post!.headers["xi-api-key"], "el-secret-0002");
  assert.equal(post!.headers.authorization, undefined);
  assert.deepEqual(post!.body, { text: "Guten Morgen", model_id: "eleven_multilingual_v2" });

  posts = [];
  answer = () => ({ status: 200, body: MP3, type: "audio/mpeg" });
  const dir = tempDir("hermes-tts-out-");
  const mp3 = await say(registry, { text: "Hi", output_path: join(dir, "hi.mp3") });
  assert.equal(mp3.success, true);
  assert.equal(posts[0]!.url, "/v1/text-to-speech/voice-123?output_format=mp3_44100_128");
});

test("elevenlabs: a refused key and a missing key are clear errors without the key", async () => {
  answer = () => ({ status: 401, body: '{"detail":{"message":"Invalid API key el-secret-0002"}}' });
  const { registry } = toolWith({
    settings: { provider: "elevenlabs" },
    env: () => ({ ELEVENLABS_API_KEY: "el-secret-0002", ELEVENLABS_BASE_URL: base }),
  });
  const refused = await say(registry, { text: "Hello" });
  assert.match(String(refused.error), /ElevenLabs answered HTTP 401/);
  assert.doesNotMatch(JSON.stringify(refused), /el-secret-0002/);
  const keyless = toolWith({ settings: { provider: "elevenlabs" }, env: () => ({}) }).registry;
  assert.equal(await keyless.isAvailable("text_to_speech"), false);
  assert.match(String((await say(keyless, { text: "Hello" })).error), /needs ELEVENLABS_API_KEY/);
});

test("a provider of the original's that is not available here answers with the ones that work", async () => {
  posts = [];
  const { registry } = toolWith({ settings: { provider: "neutts" }, env: () => ({}) });
  assert.equal(await registry.isAvailable("text_to_speech"), true, "offered, so the model can tell the user why");
  const result = await say(registry, { text: "Hello" });
  assert.equal(result.success, false);
  assert.match(String(result.error), /tts\.provider "neutts" is not available in this version/);
  assert.match(String(result.error), /edge \(free, no key\), openai, elevenlabs, gemini, xai, mistral .* or piper/);
  assert.equal(posts.length, 0);
});

test("text past the provider's limit is refused with its length and the limit, before any request", async () => {
  posts = [];
  const { registry } = toolWith({ settings: { provider: "openai" }, env: openaiEnv() });
  const result = await say(registry, { text: "a".repeat(4097) });
  assert.equal(result.success, false);
  assert.match(String(result.error), /the text is 4097 characters; openai speaks at most 4096/);
  assert.equal(posts.length, 0);
});

test("an output path in a credentials folder is refused", async () => {
  posts = [];
  const { registry } = toolWith({ settings: { provider: "openai" }, env: openaiEnv() });
  const result = await say(registry, { text: "Hello", output_path: join(homedir(), ".ssh", "note.ogg") });
  assert.equal(result.success, false);
  assert.match(String(result.error), /Refusing to write/);
  assert.equal(posts.length, 0);
});

test("through the runtime: tts.* from config.yaml reaches the provider, and the file lands in the home's audio cache", async () => {
  posts = [];
  answer = () => ({ status: 200, body: OGG });
  const saved = { key: process.env.VOICE_TOOLS_OPENAI_KEY, url: process.env.TTS_OPENAI_BASE_URL };
  process.env.VOICE_TOOLS_OPENAI_KEY = "vk-runtime";
  process.env.TTS_OPENAI_BASE_URL = `${base}/v1`;
  const rt = await openTestRuntime({
    config: "tts:\n  provider: openai\n  openai:\n    model: tts-1-hd\n    voice: shimmer\n",
  });
  try {
    const result = await say(rt.runtime.registry, { text: "Configured voice" });
    assert.equal(result.success, true, JSON.stringify(result));
    assert.ok(String(result.file_path).startsWith(join(rt.home, "cache", "audio")));
    assert.deepEqual(posts[0]!.body, {
      model: "tts-1-hd",
      voice: "shimmer",
      input: "Configured voice",
      response_format: "opus",
    });
    assert.equal(posts[0]!.headers.authorization, "Bearer vk-runtime");
    assert.equal(posts[0]!.headers["user-agent"], "hermes-agent", "sent by the project's HTTP client, not fetch");
  } finally {
    await rt.close();
    if (saved.key === undefined) delete process.env.VOICE_TOOLS_OPENAI_KEY;
    else process.env.VOICE_TOOLS_OPENAI_KEY = saved.key;
    if (saved.url === undefined) delete process.env.TTS_OPENAI_BASE_URL;
    else process.env.TTS_OPENAI_BASE_URL = saved.url;
  }
});

test("by default the provider is edge: the tool is offered with no key at all", async () => {
  const rt = await openTestRuntime();
  try {
    assert.equal(rt.runtime.config.tts.provider, "edge");
    assert.equal(rt.runtime.config.voice.auto_tts, false);
    assert.equal(await rt.runtime.registry.isAvailable("text_to_speech"), true);
  } finally {
    await rt.close();
  }
});

// ---- Edge's read-aloud service, spoken over a local WebSocket ----

interface EdgeConnection {
  url: URL;
  headers: IncomingHttpHeaders;
  frames: string[];
}

interface EdgeServer {
  url: string;
  connections: EdgeConnection[];
  close(): Promise<void>;
}

function textFrame(path: string, body = "{}"): string {
  return `X-RequestId:0f00\r\nContent-Type:application/json; charset=utf-8\r\nPath:${path}\r\n\r\n${body}`;
}

function audioFrame(bytes: Buffer, contentType: string | null = "audio/mpeg"): Buffer {
  const header = Buffer.from(
    `X-RequestId:0f00\r\n${contentType ? `Content-Type:${contentType}\r\n` : ""}X-StreamId:1\r\nPath:audio\r\n`,
  );
  const length = Buffer.alloc(2);
  length.writeUInt16BE(header.length);
  return Buffer.concat([length, header, bytes]);
}

/** Answers each SSML frame with the audio the spoken text names, the way the service does. */
function speakBack(socket: WebSocket): void {
  socket.send(textFrame("turn.start"));
  socket.send(textFrame("response"));
  socket.send(audioFrame(Buffer.from("mp3-part-1|")));
  socket.send(textFrame("audio.metadata", '{"Metadata":[]}'));
  socket.send(audioFrame(Buffer.from("mp3-part-2|")));
  socket.send(audioFrame(Buffer.alloc(0), null));
  socket.send(textFrame("turn.end"));
}

async function startEdge(
  onSsml: (socket: WebSocket, connection: EdgeConnection) => void,
  refuse?: (count: number) => string | undefined,
): Promise<EdgeServer> {
  const server: Server = createServer();
  const wss = new WebSocketServer({ noServer: true });
  const connections: EdgeConnection[] = [];
  server.on("upgrade", (req, socket, head) => {
    const connection = { url: new URL(req.url ?? "/", "http://edge"), headers: req.headers, frames: [] as string[] };
    connections.push(connection);
    const refusal = refuse?.(connections.length);
    if (refusal) {
      socket.end(refusal);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on("message", (data) => {
        connection.frames.push(String(data));
        if (connection.frames.length === 2) onSsml(ws, connection);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/consumer/speech/synthesize/readaloud/edge/v1`,
    connections,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test("Sec-MS-GEC is the token the Python edge-tts makes for the same moment", () => {
  const expected = "0C02B13E7FA30EC8CDBD5CB4386772E5541CD909ED9B0A7EF4E9D5AF42426E0D";
  assert.equal(secMsGec(Date.UTC(2030, 0, 1, 0, 0, 0)), expected);
  assert.equal(secMsGec(Date.UTC(2030, 0, 1, 0, 4, 59, 900)), expected, "one token per five minutes");
  assert.notEqual(secMsGec(Date.UTC(2030, 0, 1, 0, 5, 0)), expected);
});

test("edge: connects with the client token and GEC, sends speech.config then SSML, and saves the audio frames as MP3", async () => {
  const edge = await startEdge((socket) => speakBack(socket));
  try {
    const { registry, home } = toolWith({ env: () => ({ EDGE_TTS_URL: edge.url, PATH: "" }) });
    assert.equal(await registry.isAvailable("text_to_speech"), true);
    const before = Date.now();
    const result = await say(registry, { text: "Tom & Jerry <3 'quotes'" });
    const after = Date.now();
    assert.equal(result.success, true, JSON.stringify(result));
    assert.equal(result.provider, "edge");
    assert.equal(result.format, "mp3");
    const path = result.file_path as string;
    assert.ok(path.startsWith(join(home, "cache", "audio")) && path.endsWith(".mp3"), path);
    assert.equal(readFileSync(path, "utf8"), "mp3-part-1|mp3-part-2|");

    const [connection] = edge.connections;
    const query = connection!.url.searchParams;
    assert.equal(query.get("TrustedClientToken"), "6A5AA1D4EAFF4E9FB37E23D68491D6F4");
    assert.ok([secMsGec(before), secMsGec(after)].includes(query.get("Sec-MS-GEC") ?? ""));
    assert.match(query.get("Sec-MS-GEC-Version") ?? "", /^1-\d+\.\d+\.\d+\.\d+$/);
    assert.match(query.get("ConnectionId") ?? "", /^[0-9a-f]{32}$/);
    assert.equal(connection!.headers.origin, "chrome-extension://jdiccldimpdaibmpdkjnbmckianbfold");
    assert.match(String(connection!.headers.cookie), /^muid=[0-9A-F]{32};$/);

    const [config, ssml] = connection!.frames;
    assert.match(config!, /\r\nPath:speech\.config\r\n\r\n/);
    assert.match(config!, /"outputFormat":"audio-24khz-48kbitrate-mono-mp3"/);
    assert.match(ssml!, /^X-RequestId:[0-9a-f]{32}\r\nContent-Type:application\/ssml\+xml\r\n/);
    assert.match(ssml!, /\r\nPath:ssml\r\n\r\n<speak /);
    assert.match(ssml!, /<voice name='Microsoft Server Speech Text to Speech Voice \(en-US, AriaNeural\)'>/);
    assert.match(ssml!, />Tom &amp; Jerry &lt;3 &apos;quotes&apos;<\/prosody>/);
  } finally {
    await edge.close();
  }
});

test("edge: a voice argument is sent in the service's long form; a name that is no Edge voice is refused", async () => {
  const edge = await startEdge((socket) => speakBack(socket));
  try {
    const { registry } = toolWith({ env: () => ({ EDGE_TTS_URL: edge.url, PATH: "" }) });
    const result = await say(registry, { text: "Hello", voice: "en-GB-SoniaNeural" });
    assert.equal(result.success, true, JSON.stringify(result));
    assert.match(edge.connections[0]!.frames[1]!, /\(en-GB, SoniaNeural\)/);
    const bad = await say(registry, { text: "Hello", voice: "x' onload='1" });
    assert.match(String(bad.error), /is not an Edge voice name/);
    assert.equal(edge.connections.length, 1, "nothing was sent for the bad voice");
  } finally {
    await edge.close();
  }
});

test("edge: text longer than one SSML document goes over several connections, the audio joined in order", async () => {
  let n = 0;
  const edge = await startEdge((socket) => {
    n++;
    socket.send(audioFrame(Buffer.from(`piece-${n}|`)));
    socket.send(textFrame("turn.end"));
  });
  try {
    const { registry } = toolWith({ env: () => ({ EDGE_TTS_URL: edge.url, PATH: "" }) });
    const text = Array.from({ length: 1000 }, () => "R&D").join(" ");
    const result = await say(registry, { text });
    assert.equal(result.success, true, JSON.stringify(result));
    assert.equal(edge.connections.length, 2);
    assert.equal(readFileSync(result.file_path as string, "utf8"), "piece-1|piece-2|");
    const spoken = edge.connections.map((c) => /<prosody [^>]*>(.*)<\/prosody>/.exec(c.frames[1]!)![1]!);
    for (const piece of spoken) assert.ok(Buffer.byteLength(piece) <= MAX_SSML_TEXT_BYTES);
    assert.equal(spoken.join(" ").replaceAll("&amp;", "&"), text);
  } finally {
    await edge.close();
  }
});

test("edge: a service that closes before turn.end is a clear error and leaves no file", async () => {
  const edge = await startEdge((socket) => {
    socket.send(audioFrame(Buffer.from("half")));
    socket.close(1011, "internal error");
  });
  try {
    const { registry, home } = toolWith({ env: () => ({ EDGE_TTS_URL: edge.url, PATH: "" }) });
    const result = await say(registry, { text: "Hello" });
    assert.equal(result.success, false);
    assert.match(String(result.error), /closed the connection before the audio was complete \(code 1011\)/);
    assert.deepEqual(audioFiles(home), []);
  } finally {
    await edge.close();
  }
});

test("edge: a turn that ends without audio, and a refused connection, are clear errors", async () => {
  const silent = await startEdge((socket) => socket.send(textFrame("turn.end")));
  try {
    const { registry } = toolWith({ env: () => ({ EDGE_TTS_URL: silent.url }) });
    const result = await say(registry, { text: "Hello" });
    assert.match(String(result.error), /finished without sending any audio/);
  } finally {
    await silent.close();
  }
  const refusing = await startEdge(
    () => undefined,
    () => "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
  );
  try {
    const { registry } = toolWith({ env: () => ({ EDGE_TTS_URL: refusing.url }) });
    const result = await say(registry, { text: "Hello" });
    assert.match(String(result.error), /refused the connection \(HTTP 429\)/);
  } finally {
    await refusing.close();
  }
});

// Last in the file: it teaches the module the fake server's clock, which later Edge calls in this process would use.
test("edge: a 403 carrying the service's clock is tried once more with a token made on that clock", async () => {
  const serverTime = Date.UTC(2031, 4, 6, 7, 2, 0);
  const edge = await startEdge(
    (socket) => speakBack(socket),
    (count) =>
      count === 1
        ? `HTTP/1.1 403 Forbidden\r\nDate: ${new Date(serverTime).toUTCString()}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`
        : undefined,
  );
  try {
    const { registry } = toolWith({ env: () => ({ EDGE_TTS_URL: edge.url, PATH: "" }) });
    const result = await say(registry, { text: "Hello" });
    assert.equal(result.success, true, JSON.stringify(result));
    assert.equal(edge.connections.length, 2);
    assert.equal(edge.connections[1]!.url.searchParams.get("Sec-MS-GEC"), secMsGec(serverTime));
  } finally {
    await edge.close();
  }
});

test("edge: with ffmpeg on PATH the MP3 becomes an Ogg/Opus file (a voice note on Telegram); without it the MP3 stays", async () => {
  const edge = await startEdge((socket) => speakBack(socket));
  const bin = tempDir("hermes-tts-bin-");
  // A stand-in ffmpeg: writes an Ogg header and the input's bytes to its last argument.
  writeFileSync(
    join(bin, "ffmpeg"),
    '#!/bin/sh\nfor last; do :; done\nin=""\nwhile [ $# -gt 0 ]; do [ "$1" = "-i" ] && in="$2"; shift; done\n' +
      '{ printf "OggS"; cat "$in"; } > "$last"\n',
  );
  chmodSync(join(bin, "ffmpeg"), 0o755);
  try {
    const { registry, home } = toolWith({
      env: () => ({ EDGE_TTS_URL: edge.url, PATH: `${bin}:${process.env.PATH}` }),
    });
    const result = await say(registry, { text: "hello there" });
    assert.equal(result.success, true, JSON.stringify(result));
    assert.equal(result.format, "ogg/opus");
    const path = result.file_path as string;
    assert.ok(path.endsWith(".ogg"), path);
    assert.equal(readFileSync(path, "latin1"), "OggSmp3-part-1|mp3-part-2|");
    assert.deepEqual(audioFiles(home), [basename(path)], "the MP3 is removed");
    const explicit = await say(registry, { text: "hello there", output_path: join(home, "kept.mp3") });
    assert.equal(explicit.format, "mp3", "a path asked for as .mp3 stays MP3");
  } finally {
    await edge.close();
  }
});
