/**
 * MP3 to Ogg/Opus with ffmpeg, when ffmpeg is on PATH: Telegram shows only Ogg/Opus as a voice
 * note, and Edge's voices come as MP3. Without ffmpeg, or when it fails, the MP3 stays.
 */
import { rmSync } from "node:fs";
import { findExecutable } from "../../util/executable.js";
import { isFile } from "../../util/fs-kind.js";
import type { Env } from "./types.js";

const TRANSCODE_TIMEOUT_MS = 30_000;

/** The Ogg/Opus file made from `mp3` (which is then removed), or undefined when that was not possible. */
export async function mp3ToOpus(mp3: string, env: Env): Promise<string | undefined> {
  const ffmpeg = findExecutable("ffmpeg", env.PATH ?? "");
  if (!ffmpeg) return undefined;
  const ogg = mp3.replace(/\.mp3$/i, "") + ".ogg";
  const { execFile } = await import("node:child_process");
  const done = await new Promise<boolean>((resolve) => {
    execFile(
      ffmpeg,
      ["-y", "-loglevel", "error", "-i", mp3, "-vn", "-c:a", "libopus", "-b:a", "48k", ogg],
      { timeout: TRANSCODE_TIMEOUT_MS, env: { ...process.env, PATH: env.PATH ?? "" } },
      (error) => resolve(!error),
    );
  });
  if (!done || !isFile(ogg)) {
    rmSync(ogg, { force: true });
    return undefined;
  }
  rmSync(mp3, { force: true });
  return ogg;
}
