/**
 * Text to speech, whichever provider `tts.provider` names: check the text, pick the format (Ogg/Opus
 * where the provider offers it, else MP3 or WAV; an output path ending in .mp3, .wav or .ogg asks
 * for that one), call the provider within a time limit, and write the audio file (an MP3 or WAV
 * not asked for as such becomes Ogg/Opus when ffmpeg is there). Used by the `text_to_speech`
 * tool and by the gateway's `voice.auto_tts`. Never throws: a failure is an answer with a reason.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, extname, join } from "node:path";
import { edgeSpeech } from "./edge.js";
import { elevenlabsSpeech } from "./elevenlabs.js";
import { geminiSpeech } from "./gemini.js";
import { fetchHttp } from "./http.js";
import { mistralSpeech } from "./mistral.js";
import { openaiSpeech } from "./openai.js";
import { piperSpeech } from "./piper.js";
import { toOpus } from "./transcode.js";
import {
  type AudioFormat,
  type Env,
  FORMAT_EXTENSION,
  ORIGINAL_ONLY_TTS_PROVIDERS,
  type SpeechRequest,
  TTS_TIMEOUT_MS,
  TtsError,
  type TtsHttp,
  type TtsProviderName,
  type TtsSettings,
  WORKING_TTS_PROVIDERS,
} from "./types.js";
import { xaiSpeech } from "./xai.js";

interface Provider {
  /** Formats it can produce, the preferred one first. */
  formats: readonly AudioFormat[];
  /** Characters of text one call takes (the providers' own limits). */
  maxChars: number;
  speak(request: SpeechRequest): Promise<Buffer>;
}

const PROVIDERS: Readonly<Record<TtsProviderName, Provider>> = {
  edge: { formats: ["mp3"], maxChars: 5000, speak: edgeSpeech },
  openai: { formats: ["opus", "mp3"], maxChars: 4096, speak: openaiSpeech },
  elevenlabs: { formats: ["opus", "mp3"], maxChars: 10_000, speak: elevenlabsSpeech },
  gemini: { formats: ["wav"], maxChars: 5000, speak: geminiSpeech },
  xai: { formats: ["mp3", "wav"], maxChars: 15_000, speak: xaiSpeech },
  mistral: { formats: ["opus", "mp3", "wav"], maxChars: 5000, speak: mistralSpeech },
  piper: { formats: ["wav"], maxChars: 10_000, speak: piperSpeech },
};

const EXTENSION_FORMAT: Readonly<Record<string, AudioFormat>> = {
  ".mp3": "mp3",
  ".ogg": "opus",
  ".oga": "opus",
  ".opus": "opus",
  ".wav": "wav",
};
const AUDIO_EXTENSIONS = new Set([...Object.keys(EXTENSION_FORMAT), ".m4a", ".aac", ".flac", ".webm"]);

export const FORMAT_LABEL: Readonly<Record<AudioFormat, string>> = { opus: "ogg/opus", mp3: "mp3", wav: "wav" };

export interface SpeakInput {
  text: string;
  /** A voice in the provider's own naming, in place of the configured one. */
  voice?: string | undefined;
  /** An absolute path to write (already checked by the caller); default a new file in `outputDir`. */
  outputPath?: string | undefined;
  /** Where new files go: `$HERMES_HOME/cache/audio`. */
  outputDir: string;
  /** HERMES_HOME (local voices live under it); default `$HERMES_HOME` from `env`, else ~/.hermes. */
  home?: string | undefined;
  settings: TtsSettings;
  env: Env;
  http?: TtsHttp | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

export type SpeakResult =
  | {
      ok: true;
      path: string;
      provider: TtsProviderName;
      format: AudioFormat;
      bytes: number;
      /** Set when the file name was changed to match the format. */
      note?: string;
    }
  | { ok: false; provider: string; error: string };

export function unavailableProviderMessage(provider: string): string {
  const known = (ORIGINAL_ONLY_TTS_PROVIDERS as readonly string[]).includes(provider);
  return (
    `tts.provider "${provider}" ${known ? "is not available in this version" : "is not a provider"}; ` +
    "set tts.provider to edge (free, no key), openai, elevenlabs, gemini, xai, mistral " +
    "(each with its API key) or piper (a local program)"
  );
}

export function isWorkingProvider(name: string): name is TtsProviderName {
  return (WORKING_TTS_PROVIDERS as readonly string[]).includes(name);
}

/** The file to write: the requested one, its extension made to match the format. */
function targetPath(input: SpeakInput, format: AudioFormat): { path: string; note?: string } {
  const extension = FORMAT_EXTENSION[format];
  if (!input.outputPath) {
    const stamp = new Date().toISOString().replaceAll(/[-:]/g, "").replace("T", "_").slice(0, 15);
    return { path: join(input.outputDir, `tts_${stamp}_${randomBytes(3).toString("hex")}${extension}`) };
  }
  const given = input.outputPath;
  const current = extname(given).toLowerCase();
  if (EXTENSION_FORMAT[current] === format) return { path: given };
  const stem = AUDIO_EXTENSIONS.has(current) ? given.slice(0, -current.length) : given;
  const path = `${stem}${extension}`;
  return { path, note: `saved as ${FORMAT_LABEL[format]}, so the file is ${path}` };
}

export async function speak(input: SpeakInput): Promise<SpeakResult> {
  const name = input.settings.provider.trim().toLowerCase() || "edge";
  if (!isWorkingProvider(name)) return { ok: false, provider: name, error: unavailableProviderMessage(name) };
  const provider = PROVIDERS[name];
  const fail = (error: string): SpeakResult => ({ ok: false, provider: name, error });
  const text = input.text.trim();
  if (!text) return fail("there is no text to speak");
  if (text.length > provider.maxChars) {
    return fail(
      `the text is ${text.length} characters; ${name} speaks at most ${provider.maxChars} at once. ` +
        "Shorten it, or split it into several calls",
    );
  }
  const asked = input.outputPath ? EXTENSION_FORMAT[extname(input.outputPath).toLowerCase()] : undefined;
  const format = asked && provider.formats.includes(asked) ? asked : provider.formats[0]!;
  const { path, note } = targetPath(input, format);
  const timeoutMs = input.timeoutMs ?? TTS_TIMEOUT_MS;
  const limit = AbortSignal.timeout(timeoutMs);
  const signal = input.signal ? AbortSignal.any([input.signal, limit]) : limit;
  let audio: Buffer;
  try {
    audio = await provider.speak({
      text,
      voice: input.voice?.trim() || undefined,
      format,
      settings: input.settings,
      env: input.env,
      http: input.http ?? fetchHttp,
      signal,
      home: input.home ?? (input.env.HERMES_HOME?.trim() || join(homedir(), ".hermes")),
    });
  } catch (error) {
    if (input.signal?.aborted) return fail("the speech was interrupted before it was done");
    if (limit.aborted) return fail(`${name} gave no audio within ${Math.round(timeoutMs / 1000)}s; try again later`);
    if (error instanceof TtsError) return fail(error.message);
    return fail(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, audio);
  } catch (error) {
    return fail(`could not write ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Only for a file of our own naming, or one asked for as Ogg: an explicit .mp3 or .wav path stays.
  if (format !== "opus" && asked !== format) {
    const ogg = await toOpus(path, input.env.PATH === undefined ? { PATH: process.env.PATH } : input.env);
    if (ogg) {
      const converted = input.outputPath ? { note: `converted to ogg/opus with ffmpeg, so the file is ${ogg}` } : {};
      return { ok: true, path: ogg, provider: name, format: "opus", bytes: statSync(ogg).size, ...converted };
    }
  }
  return { ok: true, path, provider: name, format, bytes: audio.length, ...(note ? { note } : {}) };
}
