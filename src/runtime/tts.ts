/**
 * What text to speech needs from the process: `tts.*` from config, and the project's HTTP client
 * (pooled keep-alive, the proxy the environment names for each URL) for the hosted providers.
 * The tool and the gateway's `voice.auto_tts` both take it from here.
 */
import type { HermesConfig } from "../state/config-schema.js";
import { MAX_AUDIO_BYTES, type TtsHttp, type TtsSettings } from "../tools/tts/types.js";
import { cappedRequest } from "./capped-request.js";

export function ttsSettingsFromConfig(config: HermesConfig): TtsSettings {
  const { tts } = config;
  return {
    provider: tts.provider,
    edgeVoice: tts.edge.voice,
    openaiModel: tts.openai.model,
    openaiVoice: tts.openai.voice,
    elevenlabsVoiceId: tts.elevenlabs.voice_id,
    elevenlabsModelId: tts.elevenlabs.model_id,
    geminiModel: tts.gemini.model,
    geminiVoice: tts.gemini.voice,
    geminiAudioTags: tts.gemini.audio_tags,
    geminiPersonaPromptFile: tts.gemini.persona_prompt_file,
    xaiVoiceId: tts.xai.voice_id,
    xaiLanguage: tts.xai.language,
    xaiSampleRate: tts.xai.sample_rate,
    xaiBitRate: tts.xai.bit_rate,
    mistralModel: tts.mistral.model,
    mistralVoiceId: tts.mistral.voice_id,
    piperVoice: tts.piper.voice,
  };
}

export const runtimeTtsHttp: TtsHttp = async (url, request) => {
  const answer = await cappedRequest(url, { ...request, maxBytes: MAX_AUDIO_BYTES }, "text to speech");
  return { status: answer.status, body: answer.body };
};

/** The text_to_speech tool's options for a runtime on `home`. */
export function ttsToolOptions(config: HermesConfig, home: string) {
  return { settings: ttsSettingsFromConfig(config), home, http: runtimeTtsHttp };
}
