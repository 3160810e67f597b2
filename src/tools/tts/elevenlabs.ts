/**
 * ElevenLabs, `POST {base}/v1/text-to-speech/{voice_id}?output_format=...` with the key in
 * `xi-api-key` (`ELEVENLABS_API_KEY`; base `ELEVENLABS_BASE_URL`, else ElevenLabs'). Opus comes
 * as `opus_48000_64` (48 kHz, 64 kbit/s in an Ogg container), MP3 as `mp3_44100_128`.
 */
import { joinUrl, postForAudio } from "./http.js";
import type { AudioFormat, SpeechRequest } from "./types.js";
import { TtsError } from "./types.js";

export const ELEVENLABS_BASE_URL = "https://api.elevenlabs.io";

const OUTPUT_FORMAT: Readonly<Record<Exclude<AudioFormat, "wav">, string>> = {
  opus: "opus_48000_64",
  mp3: "mp3_44100_128",
};

export async function elevenlabsSpeech(request: SpeechRequest): Promise<Buffer> {
  const key = request.env.ELEVENLABS_API_KEY?.trim();
  if (!key) throw new TtsError("tts.provider elevenlabs needs ELEVENLABS_API_KEY in ~/.hermes/.env");
  const base = request.env.ELEVENLABS_BASE_URL?.trim() || ELEVENLABS_BASE_URL;
  const voice = request.voice || request.settings.elevenlabsVoiceId;
  const path = `v1/text-to-speech/${encodeURIComponent(voice)}?output_format=${OUTPUT_FORMAT[request.format === "opus" ? "opus" : "mp3"]}`;
  return postForAudio(request.http, "ElevenLabs", joinUrl(base, path), {
    headers: { "xi-api-key": key, accept: "audio/*" },
    body: { text: request.text, model_id: request.settings.elevenlabsModelId },
    key,
    signal: request.signal,
  });
}
