/**
 * xAI's speech endpoint, `POST {base}/tts` with a bearer key (`XAI_API_KEY`; base `XAI_BASE_URL`,
 * else `https://api.x.ai/v1`): `{text, voice_id, language, output_format: {codec, sample_rate,
 * bit_rate}}` in, the audio bytes out. Its codecs are MP3, WAV and telephone formats (no Opus), so
 * MP3 it is, turned into Ogg/Opus by ffmpeg where there is one.
 */
import { joinUrl, postForAudio } from "./http.js";
import { type SpeechRequest, TtsError } from "./types.js";

export const XAI_BASE_URL = "https://api.x.ai/v1";

export async function xaiSpeech(request: SpeechRequest): Promise<Buffer> {
  const key = request.env.XAI_API_KEY?.trim();
  if (!key) throw new TtsError("tts.provider xai needs XAI_API_KEY in ~/.hermes/.env");
  const base = request.env.XAI_BASE_URL?.trim() || XAI_BASE_URL;
  const { settings } = request;
  const codec = request.format === "wav" ? "wav" : "mp3";
  return postForAudio(request.http, "xAI speech", joinUrl(base, "tts"), {
    headers: { authorization: `Bearer ${key}` },
    body: {
      text: request.text,
      voice_id: request.voice || settings.xaiVoiceId,
      language: settings.xaiLanguage || "en",
      output_format: {
        codec,
        sample_rate: settings.xaiSampleRate,
        ...(codec === "mp3" ? { bit_rate: settings.xaiBitRate } : {}),
      },
    },
    key,
    signal: request.signal,
  });
}
