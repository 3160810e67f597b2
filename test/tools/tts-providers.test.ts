import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { registerTtsTools, type TtsToolOptions } from "../../src/tools/builtin/tts.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { speak } from "../../src/tools/tts/synthesize.js";
import { DEFAULT_TTS_SETTINGS, type Env } from "../../src/tools/tts/types.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { tempDir } from "../state/temp-dir.js";
import { callTool, makeContext } from "./tool-harness.js";

// ---- one local server standing in for Gemini, xAI and Mistral ----

interface Posted {
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

type Reply = { status: number; body: Buffer | string; type?: string } | "hang";
let posts: Posted[] = [];
let answer: (post: Posted) => Reply = () => ({ status: 500, body: "no answer set" });
let base = "";

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const post = {
      url: req.url ?? "",
      headers: req.headers,
      body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>,
    };
    posts.push(post);
    const reply = answer(post);
    if (reply === "hang") return;
    res.writeHead(reply.status, { "content-type": reply.type ?? "application/json" }).end(reply.body);
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

/** A stand-in ffmpeg: writes "OggS" and the input's bytes to its last argument. */
function fakeFfmpegDir(): string {
  const bin = tempDir("hermes-tts-bin-");
  writeFileSync(
    join(bin, "ffmpeg"),
    '#!/bin/sh\nfor last; do :; done\nin=""\nwhile [ $# -gt 0 ]; do [ "$1" = "-i" ] && in="$2"; shift; done\n' +
      '{ printf "OggS"; cat "$in"; } > "$last"\n',
  );
  chmodSync(join(bin, "ffmpeg"), 0o755);
  return bin;
}

/** The fields of a canonical 44-byte WAV header. */
function wavHeader(file: Buffer) {
  return {
    riff: file.toString("ascii", 0, 4),
    riffSize: file.readUInt32LE(4),
    wave: file.toString("ascii", 8, 12),
    fmt: file.toString("ascii", 12, 16),
    fmtSize: file.readUInt32LE(16),
    audioFormat: file.readUInt16LE(20),
    channels: file.readUInt16LE(22),
    sampleRate: file.readUInt32LE(24),
    byteRate: file.readUInt32LE(28),
    blockAlign: file.readUInt16LE(32),
    bitsPerSample: file.readUInt16LE(34),
    data: file.toString("ascii", 36, 40),
    dataSize: file.readUInt32LE(40),
  };
}

// ---- Gemini ----

const PCM = Buffer.from([0x00, 0x00, 0xff, 0x7f, 0x01, 0x80, 0x10, 0x00, 0x20, 0x00, 0x30, 0x00]);
const geminiAudio = (pcm = PCM, mimeType = "audio/L16;codec=pcm;rate=24000"): Reply => ({
  status: 200,
  body: JSON.stringify({
    candidates: [
      {
        content: { role: "model", parts: [{ inlineData: { mimeType, data: pcm.toString("base64") } }] },
        finishReason: "STOP",
      },
    ],
  }),
});
const geminiEnv =
  (extra: Env = {}) =>
  () => ({
    GEMINI_API_KEY: "gm-secret-0003",
    GEMINI_BASE_URL: `${base}/v1beta`,
    PATH: "",
    ...extra,
  });

test("gemini: generateContent with the key in x-goog-api-key, AUDIO and the prebuilt voice; the PCM is saved as a correct WAV", async () => {
  posts = [];
  answer = () => geminiAudio();
  const { registry, home } = toolWith({ settings: { provider: "gemini" }, env: geminiEnv() });
  assert.equal(await registry.isAvailable("text_to_speech"), true);
  const result = await say(registry, { text: "Your parcel has arrived." });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.provider, "gemini");
  assert.equal(result.format, "wav");
  const path = String(result.file_path);
  assert.ok(path.startsWith(join(home, "cache", "audio", "tts_")) && path.endsWith(".wav"), path);

  const file = readFileSync(path);
  assert.equal(file.length, 44 + PCM.length);
  assert.deepEqual(wavHeader(file), {
    riff: "RIFF",
    riffSize: 36 + PCM.length,
    wave: "WAVE",
    fmt: "fmt ",
    fmtSize: 16,
    audioFormat: 1,
    channels: 1,
    sampleRate: 24000,
    byteRate: 48000,
    blockAlign: 2,
    bitsPerSample: 16,
    data: "data",
    dataSize: PCM.length,
  });
  assert.deepEqual(file.subarray(44), PCM);

  const [post] = posts;
  assert.equal(post!.url, "/v1beta/models/gemini-2.5-flash-preview-tts:generateContent");
  assert.equal(post!.headers["x-goog-api-key"], "gm-secret-0003");
  assert.equal(post!.headers.authorization, undefined);
  assert.deepEqual(post!.body, {
    contents: [{ role: "user", parts: [{ text: "Your parcel has arrived." }] }],
    generationConfig: {
      responseModalities: ["AUDIO"],
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: "Kore" } } },
    },
  });
  assert.doesNotMatch(JSON.stringify(result), /gm-secret-0003/);
});

test("gemini: GOOGLE_API_KEY serves when GEMINI_API_KEY is absent; the rate in the mime type is honoured; a chat base URL's /openai is dropped", async () => {
  posts = [];
  answer = () => geminiAudio(PCM, "audio/L16;codec=pcm;rate=16000");
  const { registry } = toolWith({
    settings: { provider: "gemini", geminiModel: "gemini-2.5-pro-preview-tts", geminiVoice: "Puck" },
    env: () => ({ GOOGLE_API_KEY: "gg-secret-0004", GEMINI_BASE_URL: `${base}/v1beta/openai/`, PATH: "" }),
  });
  assert.equal(await registry.isAvailable("text_to_speech"), true);
  const result = await say(registry, { text: "Hello", voice: "Charon" });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(posts[0]!.url, "/v1beta/models/gemini-2.5-pro-preview-tts:generateContent");
  assert.equal(posts[0]!.headers["x-goog-api-key"], "gg-secret-0004");
  const config = posts[0]!.body.generationConfig as { speechConfig: { voiceConfig: unknown } };
  assert.deepEqual(config.speechConfig.voiceConfig, { prebuiltVoiceConfig: { voiceName: "Charon" } });
  const header = wavHeader(readFileSync(String(result.file_path)));
  assert.equal(header.sampleRate, 16000);
  assert.equal(header.byteRate, 32000);
});

test("gemini: [bracketed] audio tags are taken out unless tts.gemini.audio_tags is true", async () => {
  answer = () => geminiAudio();
  const text = "Well [laughs] that is odd [short pause], see note [1].";
  posts = [];
  const stripped = toolWith({ settings: { provider: "gemini" }, env: geminiEnv() }).registry;
  assert.equal((await say(stripped, { text })).success, true);
  const sent = (posts[0]!.body.contents as { parts: { text: string }[] }[])[0]!.parts[0]!.text;
  assert.equal(sent, "Well that is odd, see note [1].");

  posts = [];
  const kept = toolWith({ settings: { provider: "gemini", geminiAudioTags: true }, env: geminiEnv() }).registry;
  assert.equal((await say(kept, { text })).success, true);
  assert.equal((posts[0]!.body.contents as { parts: { text: string }[] }[])[0]!.parts[0]!.text, text);

  posts = [];
  const onlyTags = await say(stripped, { text: "[laughs] [sighs]" });
  assert.equal(onlyTags.success, false);
  assert.match(String(onlyTags.error), /no text to speak once the \[bracketed\] audio tags are taken out/);
  assert.equal(posts.length, 0);
});

test("gemini: the persona prompt file is read at each call and goes first; a missing one is a clear error", async () => {
  answer = () => geminiAudio();
  const dir = tempDir("hermes-tts-persona-");
  const persona = join(dir, "persona.txt");
  writeFileSync(persona, "Speak like a calm late-night radio host.\n");
  const { registry } = toolWith({
    settings: { provider: "gemini", geminiPersonaPromptFile: persona },
    env: geminiEnv(),
  });
  const spoken = () => (posts.at(-1)!.body.contents as { parts: { text: string }[] }[])[0]!.parts[0]!.text;
  posts = [];
  assert.equal((await say(registry, { text: "Good evening." })).success, true);
  assert.equal(spoken(), "Speak like a calm late-night radio host.\n\nGood evening.");
  writeFileSync(persona, "Whisper.");
  assert.equal((await say(registry, { text: "Good evening." })).success, true);
  assert.equal(spoken(), "Whisper.\n\nGood evening.", "the edited file applies to the next call");

  posts = [];
  const missing = toolWith({
    settings: { provider: "gemini", geminiPersonaPromptFile: join(dir, "gone.txt") },
    env: geminiEnv(),
  }).registry;
  const result = await say(missing, { text: "Hello" });
  assert.equal(result.success, false);
  assert.match(String(result.error), /tts\.gemini\.persona_prompt_file .*gone\.txt could not be read \(ENOENT\)/);
  assert.equal(posts.length, 0);
});

test("gemini: no key, a refused key, a rate limit, a 5xx and a reply without audio are clear errors without the key", async () => {
  posts = [];
  const keyless = toolWith({ settings: { provider: "gemini" }, env: () => ({ GEMINI_BASE_URL: base }) }).registry;
  assert.equal(await keyless.isAvailable("text_to_speech"), false);
  assert.match(String((await say(keyless, { text: "Hi" })).error), /needs GEMINI_API_KEY \(or GOOGLE_API_KEY\)/);
  assert.equal(posts.length, 0);

  const { registry, home } = toolWith({ settings: { provider: "gemini" }, env: geminiEnv() });
  answer = () => ({ status: 400, body: '{"error":{"message":"API key not valid: gm-secret-0003"}}' });
  const refused = await say(registry, { text: "Hi" });
  assert.match(String(refused.error), /Gemini answered HTTP 400/);
  assert.doesNotMatch(JSON.stringify(refused), /gm-secret-0003/);
  answer = () => ({ status: 403, body: '{"error":{"status":"PERMISSION_DENIED"}}' });
  assert.match(String((await say(registry, { text: "Hi" })).error), /HTTP 403 \(the API key was refused/);
  answer = () => ({ status: 429, body: '{"error":{"status":"RESOURCE_EXHAUSTED"}}' });
  assert.match(String((await say(registry, { text: "Hi" })).error), /HTTP 429 \(rate limited/);
  answer = () => ({ status: 503, body: '{"error":{"status":"UNAVAILABLE"}}' });
  assert.match(String((await say(registry, { text: "Hi" })).error), /HTTP 503 \(a problem on the service's side/);
  answer = () => ({ status: 200, body: JSON.stringify({ candidates: [{ finishReason: "OTHER", content: {} }] }) });
  assert.match(String((await say(registry, { text: "Hi" })).error), /Gemini answered without audio \(OTHER\)/);
  answer = () => ({ status: 200, body: "<html>proxy login</html>", type: "text/html" });
  assert.match(String((await say(registry, { text: "Hi" })).error), /not JSON where speech was expected/);
  assert.deepEqual(audioFiles(home), []);
});

test("gemini: with ffmpeg on PATH the WAV becomes Ogg/Opus; an output path ending in .wav stays WAV", async () => {
  answer = () => geminiAudio();
  const bin = fakeFfmpegDir();
  const { registry, home } = toolWith({
    settings: { provider: "gemini" },
    env: geminiEnv({ PATH: `${bin}:${process.env.PATH}` }),
  });
  const result = await say(registry, { text: "Hello" });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.format, "ogg/opus");
  const ogg = readFileSync(String(result.file_path));
  assert.equal(ogg.toString("latin1", 0, 8), "OggSRIFF", "ffmpeg was given the WAV");
  assert.deepEqual(audioFiles(home), [String(result.file_path).split("/").at(-1)], "the WAV is removed");

  const cwd = tempDir("hermes-tts-cwd-");
  const wav = await say(registry, { text: "Hello", output_path: "keep.wav" }, cwd);
  assert.equal(wav.format, "wav");
  assert.equal(wav.file_path, join(cwd, "keep.wav"));
  assert.equal(readFileSync(join(cwd, "keep.wav")).toString("ascii", 0, 4), "RIFF");
});

test("a hosted provider that does not answer within the time limit is a clear error", async () => {
  posts = [];
  answer = () => "hang";
  const result = await speak({
    text: "Hello",
    outputDir: tempDir("hermes-tts-out-"),
    settings: { ...DEFAULT_TTS_SETTINGS, provider: "gemini" },
    env: geminiEnv()(),
    timeoutMs: 200,
  });
  assert.equal(result.ok, false);
  assert.match(result.ok ? "" : result.error, /^gemini gave no audio within \d+s; try again later$/);
  assert.equal(posts.length, 1);
});

// ---- xAI ----

const MP3 = Buffer.from("ID3 fake xai mp3");
const xaiEnv = () => ({ XAI_API_KEY: "xai-secret-0005", XAI_BASE_URL: `${base}/v1`, PATH: "" });

test("xai: posts text, voice_id, language and the MP3 output format to /tts with a bearer key; the bytes are the file", async () => {
  posts = [];
  answer = () => ({ status: 200, body: MP3, type: "audio/mpeg" });
  const { registry } = toolWith({
    settings: { provider: "xai", xaiVoiceId: "eve", xaiLanguage: "de", xaiSampleRate: 44100, xaiBitRate: 192000 },
    env: xaiEnv,
  });
  assert.equal(await registry.isAvailable("text_to_speech"), true);
  const result = await say(registry, { text: "Guten Tag" });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.format, "mp3");
  assert.deepEqual(readFileSync(String(result.file_path)), MP3);
  const [post] = posts;
  assert.equal(post!.url, "/v1/tts");
  assert.equal(post!.headers.authorization, "Bearer xai-secret-0005");
  assert.deepEqual(post!.body, {
    text: "Guten Tag",
    voice_id: "eve",
    language: "de",
    output_format: { codec: "mp3", sample_rate: 44100, bit_rate: 192000 },
  });

  posts = [];
  const cwd = tempDir("hermes-tts-cwd-");
  const wav = await say(registry, { text: "Hallo", voice: "rex", output_path: "x.wav" }, cwd);
  assert.equal(wav.format, "wav");
  assert.deepEqual(posts[0]!.body.output_format, { codec: "wav", sample_rate: 44100 });
  assert.equal(posts[0]!.body.voice_id, "rex");
});

test("xai: without XAI_API_KEY the tool is not offered; a refused key is an error without it", async () => {
  posts = [];
  const keyless = toolWith({ settings: { provider: "xai" }, env: () => ({}) }).registry;
  assert.equal(await keyless.isAvailable("text_to_speech"), false);
  assert.match(String((await say(keyless, { text: "Hi" })).error), /tts\.provider xai needs XAI_API_KEY/);
  assert.equal(posts.length, 0);
  answer = () => ({ status: 401, body: '{"error":"Incorrect API key provided: xai-secret-0005"}' });
  const refused = await say(toolWith({ settings: { provider: "xai" }, env: xaiEnv }).registry, { text: "Hi" });
  assert.match(String(refused.error), /xAI speech answered HTTP 401 \(the API key was refused/);
  assert.doesNotMatch(JSON.stringify(refused), /xai-secret-0005/);
});

// ---- Mistral ----

const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(24), Buffer.from("OpusHead mistral")]);
const mistralEnv = () => ({ MISTRAL_API_KEY: "ms-secret-0006", MISTRAL_BASE_URL: `${base}/v1`, PATH: "" });

test("mistral: posts model, input, voice_id and opus to /audio/speech; the base64 audio_data is decoded into the file", async () => {
  posts = [];
  answer = () => ({ status: 200, body: JSON.stringify({ audio_data: OGG.toString("base64") }) });
  const { registry } = toolWith({ settings: { provider: "mistral" }, env: mistralEnv });
  assert.equal(await registry.isAvailable("text_to_speech"), true);
  const result = await say(registry, { text: "Bonjour" });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.format, "ogg/opus");
  assert.ok(String(result.file_path).endsWith(".ogg"));
  assert.deepEqual(readFileSync(String(result.file_path)), OGG);
  const [post] = posts;
  assert.equal(post!.url, "/v1/audio/speech");
  assert.equal(post!.headers.authorization, "Bearer ms-secret-0006");
  assert.deepEqual(post!.body, {
    model: "voxtral-mini-tts-2603",
    input: "Bonjour",
    voice_id: "c69964a6-ab8b-4f8a-9465-ec0925096ec8",
    response_format: "opus",
  });

  posts = [];
  const mp3 = await say(registry, { text: "Salut", output_path: join(tempDir("hermes-tts-out-"), "s.mp3") });
  assert.equal(mp3.success, true);
  assert.equal(posts[0]!.body.response_format, "mp3");
});

test("mistral: no key, a refused key, and a reply without audio_data are clear errors", async () => {
  posts = [];
  const keyless = toolWith({ settings: { provider: "mistral" }, env: () => ({}) }).registry;
  assert.equal(await keyless.isAvailable("text_to_speech"), false);
  assert.match(String((await say(keyless, { text: "Hi" })).error), /needs MISTRAL_API_KEY/);
  assert.equal(posts.length, 0);
  const { registry, home } = toolWith({ settings: { provider: "mistral" }, env: mistralEnv });
  answer = () => ({ status: 401, body: '{"message":"Unauthorized ms-secret-0006"}' });
  const refused = await say(registry, { text: "Hi" });
  assert.match(String(refused.error), /Mistral speech answered HTTP 401/);
  assert.doesNotMatch(JSON.stringify(refused), /ms-secret-0006/);
  answer = () => ({ status: 200, body: '{"audio_data":""}' });
  assert.match(String((await say(registry, { text: "Hi" })).error), /Mistral answered without audio_data/);
  assert.deepEqual(audioFiles(home), []);
});

// ---- piper ----

/** The WAV the stand-in piper writes: a 44-byte header and four bytes of samples. */
const PIPER_WAV = Buffer.concat([
  Buffer.from("RIFF"),
  Buffer.from([40, 0, 0, 0]),
  Buffer.from("WAVEfmt "),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x22, 0x56, 0, 0, 0x44, 0xac, 0, 0, 2, 0, 16, 0]),
  Buffer.from("data"),
  Buffer.from([4, 0, 0, 0, 1, 2, 3, 4]),
]);

/**
 * A stand-in `piper` (shell builtins only, so PATH can hold nothing else): records its model and
 * the text from stdin in `piper.log` beside it, and writes PIPER_WAV to --output_file.
 */
function fakePiper(body?: string): string {
  const bin = tempDir("hermes-piper-bin-");
  const octal = [...PIPER_WAV].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");
  const script =
    body ??
    '#!/bin/sh\nmodel=""; out=""\nwhile [ $# -gt 0 ]; do\n  case "$1" in\n    --model) model="$2"; shift;;\n' +
      '    --output_file) out="$2"; shift;;\n  esac\n  shift\ndone\ntext=""\n' +
      'while IFS= read -r line || [ -n "$line" ]; do text="$text$line"; done\n' +
      'printf "%s\\n%s\\n" "$model" "$text" > "$0.log"\n' +
      `printf '${octal}' > "$out"\n`;
  writeFileSync(join(bin, "piper"), script);
  chmodSync(join(bin, "piper"), 0o755);
  return bin;
}

function piperHome(voices: string[] = ["en_US-lessac-medium"]): string {
  const home = tempDir("hermes-piper-home-");
  mkdirSync(join(home, "cache", "piper"), { recursive: true });
  for (const voice of voices) writeFileSync(join(home, "cache", "piper", `${voice}.onnx`), "onnx");
  return home;
}

test("piper: runs the program on PATH with the voice's model from the piper cache and the text on stdin; its WAV is the file", async () => {
  const bin = fakePiper();
  const home = piperHome(["en_US-lessac-medium", "de_DE-thorsten-high"]);
  const { registry } = toolWith({ home, settings: { provider: "piper" }, env: () => ({ PATH: bin }) });
  assert.equal(await registry.isAvailable("text_to_speech"), true);
  const result = await say(registry, { text: "Local speech, no network." });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.provider, "piper");
  assert.equal(result.format, "wav");
  assert.ok(String(result.file_path).startsWith(join(home, "cache", "audio")));
  assert.deepEqual(readFileSync(String(result.file_path)), PIPER_WAV);
  const [model, text] = readFileSync(join(bin, "piper.log"), "utf8").split("\n");
  assert.equal(model, join(home, "cache", "piper", "en_US-lessac-medium.onnx"));
  assert.equal(text, "Local speech, no network.");

  const other = await say(registry, { text: "Hallo", voice: "de_DE-thorsten-high" });
  assert.equal(other.success, true, JSON.stringify(other));
  assert.match(readFileSync(join(bin, "piper.log"), "utf8"), /de_DE-thorsten-high\.onnx\nHallo\n/);
});

test("piper: tts.piper.voice may be the path of a model", async () => {
  const bin = fakePiper();
  const models = tempDir("hermes-piper-models-");
  writeFileSync(join(models, "mine.onnx"), "onnx");
  const { registry } = toolWith({
    settings: { provider: "piper", piperVoice: join(models, "mine.onnx") },
    env: () => ({ PATH: bin }),
  });
  const result = await say(registry, { text: "Hi" });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(readFileSync(join(bin, "piper.log"), "utf8").split("\n")[0], join(models, "mine.onnx"));
});

test("piper: no program, a missing voice model, a path as the voice argument, a failing run and a non-WAV are clear errors", async () => {
  const home = piperHome();
  const none = toolWith({ home, settings: { provider: "piper" }, env: () => ({ PATH: tempDir("hermes-empty-") }) });
  assert.equal(await none.registry.isAvailable("text_to_speech"), false);
  assert.match(String((await say(none.registry, { text: "Hi" })).error), /needs the piper program on PATH/);

  const bin = fakePiper();
  const { registry } = toolWith({ home, settings: { provider: "piper" }, env: () => ({ PATH: bin }) });
  const missing = await say(registry, { text: "Hi", voice: "fr_FR-siwis-medium" });
  assert.match(
    String(missing.error),
    /no piper voice model at .*cache\/piper\/fr_FR-siwis-medium\.onnx; put fr_FR-siwis-medium\.onnx/,
  );
  const traversal = await say(registry, { text: "Hi", voice: "../../etc/passwd" });
  assert.match(String(traversal.error), /is not a piper voice name/);
  const absolute = await say(registry, { text: "Hi", voice: join(home, "cache", "piper", "en_US-lessac-medium.onnx") });
  assert.match(String(absolute.error), /is not a piper voice name/, "only config may name a path");
  assert.equal(existsSync(join(bin, "piper.log")), false, "piper never ran");

  const failing = fakePiper('#!/bin/sh\necho "Unable to load model" >&2\nexit 3\n');
  const broken = toolWith({ home, settings: { provider: "piper" }, env: () => ({ PATH: failing }) }).registry;
  assert.match(String((await say(broken, { text: "Hi" })).error), /piper failed \(exit 3\): Unable to load model/);

  const junk = fakePiper(
    '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = "--output_file" ] && out="$2"; shift; done\nprintf "nope" > "$out"\n',
  );
  const wrong = toolWith({ home, settings: { provider: "piper" }, env: () => ({ PATH: junk }) }).registry;
  assert.match(String((await say(wrong, { text: "Hi" })).error), /piper wrote something that is not a WAV file/);
  assert.deepEqual(audioFiles(home), []);
});

test("piper: a run past the time limit is stopped and reported", async () => {
  const bin = fakePiper("#!/bin/sh\nexec /bin/sleep 30\n");
  const result = await speak({
    text: "Hello",
    outputDir: tempDir("hermes-tts-out-"),
    home: piperHome(),
    settings: { ...DEFAULT_TTS_SETTINGS, provider: "piper" },
    env: { PATH: bin },
    timeoutMs: 300,
  });
  assert.equal(result.ok, false);
  assert.match(result.ok ? "" : result.error, /^piper gave no audio within \d+s; try again later$/);
});

// ---- through the runtime ----

test("through the runtime: tts.gemini.* and tts.xai.* from config.yaml reach the providers", async () => {
  const saved = { ...process.env };
  process.env.GEMINI_API_KEY = "gm-runtime";
  process.env.GEMINI_BASE_URL = `${base}/v1beta`;
  process.env.XAI_API_KEY = "xai-runtime";
  process.env.XAI_BASE_URL = `${base}/v1`;
  const defaults = await openTestRuntime();
  try {
    const { tts, stt } = defaults.runtime.config;
    assert.deepEqual(tts.gemini, {
      model: "gemini-2.5-flash-preview-tts",
      voice: "Kore",
      audio_tags: false,
      persona_prompt_file: "",
    });
    assert.deepEqual(tts.xai, { voice_id: "eve", language: "en", sample_rate: 24000, bit_rate: 128000 });
    assert.deepEqual(tts.mistral, { model: "voxtral-mini-tts-2603", voice_id: "c69964a6-ab8b-4f8a-9465-ec0925096ec8" });
    assert.deepEqual(tts.piper, { voice: "en_US-lessac-medium" });
    assert.deepEqual(stt.mistral, { model: "voxtral-mini-latest" });
    assert.deepEqual(stt.elevenlabs, {
      model_id: "scribe_v2",
      language_code: "",
      tag_audio_events: false,
      diarize: false,
    });
  } finally {
    await defaults.close();
  }
  const gemini = await openTestRuntime({
    config: "tts:\n  provider: gemini\n  gemini:\n    voice: Puck\n    audio_tags: true\n",
  });
  try {
    posts = [];
    answer = () => geminiAudio();
    const result = await callTool(
      gemini.runtime.registry,
      "text_to_speech",
      { text: "[sighs] fine" },
      makeContext(gemini.home),
    );
    assert.equal(result.success, true, JSON.stringify(result));
    assert.equal(posts[0]!.headers["user-agent"], "hermes-agent", "sent by the project's HTTP client");
    assert.match(JSON.stringify(posts[0]!.body), /"voiceName":"Puck"/);
    assert.match(JSON.stringify(posts[0]!.body), /"text":"\[sighs\] fine"/);
  } finally {
    await gemini.close();
  }
  const xai = await openTestRuntime({
    config:
      "tts:\n  provider: xai\n  xai:\n    voice_id: rex\n    language: fr\n    sample_rate: 16000\n    bit_rate: 64000\n",
  });
  try {
    posts = [];
    answer = () => ({ status: 200, body: MP3, type: "audio/mpeg" });
    const result = await callTool(xai.runtime.registry, "text_to_speech", { text: "Salut" }, makeContext(xai.home));
    assert.equal(result.success, true, JSON.stringify(result));
    assert.deepEqual(posts[0]!.body, {
      text: "Salut",
      voice_id: "rex",
      language: "fr",
      output_format: { codec: "mp3", sample_rate: 16000, bit_rate: 64000 },
    });
  } finally {
    await xai.close();
    for (const name of ["GEMINI_API_KEY", "GEMINI_BASE_URL", "XAI_API_KEY", "XAI_BASE_URL"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
});
