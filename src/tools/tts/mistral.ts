/**
 * Mistral's Voxtral voices, `POST {base}/audio/speech` with a bearer key (`MISTRAL_API_KEY`; base
 * `MISTRAL_BASE_URL`, else `https://api.mistral.ai/v1`): `{model, input, voice_id,
 * response_format}` in, JSON `{audio_data}` (the file, base64) out. It offers Opus, so a voice
 * note needs no ffmpeg.
 */
import { joinUrl, postForAudio } from "./http.js";
import { type SpeechRequest, TtsError } from "./types.js";

export const MISTRAL_BASE_URL = "https://api.mistral.ai/v1";

function audioOf(body: Buffer): Buffer {
  let data: unknown;
  try {
    data = (JSON.parse(body.toString("utf8")) as { audio_data?: unknown }).audio_data;
  } catch {
    throw new TtsError("Mistral answered something that is not JSON where speech was expected");
  }
  const audio = typeof data === "string" ? Buffer.from(data, "base64") : Buffer.alloc(0);
  if (audio.length === 0) throw new TtsError("Mistral answered without audio_data");
  return audio;
}

export async function mistralSpeech(request: SpeechRequest): Promise<Buffer> {
  const key = request.env.MISTRAL_API_KEY?.trim();
  if (!key) throw new TtsError("tts.provider mistral needs MISTRAL_API_KEY in ~/.hermes/.env");
  const base = request.env.MISTRAL_BASE_URL?.trim() || MISTRAL_BASE_URL;
  const body = await postForAudio(request.http, "Mistral speech", joinUrl(base, "audio/speech"), {
    headers: { authorization: `Bearer ${key}` },
    body: {
      model: request.settings.mistralModel,
      input: request.text,
      voice_id: request.voice || request.settings.mistralVoiceId,
      response_format: request.format,
    },
    key,
    signal: request.signal,
  });
  return audioOf(body);
}
