/**
 * OpenAI's speech endpoint, `POST {base}/audio/speech` (any compatible server works too):
 * key `VOICE_TOOLS_OPENAI_KEY`, else `OPENAI_API_KEY`; base `TTS_OPENAI_BASE_URL`, else OpenAI's.
 * It answers Ogg/Opus when asked for "opus", so the file can go out as a voice note as it is.
 */
import { joinUrl, postForAudio } from "./http.js";
import { type Env, type SpeechRequest, TtsError } from "./types.js";

export const OPENAI_TTS_BASE_URL = "https://api.openai.com/v1";

export function openaiKey(env: Env): string | undefined {
  return env.VOICE_TOOLS_OPENAI_KEY?.trim() || env.OPENAI_API_KEY?.trim() || undefined;
}

export async function openaiSpeech(request: SpeechRequest): Promise<Buffer> {
  const key = openaiKey(request.env);
  if (!key)
    throw new TtsError("tts.provider openai needs VOICE_TOOLS_OPENAI_KEY (or OPENAI_API_KEY) in ~/.hermes/.env");
  const base = request.env.TTS_OPENAI_BASE_URL?.trim() || OPENAI_TTS_BASE_URL;
  return postForAudio(request.http, "OpenAI speech", joinUrl(base, "audio/speech"), {
    headers: { authorization: `Bearer ${key}` },
    body: {
      model: request.settings.openaiModel,
      voice: request.voice || request.settings.openaiVoice,
      input: request.text,
      response_format: request.format,
    },
    key,
    signal: request.signal,
  });
}
