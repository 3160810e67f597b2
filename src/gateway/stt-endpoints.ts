/**
 * The hosted speech-to-text services (`stt.provider`), each one multipart upload of the
 * recording: where it goes, how the key is sent, and the form fields besides the file.
 * - `openai`: `POST {STT_OPENAI_BASE_URL | https://api.openai.com/v1}/audio/transcriptions`,
 *   bearer `VOICE_TOOLS_OPENAI_KEY` (else `OPENAI_API_KEY`), `model`, `response_format=json`;
 * - `groq`: the same shape at `{GROQ_BASE_URL | https://api.groq.com/openai/v1}`, `GROQ_API_KEY`;
 * - `mistral`: `POST {MISTRAL_BASE_URL | https://api.mistral.ai/v1}/audio/transcriptions`,
 *   bearer `MISTRAL_API_KEY`, `model` (Voxtral);
 * - `elevenlabs`: `POST {ELEVENLABS_BASE_URL | https://api.elevenlabs.io}/v1/speech-to-text`,
 *   `xi-api-key: ELEVENLABS_API_KEY`, `model_id`, `language_code` (when set),
 *   `tag_audio_events`, `diarize`.
 * Every one answers JSON with the transcript in `text`.
 */

export interface SttSettings {
  provider: string;
  localModel: string;
  localLanguage: string;
  openaiModel: string;
  mistralModel?: string | undefined;
  elevenlabsModelId?: string | undefined;
  /** "" = the service detects the language. */
  elevenlabsLanguageCode?: string | undefined;
  elevenlabsTagAudioEvents?: boolean | undefined;
  elevenlabsDiarize?: boolean | undefined;
}

type Env = Record<string, string | undefined>;

export interface Endpoint {
  provider: string;
  url: string;
  /** Kept out of every message. */
  key: string;
  model: string;
  headers: Record<string, string>;
  /** Form fields sent before the file. */
  fields: Record<string, string>;
}

export const HOSTED_STT_PROVIDERS = ["openai", "groq", "mistral", "elevenlabs"] as const;

const OPENAI_BASE = "https://api.openai.com/v1";
const GROQ_BASE = "https://api.groq.com/openai/v1";
const GROQ_MODEL = "whisper-large-v3-turbo";
const MISTRAL_BASE = "https://api.mistral.ai/v1";
const MISTRAL_MODEL = "voxtral-mini-latest";
const ELEVENLABS_BASE = "https://api.elevenlabs.io";
const ELEVENLABS_MODEL = "scribe_v2";

function url(base: string | undefined, fallback: string, path: string): string {
  return `${(base?.trim() || fallback).replace(/\/+$/, "")}/${path}`;
}

function bearer(provider: string, url: string, key: string, model: string, extra: Record<string, string> = {}) {
  return { provider, url, key, model, headers: { authorization: `Bearer ${key}` }, fields: { model, ...extra } };
}

/** The endpoint for `provider`, or why it cannot be used. */
export function hostedEndpoint(provider: string, settings: SttSettings, env: Env): Endpoint | string {
  if (provider === "openai") {
    const key = env.VOICE_TOOLS_OPENAI_KEY?.trim() || env.OPENAI_API_KEY?.trim();
    if (!key) return "stt.provider openai needs VOICE_TOOLS_OPENAI_KEY (or OPENAI_API_KEY)";
    const at = url(env.STT_OPENAI_BASE_URL, OPENAI_BASE, "audio/transcriptions");
    return bearer(provider, at, key, settings.openaiModel, { response_format: "json" });
  }
  if (provider === "groq") {
    const key = env.GROQ_API_KEY?.trim();
    if (!key) return "stt.provider groq needs GROQ_API_KEY";
    const model = env.STT_GROQ_MODEL?.trim() || GROQ_MODEL;
    return bearer(provider, url(env.GROQ_BASE_URL, GROQ_BASE, "audio/transcriptions"), key, model, {
      response_format: "json",
    });
  }
  if (provider === "mistral") {
    const key = env.MISTRAL_API_KEY?.trim();
    if (!key) return "stt.provider mistral needs MISTRAL_API_KEY";
    const model = settings.mistralModel?.trim() || MISTRAL_MODEL;
    return bearer(provider, url(env.MISTRAL_BASE_URL, MISTRAL_BASE, "audio/transcriptions"), key, model);
  }
  if (provider === "elevenlabs") {
    const key = env.ELEVENLABS_API_KEY?.trim();
    if (!key) return "stt.provider elevenlabs needs ELEVENLABS_API_KEY";
    const model = settings.elevenlabsModelId?.trim() || ELEVENLABS_MODEL;
    const language = settings.elevenlabsLanguageCode?.trim();
    return {
      provider,
      url: url(env.ELEVENLABS_BASE_URL, ELEVENLABS_BASE, "v1/speech-to-text"),
      key,
      model,
      headers: { "xi-api-key": key },
      fields: {
        model_id: model,
        ...(language ? { language_code: language } : {}),
        tag_audio_events: String(settings.elevenlabsTagAudioEvents ?? false),
        diarize: String(settings.elevenlabsDiarize ?? false),
      },
    };
  }
  return `stt.provider ${provider} is not available here (local, ${HOSTED_STT_PROVIDERS.join(", ")} are)`;
}
