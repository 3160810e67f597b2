/** Shapes shared by the text-to-speech providers and the `text_to_speech` tool. */

export type Env = Record<string, string | undefined>;

/** Providers that work here; the original's other names are accepted in config and refused when used. */
export const WORKING_TTS_PROVIDERS = ["edge", "openai", "elevenlabs"] as const;
export type TtsProviderName = (typeof WORKING_TTS_PROVIDERS)[number];
export const ORIGINAL_ONLY_TTS_PROVIDERS = ["gemini", "xai", "mistral", "neutts", "piper"] as const;

/** `tts.*` as the tool reads it. */
export interface TtsSettings {
  provider: string;
  edgeVoice: string;
  openaiModel: string;
  openaiVoice: string;
  elevenlabsVoiceId: string;
  elevenlabsModelId: string;
}

export const DEFAULT_TTS_SETTINGS: TtsSettings = {
  provider: "edge",
  edgeVoice: "en-US-AriaNeural",
  openaiModel: "gpt-4o-mini-tts",
  openaiVoice: "alloy",
  elevenlabsVoiceId: "pNInz6obpgDQGcFmaJgB",
  elevenlabsModelId: "eleven_multilingual_v2",
};

/** Ogg/Opus (what Telegram voice notes are) or MP3. */
export type AudioFormat = "opus" | "mp3";

export const FORMAT_EXTENSION: Readonly<Record<AudioFormat, string>> = { opus: ".ogg", mp3: ".mp3" };

export interface HttpAnswer {
  status: number;
  body: Buffer;
}

/**
 * One POST with a JSON body, answering the status and the whole body. The runtime passes one
 * built on the project's HTTP client (keep-alive pool, proxies); without it, `fetch` is used.
 */
export type TtsHttp = (
  url: string,
  request: { headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<HttpAnswer>;

/** What one provider call needs. */
export interface SpeechRequest {
  text: string;
  /** A voice in the provider's own naming, in place of the configured one. */
  voice?: string | undefined;
  format: AudioFormat;
  settings: TtsSettings;
  env: Env;
  http: TtsHttp;
  signal: AbortSignal;
}

/** A failure the tool reports as it is: its message is already written for the model and the user. */
export class TtsError extends Error {}

/** Replies longer than this are refused, whatever the provider. */
export const MAX_AUDIO_BYTES = 32 * 1024 * 1024;
/** How long one synthesis may take. */
export const TTS_TIMEOUT_MS = 30_000;
