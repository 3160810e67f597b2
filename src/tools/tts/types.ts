/** Shapes shared by the text-to-speech providers and the `text_to_speech` tool. */

export type Env = Record<string, string | undefined>;

/** Providers that work here; the original's other names are accepted in config and refused when used. */
export const WORKING_TTS_PROVIDERS = ["edge", "openai", "elevenlabs", "gemini", "xai", "mistral", "piper"] as const;
export type TtsProviderName = (typeof WORKING_TTS_PROVIDERS)[number];
/** `neutts` runs a local model with its own weights, which this version does not fetch or run. */
export const ORIGINAL_ONLY_TTS_PROVIDERS = ["neutts"] as const;

/** `tts.*` as the tool reads it. */
export interface TtsSettings {
  provider: string;
  edgeVoice: string;
  openaiModel: string;
  openaiVoice: string;
  elevenlabsVoiceId: string;
  elevenlabsModelId: string;
  geminiModel: string;
  geminiVoice: string;
  /** Keep bracketed performance tags such as `[laughs]` in the text (false: they are taken out). */
  geminiAudioTags: boolean;
  /** A file whose text goes before the text as a style instruction ("" = none). */
  geminiPersonaPromptFile: string;
  xaiVoiceId: string;
  xaiLanguage: string;
  xaiSampleRate: number;
  xaiBitRate: number;
  mistralModel: string;
  mistralVoiceId: string;
  /** A voice name (its .onnx under `$HERMES_HOME/cache/piper/`) or a path to an .onnx model. */
  piperVoice: string;
}

export const DEFAULT_TTS_SETTINGS: TtsSettings = {
  provider: "edge",
  edgeVoice: "en-US-AriaNeural",
  openaiModel: "gpt-4o-mini-tts",
  openaiVoice: "alloy",
  elevenlabsVoiceId: "pNInz6obpgDQGcFmaJgB",
  elevenlabsModelId: "eleven_multilingual_v2",
  geminiModel: "gemini-2.5-flash-preview-tts",
  geminiVoice: "Kore",
  geminiAudioTags: false,
  geminiPersonaPromptFile: "",
  xaiVoiceId: "eve",
  xaiLanguage: "en",
  xaiSampleRate: 24000,
  xaiBitRate: 128000,
  mistralModel: "voxtral-mini-tts-2603",
  mistralVoiceId: "c69964a6-ab8b-4f8a-9465-ec0925096ec8",
  piperVoice: "en_US-lessac-medium",
};

/** Ogg/Opus (what Telegram voice notes are), MP3, or WAV (what Gemini's PCM and piper become). */
export type AudioFormat = "opus" | "mp3" | "wav";

export const FORMAT_EXTENSION: Readonly<Record<AudioFormat, string>> = { opus: ".ogg", mp3: ".mp3", wav: ".wav" };

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
  /** HERMES_HOME, where local voices live (`cache/piper/`). */
  home: string;
}

/** A failure the tool reports as it is: its message is already written for the model and the user. */
export class TtsError extends Error {}

/** Replies longer than this are refused, whatever the provider. */
export const MAX_AUDIO_BYTES = 32 * 1024 * 1024;
/** How long one synthesis may take. */
export const TTS_TIMEOUT_MS = 30_000;
