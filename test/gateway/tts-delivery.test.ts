import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { startTelegramGateway } from "../fakes/telegram/gateway.js";
import type { BotMessage } from "../fakes/telegram/server.js";
import { lastToolResults } from "../helpers/agent-harness.js";
import { tempDir } from "../state/temp-dir.js";
import { startGateway } from "./harness.js";

const OGG_OPUS = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(24), Buffer.from("OpusHead spoken answer")]);
const OGG_VORBIS = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(24), Buffer.from("\u0001vorbis music")]);

test("Telegram: an Ogg/Opus file named in a reply goes as a voice note, an MP3 as audio, other Ogg as a document", async () => {
  const dir = tempDir("hermes-tg-audio-");
  const voice = join(dir, "answer.ogg");
  const song = join(dir, "song.mp3");
  const vorbis = join(dir, "tune.ogg");
  writeFileSync(voice, OGG_OPUS);
  writeFileSync(song, Buffer.from("ID3 mp3 bytes"));
  writeFileSync(vorbis, OGG_VORBIS);
  const tg = await startTelegramGateway({
    provider: { script: [{ text: `Here you go.\nMEDIA:${voice}\nMEDIA:${song}\nMEDIA:${vorbis}` }] },
  });
  try {
    tg.telegram.userMessage({ text: "read it to me" });
    await tg.telegram.waitForMessages(
      (messages) => messages.filter((m) => m.voice || m.audio || m.document).length === 3,
    );
    assert.equal(tg.telegram.callsOf("sendVoice").length, 1);
    assert.equal(tg.telegram.callsOf("sendAudio").length, 1);
    assert.equal(tg.telegram.callsOf("sendDocument").length, 1);
    const sentVoice = tg.telegram.messages.find((m) => m.voice) as BotMessage;
    assert.equal(sentVoice.voice?.filename, "answer.ogg");
    assert.deepEqual(sentVoice.voice?.bytes, OGG_OPUS);
    assert.equal((tg.telegram.messages.find((m) => m.audio) as BotMessage).audio?.filename, "song.mp3");
    assert.equal((tg.telegram.messages.find((m) => m.document) as BotMessage).document?.filename, "tune.ogg");
    assert.ok(tg.telegram.messages.some((m) => m.text === "Here you go."));
  } finally {
    await tg.close();
  }
});

// ---- voice.auto_tts, with OpenAI's speech endpoint faked on loopback ----

let speechRequests: Array<Record<string, unknown>> = [];
const speech = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    speechRequests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
    res.writeHead(200, { "content-type": "audio/ogg" }).end(OGG_OPUS);
  });
});
const saved = { key: process.env.VOICE_TOOLS_OPENAI_KEY, url: process.env.TTS_OPENAI_BASE_URL };
before(async () => {
  await new Promise<void>((resolve) => speech.listen(0, "127.0.0.1", resolve));
  process.env.VOICE_TOOLS_OPENAI_KEY = "vk-auto";
  process.env.TTS_OPENAI_BASE_URL = `http://127.0.0.1:${(speech.address() as AddressInfo).port}/v1`;
});
after(async () => {
  await new Promise<void>((resolve) => speech.close(() => resolve()));
  if (saved.key === undefined) delete process.env.VOICE_TOOLS_OPENAI_KEY;
  else process.env.VOICE_TOOLS_OPENAI_KEY = saved.key;
  if (saved.url === undefined) delete process.env.TTS_OPENAI_BASE_URL;
  else process.env.TTS_OPENAI_BASE_URL = saved.url;
});

const AUTO_TTS = "voice:\n  auto_tts: true\ntts:\n  provider: openai\nstt:\n  enabled: false\n";
const recording = join(tempDir("hermes-voice-in-"), "voice.ogg");
writeFileSync(recording, OGG_OPUS);
const voiceNote = { kind: "audio" as const, url: recording, name: "voice.ogg", mimeType: "audio/ogg" };

test("voice.auto_tts: a voice message is answered in text, then in speech of that text without its markdown", async () => {
  speechRequests = [];
  const gw = await startGateway({
    adapter: () => new TestAdapter(),
    config: AUTO_TTS,
    provider: { fallback: { text: "**Booked**: the plumber comes at `9:40`." } },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "", attachments: [voiceNote] });
    await gw.adapter.waitFor(() => gw.adapter.files.length > 0);
    assert.ok(
      gw.adapter.sent.some((s) => s.current.includes("Booked")),
      "the text answer came too",
    );
    const [file] = gw.adapter.files;
    assert.ok(file!.path.startsWith(join(gw.home, "cache", "audio")) && file!.path.endsWith(".ogg"), file!.path);
    assert.deepEqual(readFileSync(file!.path), OGG_OPUS);
    assert.equal(speechRequests.length, 1);
    assert.equal(speechRequests[0]!.input, "Booked: the plumber comes at 9:40.");
    assert.equal(speechRequests[0]!.response_format, "opus");
  } finally {
    await gw.close();
  }
});

test("voice.auto_tts: a text message gets no speech, nor does a turn where the model already spoke", async () => {
  speechRequests = [];
  const gw = await startGateway({
    adapter: () => new TestAdapter(),
    config: AUTO_TTS,
    provider: {
      script: [
        { text: "Just text." },
        { toolCalls: [{ name: "text_to_speech", arguments: { text: "Spoken by the model." } }] },
      ],
      fallback: (req) => {
        const result = JSON.parse(lastToolResults(req)[0] ?? "{}") as { media_tag?: string };
        return { text: `Spoken by the model.\n${result.media_tag ?? "(no audio)"}` };
      },
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "just typing" });
    await gw.adapter.waitForText(/^Just text\.$/);
    await gw.runner.idle();
    assert.equal(speechRequests.length, 0);
    assert.equal(gw.adapter.files.length, 0);

    gw.adapter.inject({ messageId: "2", text: "", attachments: [voiceNote] });
    await gw.adapter.waitFor(() => gw.adapter.files.length > 0);
    await gw.runner.idle();
    assert.equal(speechRequests.length, 1, "only the model's own call was spoken");
    assert.equal(speechRequests[0]!.input, "Spoken by the model.");
    assert.equal(gw.adapter.files.length, 1);
  } finally {
    await gw.close();
  }
});
