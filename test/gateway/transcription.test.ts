import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { localCommand, MAX_UPLOAD_BYTES, transcribe } from "../../src/gateway/transcription.js";
import { tempDir } from "../state/temp-dir.js";
import { modelRequests, startGateway } from "./harness.js";

interface Upload {
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A transcription endpoint: answers each upload with `reply(upload)`. */
let uploads: Upload[] = [];
let reply: (upload: Upload) => { status: number; body: string } = () => ({ status: 200, body: '{"text":"hi"}' });
let base = "";
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const upload = { url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) };
    uploads.push(upload);
    const answer = reply(upload);
    res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
  });
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const dir = tempDir("hermes-stt-");
const voice = join(dir, "voice.ogg");
writeFileSync(voice, Buffer.from("OggS fake opus bytes"));
const settings = { provider: "openai", localModel: "base", localLanguage: "", openaiModel: "whisper-1" };

test("openai: the recording goes up as multipart with the model and the key, and the reply's text comes back", async () => {
  uploads = [];
  reply = () => ({ status: 200, body: '{"text":"  book the 9:40 train  "}' });
  const heard = await transcribe(voice, settings, { VOICE_TOOLS_OPENAI_KEY: "vk-1", STT_OPENAI_BASE_URL: base });
  assert.deepEqual(heard, { text: "book the 9:40 train" });
  const [upload] = uploads;
  assert.equal(upload!.url, "/v1/audio/transcriptions");
  assert.equal(upload!.headers.authorization, "Bearer vk-1");
  assert.match(String(upload!.headers["content-type"]), /^multipart\/form-data; boundary=/);
  const body = upload!.body.toString("latin1");
  assert.match(body, /name="model"\r\n\r\nwhisper-1\r\n/);
  assert.match(
    body,
    /name="file"; filename="voice.ogg"\r\nContent-Type: application\/octet-stream\r\n\r\nOggS fake opus bytes\r\n/,
  );
});

test("a refusal, a missing key, an unknown provider and an oversized file each give a reason, not a transcript", async () => {
  uploads = [];
  reply = () => ({ status: 401, body: '{"error":{"message":"bad key"}}' });
  const refused = await transcribe(voice, settings, { OPENAI_API_KEY: "wrong", STT_OPENAI_BASE_URL: base });
  assert.match("error" in refused ? refused.error : "", /openai answered 401: .*bad key/);
  assert.deepEqual(await transcribe(voice, settings, {}), {
    error: "stt.provider openai needs VOICE_TOOLS_OPENAI_KEY (or OPENAI_API_KEY)",
  });
  const unknown = await transcribe(voice, { ...settings, provider: "deepinfra" }, {});
  assert.match("error" in unknown ? unknown.error : "", /deepinfra is not available here/);
  const big = join(dir, "long.ogg");
  writeFileSync(big, Buffer.alloc(MAX_UPLOAD_BYTES + 1));
  const tooBig = await transcribe(big, settings, { OPENAI_API_KEY: "k", STT_OPENAI_BASE_URL: base });
  assert.match("error" in tooBig ? tooBig.error : "", /at most 26214400/);
  assert.equal(uploads.length, 1, "only the refused upload reached the endpoint");
});

/** A stand-in for the whisper CLI: writes `<stem>.txt` with what it was asked, into --output_dir. */
function fakeWhisper(): string {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  const script = join(bin, "whisper");
  writeFileSync(
    script,
    [
      "#!/bin/bash",
      'input=$1; shift; out=""; model=""; lang=""',
      "while [ $# -gt 0 ]; do case $1 in --output_dir) out=$2; shift;; --model) model=$2; shift;; --language) lang=$2; shift;; esac; shift; done",
      'stem=$(basename "$input"); stem=${stem%.*}',
      'printf "heard %s with %s in %s\\n" "$(cat "$input")" "$model" "$lang" > "$out/$stem.txt"',
    ].join("\n"),
  );
  chmodSync(script, 0o755);
  return bin;
}

test("local: the whisper CLI on PATH writes the transcript; hosted model names fall back to its default size", async () => {
  const bin = fakeWhisper();
  assert.match(localCommand({ PATH: bin }) ?? "", /whisper' \{input_path\} --model \{model\}/);
  const heard = await transcribe(
    voice,
    { ...settings, provider: "local", localModel: "whisper-1", localLanguage: "de" },
    { PATH: `${bin}:/usr/bin:/bin` },
  );
  assert.deepEqual(heard, { text: "heard OggS fake opus bytes with base in de" });
});

test("local: HERMES_LOCAL_STT_COMMAND wins, its failure is reported; with no command a hosted key steps in", async () => {
  const custom = await transcribe(
    voice,
    { ...settings, provider: "local", localModel: "small" },
    { HERMES_LOCAL_STT_COMMAND: "echo from {model} > {output_dir}/out.txt", PATH: "/usr/bin:/bin" },
  );
  assert.deepEqual(custom, { text: "from small" });
  const failing = await transcribe(
    voice,
    { ...settings, provider: "local" },
    { HERMES_LOCAL_STT_COMMAND: "echo no model here >&2; exit 3", PATH: "/usr/bin:/bin" },
  );
  assert.match("error" in failing ? failing.error : "", /failed \(exit 3\): no model here/);

  uploads = [];
  reply = () => ({ status: 200, body: '{"text":"via groq"}' });
  const stepIn = await transcribe(
    voice,
    { ...settings, provider: "local" },
    {
      PATH: "/nonexistent",
      GROQ_API_KEY: "gk",
      GROQ_BASE_URL: base,
    },
  );
  assert.deepEqual(stepIn, { text: "via groq" });
  assert.match(uploads[0]!.body.toString("latin1"), /whisper-large-v3-turbo/);
  const none = await transcribe(voice, { ...settings, provider: "local" }, { PATH: "/nonexistent" });
  assert.match("error" in none ? none.error : "", /no speech-to-text here/);
});

test("through the gateway: a voice message reaches the model as its transcript", async () => {
  uploads = [];
  reply = () => ({ status: 200, body: '{"text":"remind me to call the plumber"}' });
  const saved = { key: process.env.VOICE_TOOLS_OPENAI_KEY, url: process.env.STT_OPENAI_BASE_URL };
  process.env.VOICE_TOOLS_OPENAI_KEY = "vk-gw";
  process.env.STT_OPENAI_BASE_URL = base;
  const gw = await startGateway({
    adapter: () => new TestAdapter(),
    config: "stt:\n  provider: openai\n",
    provider: { fallback: { text: "noted" } },
  });
  try {
    gw.adapter.inject({
      messageId: "1",
      text: "",
      attachments: [{ kind: "audio", url: voice, name: "voice.ogg", mimeType: "audio/ogg" }],
    });
    await gw.adapter.waitForText(/^noted$/);
    const messages = modelRequests(gw.fake)[0]!.body.messages as Array<{ role: string; content: string }>;
    assert.equal(
      messages.at(-1)!.content,
      `[Voice message (saved at ${voice}), transcribed:] remind me to call the plumber`,
    );
  } finally {
    await gw.close();
    if (saved.key === undefined) delete process.env.VOICE_TOOLS_OPENAI_KEY;
    else process.env.VOICE_TOOLS_OPENAI_KEY = saved.key;
    if (saved.url === undefined) delete process.env.STT_OPENAI_BASE_URL;
    else process.env.STT_OPENAI_BASE_URL = saved.url;
  }
});
