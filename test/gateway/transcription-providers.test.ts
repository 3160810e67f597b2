import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { type SttSettings, transcribe } from "../../src/gateway/transcription.js";
import { tempDir } from "../state/temp-dir.js";
import { modelRequests, startGateway } from "./harness.js";

interface Upload {
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A stand-in for Mistral's and ElevenLabs' transcription endpoints. */
let uploads: Upload[] = [];
let reply: (upload: Upload) => { status: number; body: string } | "hang" = () => ({ status: 200, body: '{"text":""}' });
let base = "";
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const upload = { url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) };
    uploads.push(upload);
    const answer = reply(upload);
    if (answer === "hang") return;
    res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
  });
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const dir = tempDir("hermes-stt-providers-");
const voice = join(dir, "note.ogg");
writeFileSync(voice, Buffer.from("OggS voice note bytes"));
const settings: SttSettings = { provider: "mistral", localModel: "base", localLanguage: "", openaiModel: "whisper-1" };
const mistralEnv = () => ({ MISTRAL_API_KEY: "ms-stt-0007", MISTRAL_BASE_URL: `${base}/v1` });
const elevenEnv = () => ({ ELEVENLABS_API_KEY: "el-stt-0008", ELEVENLABS_BASE_URL: base });

/** The multipart form's text fields, by name, and the file part's name and bytes. */
function form(upload: Upload): { fields: Record<string, string>; fileName?: string; file?: string } {
  const type = String(upload.headers["content-type"]);
  const boundary = /boundary=(.+)$/.exec(type)?.[1];
  assert.ok(boundary, type);
  const fields: Record<string, string> = {};
  const out: { fields: Record<string, string>; fileName?: string; file?: string } = { fields };
  for (const part of upload.body.toString("latin1").split(`--${boundary}`)) {
    const match =
      /^\r\nContent-Disposition: form-data; name="([^"]+)"(?:; filename="([^"]+)")?\r\n(?:[^\r\n]+\r\n)*\r\n([\s\S]*)\r\n$/.exec(
        part,
      );
    if (!match) continue;
    const [, name, fileName, value] = match as unknown as [string, string, string | undefined, string];
    if (fileName) {
      out.fileName = fileName;
      out.file = value;
    } else fields[name] = value;
  }
  return out;
}

test("mistral: the recording goes to /audio/transcriptions with a bearer key and the Voxtral model; the reply's text comes back", async () => {
  uploads = [];
  reply = () => ({
    status: 200,
    body: '{"model":"voxtral-mini-latest","text":"  on se voit demain  ","language":"fr"}',
  });
  const heard = await transcribe(voice, settings, mistralEnv());
  assert.deepEqual(heard, { text: "on se voit demain" });
  const [upload] = uploads;
  assert.equal(upload!.url, "/v1/audio/transcriptions");
  assert.equal(upload!.headers.authorization, "Bearer ms-stt-0007");
  assert.deepEqual(form(upload!), {
    fields: { model: "voxtral-mini-latest" },
    fileName: "note.ogg",
    file: "OggS voice note bytes",
  });

  uploads = [];
  reply = () => ({ status: 200, body: '{"text":"ok"}' });
  await transcribe(voice, { ...settings, mistralModel: "voxtral-small-latest" }, mistralEnv());
  assert.deepEqual(form(uploads[0]!).fields, { model: "voxtral-small-latest" });
});

test("elevenlabs: /v1/speech-to-text with xi-api-key and model_id, language_code, tag_audio_events and diarize as configured", async () => {
  uploads = [];
  reply = () => ({
    status: 200,
    body: JSON.stringify({
      language_code: "eng",
      language_probability: 0.98,
      text: "Meet me at noon. (laughs)",
      words: [{ text: "Meet", start: 0, end: 0.3, type: "word", speaker_id: "speaker_0" }],
    }),
  });
  const eleven: SttSettings = {
    ...settings,
    provider: "elevenlabs",
    elevenlabsModelId: "scribe_v1",
    elevenlabsLanguageCode: "eng",
    elevenlabsTagAudioEvents: true,
    elevenlabsDiarize: true,
  };
  assert.deepEqual(await transcribe(voice, eleven, elevenEnv()), { text: "Meet me at noon. (laughs)" });
  const [upload] = uploads;
  assert.equal(upload!.url, "/v1/speech-to-text");
  assert.equal(upload!.headers["xi-api-key"], "el-stt-0008");
  assert.equal(upload!.headers.authorization, undefined);
  assert.deepEqual(form(upload!), {
    fields: { model_id: "scribe_v1", language_code: "eng", tag_audio_events: "true", diarize: "true" },
    fileName: "note.ogg",
    file: "OggS voice note bytes",
  });

  uploads = [];
  await transcribe(voice, { ...settings, provider: "elevenlabs" }, elevenEnv());
  assert.deepEqual(
    form(uploads[0]!).fields,
    { model_id: "scribe_v2", tag_audio_events: "false", diarize: "false" },
    "the defaults, and no language_code when none is set (the service detects it)",
  );
});

test("missing keys name the variable to set, and nothing is uploaded", async () => {
  uploads = [];
  assert.deepEqual(await transcribe(voice, settings, {}), { error: "stt.provider mistral needs MISTRAL_API_KEY" });
  assert.deepEqual(await transcribe(voice, { ...settings, provider: "elevenlabs" }, {}), {
    error: "stt.provider elevenlabs needs ELEVENLABS_API_KEY",
  });
  assert.equal(uploads.length, 0);
});

test("a refused key, a rate limit, a 5xx and a reply that is not JSON are reasons without the key", async () => {
  const error = async (env: Record<string, string>, provider = "mistral") => {
    const heard = await transcribe(voice, { ...settings, provider }, env);
    assert.ok("error" in heard, JSON.stringify(heard));
    return heard.error;
  };
  reply = () => ({ status: 401, body: '{"detail":{"message":"Invalid API key: el-stt-0008"}}' });
  const refused = await error(elevenEnv(), "elevenlabs");
  assert.match(refused, /^elevenlabs answered 401: .*Invalid API key.* \(the API key was refused: check it\)$/);
  assert.doesNotMatch(refused, /el-stt-0008/);

  reply = () => ({ status: 401, body: '{"message":"Unauthorized","key":"ms-stt-0007"}' });
  assert.doesNotMatch(await error(mistralEnv()), /ms-stt-0007/);
  reply = () => ({ status: 429, body: '{"message":"Requests rate limit exceeded"}' });
  assert.match(await error(mistralEnv()), /mistral answered 429: .* \(rate limited or out of credits/);
  reply = () => ({ status: 502, body: "bad gateway" });
  assert.match(await error(mistralEnv()), /mistral answered 502: bad gateway \(a problem on the service's side/);
  reply = () => ({ status: 200, body: "<html>captive portal</html>" });
  assert.match(await error(mistralEnv()), /mistral answered something that is not JSON: <html>captive portal/);
});

test("an unreachable service and an interrupted upload are reasons, not transcripts", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const gone = await transcribe(voice, settings, {
    MISTRAL_API_KEY: "ms-stt-0007",
    MISTRAL_BASE_URL: `http://127.0.0.1:${port}`,
  });
  assert.match("error" in gone ? gone.error : "", /^could not reach mistral: /);
  assert.doesNotMatch(JSON.stringify(gone), /ms-stt-0007/);

  const stop = new AbortController();
  uploads = [];
  reply = () => {
    stop.abort();
    return "hang";
  };
  const interrupted = await transcribe(voice, { ...settings, provider: "elevenlabs" }, elevenEnv(), stop.signal);
  assert.deepEqual(interrupted, { error: "the transcription by elevenlabs was interrupted" });
  assert.equal(uploads.length, 1);
});

test("through the gateway: stt.elevenlabs.* from config.yaml shapes the upload, and the transcript reaches the model", async () => {
  uploads = [];
  reply = () => ({ status: 200, body: '{"text":"book a table for two"}' });
  const saved = { key: process.env.ELEVENLABS_API_KEY, url: process.env.ELEVENLABS_BASE_URL };
  process.env.ELEVENLABS_API_KEY = "el-gw";
  process.env.ELEVENLABS_BASE_URL = base;
  const gw = await startGateway({
    adapter: () => new TestAdapter(),
    config: "stt:\n  provider: elevenlabs\n  elevenlabs:\n    language_code: deu\n    diarize: true\n",
    provider: { fallback: { text: "done" } },
  });
  try {
    gw.adapter.inject({
      messageId: "1",
      text: "",
      attachments: [{ kind: "audio", url: voice, name: "note.ogg", mimeType: "audio/ogg" }],
    });
    await gw.adapter.waitForText(/^done$/);
    assert.equal(uploads[0]!.headers["xi-api-key"], "el-gw");
    assert.deepEqual(form(uploads[0]!).fields, {
      model_id: "scribe_v2",
      language_code: "deu",
      tag_audio_events: "false",
      diarize: "true",
    });
    const messages = modelRequests(gw.fake)[0]!.body.messages as Array<{ role: string; content: string }>;
    assert.equal(messages.at(-1)!.content, `[Voice message (saved at ${voice}), transcribed:] book a table for two`);
  } finally {
    await gw.close();
    if (saved.key === undefined) delete process.env.ELEVENLABS_API_KEY;
    else process.env.ELEVENLABS_API_KEY = saved.key;
    if (saved.url === undefined) delete process.env.ELEVENLABS_BASE_URL;
    else process.env.ELEVENLABS_BASE_URL = saved.url;
  }
});
