/**
 * Gemini's speech models through the Gemini API's `generateContent`:
 * `POST {base}/models/{model}:generateContent` with the key in `x-goog-api-key`
 * (`GEMINI_API_KEY`, else `GOOGLE_API_KEY`; base `GEMINI_BASE_URL`, else Google's v1beta, a
 * trailing `/openai` of the chat endpoint dropped). The request asks for `responseModalities:
 * ["AUDIO"]` in a prebuilt voice; the reply carries base64 PCM (signed 16-bit, mono, its rate in
 * the part's mime type, 24 kHz) in `candidates[0].content.parts[].inlineData`, which becomes a WAV.
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { joinUrl, postForAudio } from "./http.js";
import { type Env, type SpeechRequest, TtsError } from "./types.js";
import { GEMINI_PCM, isWav, pcmToWav } from "./wav.js";

export const GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";
/** A style instruction longer than this is not read (it would crowd out the text itself). */
const MAX_PERSONA_CHARS = 4000;

export function geminiKey(env: Env): string | undefined {
  return env.GEMINI_API_KEY?.trim() || env.GOOGLE_API_KEY?.trim() || undefined;
}

function geminiBase(env: Env): string {
  const configured = env.GEMINI_BASE_URL?.trim().replace(/\/+$/, "");
  // The same variable may point at the OpenAI-compatible chat endpoint; speech is on the native one.
  return configured ? configured.replace(/\/openai$/, "") : GEMINI_BASE_URL;
}

/** Bracketed performance tags (`[laughs]`, `[short pause]`) taken out; `[1]` and the like stay. */
export function stripAudioTags(text: string): string {
  return text
    .replaceAll(/\[[A-Za-z][A-Za-z '-]{0,39}\]/g, " ")
    .replaceAll(/[ \t]{2,}/g, " ")
    .replaceAll(/ +([,.!?;:])/g, "$1")
    .trim();
}

/** The persona file's text, read now so an edit applies to the next call. */
async function personaPrompt(file: string, home: string): Promise<string> {
  const path = file.startsWith("~/") ? join(homedir(), file.slice(2)) : file;
  const resolved = isAbsolute(path) ? path : join(home, path);
  let text: string;
  try {
    text = await readFile(resolved, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TtsError(
      `tts.gemini.persona_prompt_file ${resolved} could not be read (${code ?? "error"}); ` +
        "fix the path or set it to an empty string",
    );
  }
  return text.trim().slice(0, MAX_PERSONA_CHARS);
}

interface GeminiReply {
  candidates?: {
    finishReason?: string;
    content?: { parts?: { inlineData?: { mimeType?: string; data?: string } }[] };
  }[];
  promptFeedback?: { blockReason?: string };
}

function audioOf(body: Buffer): Buffer {
  let reply: GeminiReply;
  try {
    reply = JSON.parse(body.toString("utf8")) as GeminiReply;
  } catch {
    throw new TtsError("Gemini answered something that is not JSON where speech was expected");
  }
  const candidate = reply.candidates?.[0];
  const inline = candidate?.content?.parts?.find((part) => part.inlineData?.data)?.inlineData;
  if (!inline?.data) {
    const why = reply.promptFeedback?.blockReason ?? candidate?.finishReason;
    throw new TtsError(`Gemini answered without audio${why ? ` (${why})` : ""}; try other wording or another voice`);
  }
  const bytes = Buffer.from(inline.data, "base64");
  if (bytes.length === 0) throw new TtsError("Gemini answered with empty audio");
  if (isWav(bytes)) return bytes;
  const rate = Number(/rate=(\d+)/i.exec(inline.mimeType ?? "")?.[1]);
  return pcmToWav(bytes, { ...GEMINI_PCM, ...(rate > 0 && rate <= 192_000 ? { sampleRate: rate } : {}) });
}

export async function geminiSpeech(request: SpeechRequest): Promise<Buffer> {
  const key = geminiKey(request.env);
  if (!key) throw new TtsError("tts.provider gemini needs GEMINI_API_KEY (or GOOGLE_API_KEY) in ~/.hermes/.env");
  const { settings } = request;
  let text = settings.geminiAudioTags ? request.text : stripAudioTags(request.text);
  if (!text) throw new TtsError("there is no text to speak once the [bracketed] audio tags are taken out");
  const personaFile = settings.geminiPersonaPromptFile.trim();
  if (personaFile) {
    const persona = await personaPrompt(personaFile, request.home);
    if (persona) text = `${persona}\n\n${text}`;
  }
  const path = `models/${encodeURIComponent(settings.geminiModel)}:generateContent`;
  const body = await postForAudio(request.http, "Gemini", joinUrl(geminiBase(request.env), path), {
    headers: { "x-goog-api-key": key },
    body: {
      contents: [{ role: "user", parts: [{ text }] }],
      generationConfig: {
        responseModalities: ["AUDIO"],
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: request.voice || settings.geminiVoice } } },
      },
    },
    key,
    signal: request.signal,
  });
  return audioOf(body);
}
