/**
 * `text_to_speech` (toolset `tts`): speaks text with the provider `tts.provider` names and saves
 * the audio, by default under `$HERMES_HOME/cache/audio/`. The result carries a `MEDIA:<path>`
 * line: in a reply on a messaging platform it sends the file to the chat (on Telegram an Ogg/Opus
 * file arrives as a voice note). The providers load on the first call, never at start-up.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { findExecutable } from "../../util/executable.js";
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import { DEFAULT_TTS_SETTINGS, type Env, type TtsHttp, type TtsSettings } from "../tts/types.js";
import { checkWritePath } from "./file-paths.js";

export interface TtsToolOptions {
  /** `tts.*` from config; missing fields take the defaults. */
  settings?: Partial<TtsSettings>;
  /** Where API keys and base URLs are read, at call time (default process.env). */
  env?: () => Env;
  /** HERMES_HOME, for the default output folder. */
  home?: string;
  /** The HTTP client for the hosted providers (the runtime passes the project's, with proxies). */
  http?: TtsHttp;
}

export const textToSpeechParameters = z.object({
  text: z.string().min(1).describe("What to say, as plain text"),
  output_path: z
    .string()
    .optional()
    .describe("File to write (.ogg, .mp3 or .wav); default: a new file in the audio cache"),
  voice: z.string().optional().describe("Another voice of the configured provider"),
});

export type TextToSpeechArgs = z.infer<typeof textToSpeechParameters>;

export function ttsSettings(options: TtsToolOptions): TtsSettings {
  return { ...DEFAULT_TTS_SETTINGS, ...options.settings };
}

function currentEnv(options: TtsToolOptions): Env {
  return options.env ? options.env() : process.env;
}

function hermesHome(home: string | undefined, env: Env): string {
  return home ?? (env.HERMES_HOME?.trim() || join(homedir(), ".hermes"));
}

/** `$HERMES_HOME/cache/audio`. */
export function audioCacheDir(home: string | undefined, env: Env): string {
  return join(hermesHome(home, env), "cache", "audio");
}

export async function textToSpeechTool(
  args: TextToSpeechArgs,
  ctx: Pick<ToolContext, "cwd" | "signal">,
  options: TtsToolOptions = {},
): Promise<string> {
  const settings = ttsSettings(options);
  let outputPath: string | undefined;
  if (args.output_path?.trim()) {
    const checked = checkWritePath(args.output_path, ctx.cwd);
    if (!checked.ok) return JSON.stringify({ success: false, provider: settings.provider, error: checked.error });
    outputPath = checked.path;
  }
  const env = currentEnv(options);
  const { speak, FORMAT_LABEL } = await import("../tts/synthesize.js");
  const result = await speak({
    text: args.text,
    voice: args.voice,
    outputPath,
    outputDir: audioCacheDir(options.home, env),
    home: hermesHome(options.home, env),
    settings,
    env,
    http: options.http,
    signal: ctx.signal,
  });
  if (!result.ok) return JSON.stringify({ success: false, provider: result.provider, error: result.error });
  return JSON.stringify({
    success: true,
    file_path: result.path,
    provider: result.provider,
    format: FORMAT_LABEL[result.format],
    bytes: result.bytes,
    media_tag: `MEDIA:${result.path}`,
    ...(result.note ? { note: result.note } : {}),
    hint: "On a messaging platform, put media_tag on a line of its own in your reply to send the audio to the chat.",
  });
}

/** Keys the hosted providers need, piper its program; edge needs nothing, and an unavailable name answers with its own error. */
function canSpeak(settings: TtsSettings, env: Env): boolean {
  const has = (...names: string[]) => names.some((name) => Boolean(env[name]?.trim()));
  switch (settings.provider.trim().toLowerCase()) {
    case "openai":
      return has("VOICE_TOOLS_OPENAI_KEY", "OPENAI_API_KEY");
    case "elevenlabs":
      return has("ELEVENLABS_API_KEY");
    case "gemini":
      return has("GEMINI_API_KEY", "GOOGLE_API_KEY");
    case "xai":
      return has("XAI_API_KEY");
    case "mistral":
      return has("MISTRAL_API_KEY");
    case "piper":
      return findExecutable("piper", env.PATH ?? process.env.PATH ?? "") !== undefined;
    default:
      return true;
  }
}

export function registerTtsTools(registry: ToolRegistry, options: TtsToolOptions = {}): void {
  registry.register({
    name: "text_to_speech",
    toolset: "tts",
    description:
      "Speak text into an audio file (Ogg/Opus, MP3 or WAV). Returns its path and a MEDIA: line; " +
      "on a messaging platform that line in your reply sends the audio to the chat.",
    parameters: textToSpeechParameters,
    handler: (args, ctx) => textToSpeechTool(args, ctx, options),
    check: () => canSpeak(ttsSettings(options), currentEnv(options)),
    pathArgs: ["output_path"],
    emoji: "🔊",
  });
}
