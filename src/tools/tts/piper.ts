/**
 * Piper, a local program (`piper` on PATH): `piper --model <voice.onnx> --output_file <wav>`
 * with the text on stdin, as both the original binary and the `piper-tts` Python package take it.
 * The voice is `tts.piper.voice`: a name whose `<name>.onnx` (and `.onnx.json`) sit in
 * `$HERMES_HOME/cache/piper/`, or a path to an .onnx model. Nothing leaves the machine.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { findExecutable } from "../../util/executable.js";
import { isFile } from "../../util/fs-kind.js";
import { commandEnv } from "../process-group.js";
import { MAX_AUDIO_BYTES, type SpeechRequest, TtsError } from "./types.js";
import { isWav } from "./wav.js";

const VOICE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function piperVoiceDir(home: string): string {
  return join(home, "cache", "piper");
}

/**
 * The .onnx file for a voice. A path is taken only from config: a voice the model names in a
 * call must be a plain name in the voice folder.
 */
export function piperModelPath(voice: string, home: string, fromConfig: boolean): string {
  const given = voice.trim();
  const expanded = given.startsWith("~/") ? join(homedir(), given.slice(2)) : given;
  const dir = piperVoiceDir(home);
  let path: string;
  if (fromConfig && isAbsolute(expanded)) path = expanded;
  else if (VOICE_NAME.test(given)) path = join(dir, given.endsWith(".onnx") ? given : `${given}.onnx`);
  else throw new TtsError(`"${voice}" is not a piper voice name (like en_US-lessac-medium)`);
  if (!isFile(path)) {
    const name = given.replace(/\.onnx$/, "");
    throw new TtsError(
      `no piper voice model at ${path}; put ${VOICE_NAME.test(name) ? name : "<voice>"}.onnx and its .onnx.json in ${dir} ` +
        `(python3 -m piper.download_voices <voice> --data-dir ${dir}), or set tts.piper.voice to a model's path`,
    );
  }
  return path;
}

/** Runs piper to completion; resolves with why it failed, or undefined. */
function runPiper(
  program: string,
  args: string[],
  text: string,
  path: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { stdio: ["pipe", "ignore", "pipe"], env: { ...commandEnv(), PATH: path } });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    const stop = () => child.kill("SIGKILL");
    signal.addEventListener("abort", stop, { once: true });
    child.stdin.on("error", () => undefined); // piper may exit before reading all of it
    child.stdin.end(text);
    child.on("error", (error) => {
      signal.removeEventListener("abort", stop);
      resolve(`piper could not start: ${error.message}`);
    });
    child.on("close", (code, killed) => {
      signal.removeEventListener("abort", stop);
      if (code === 0) return resolve(undefined);
      const said = stderr.trim().split("\n").slice(-3).join(" ").slice(-300);
      resolve(`piper failed (${killed ?? `exit ${code}`})${said ? `: ${said}` : ""}`);
    });
  });
}

export async function piperSpeech(request: SpeechRequest): Promise<Buffer> {
  const path = request.env.PATH ?? process.env.PATH ?? "";
  const program = findExecutable("piper", path);
  if (!program) {
    throw new TtsError(
      "tts.provider piper needs the piper program on PATH (pip install piper-tts, or a piper release)",
    );
  }
  const model = piperModelPath(request.voice || request.settings.piperVoice, request.home, !request.voice);
  const dir = await mkdtemp(join(tmpdir(), "hermes-piper-"));
  try {
    const out = join(dir, "speech.wav");
    const failure = await runPiper(
      program,
      ["--model", model, "--output_file", out],
      request.text,
      path,
      request.signal,
    );
    if (request.signal.aborted) throw new TtsError("piper did not finish in time or was interrupted");
    if (failure) throw new TtsError(failure);
    const audio = await readFile(out).catch(() => undefined);
    if (!audio || audio.length === 0) throw new TtsError("piper finished but wrote no audio");
    if (!isWav(audio)) throw new TtsError("piper wrote something that is not a WAV file");
    if (audio.length > MAX_AUDIO_BYTES)
      throw new TtsError(`piper wrote more than the ${MAX_AUDIO_BYTES} bytes allowed`);
    return audio;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
