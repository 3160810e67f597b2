/**
 * MP3 or WAV to Ogg/Opus with ffmpeg, when ffmpeg is on PATH: Telegram shows only Ogg/Opus as a
 * voice note, and Edge and xAI answer MP3, Gemini and piper WAV. Without ffmpeg, or when it
 * fails, the original file stays.
 */
import { rmSync } from "node:fs";
import { findExecutable } from "../../util/executable.js";
import { isFile } from "../../util/fs-kind.js";
import type { Env } from "./types.js";

const TRANSCODE_TIMEOUT_MS = 30_000;
const CONVERTIBLE = /\.(?:mp3|wav)$/i;

/**
 * The Ogg/Opus file made from `source` (an .mp3 or .wav, which is then removed), or undefined
 * when that was not possible.
 */
export async function toOpus(source: string, env: Env): Promise<string | undefined> {
  if (!CONVERTIBLE.test(source)) return undefined;
  const ffmpeg = findExecutable("ffmpeg", env.PATH ?? "");
  if (!ffmpeg) return undefined;
  const ogg = source.replace(CONVERTIBLE, ".ogg");
  const { execFile } = await import("node:child_process");
  const done = await new Promise<boolean>((resolve) => {
    execFile(
      ffmpeg,
      ["-y", "-loglevel", "error", "-i", source, "-vn", "-c:a", "libopus", "-b:a", "48k", ogg],
      { timeout: TRANSCODE_TIMEOUT_MS, env: { ...process.env, PATH: env.PATH ?? "" } },
      (error) => resolve(!error),
    );
  });
  if (!done || !isFile(ogg)) {
    rmSync(ogg, { force: true });
    return undefined;
  }
  rmSync(source, { force: true });
  return ogg;
}
