/**
 * Speech to text for voice messages (`stt.*`): the gateway turns an audio attachment into its
 * transcript before the turn, so the model reads what was said. Providers:
 * - `local`: a command on this machine, `HERMES_LOCAL_STT_COMMAND` (a template with
 *   {input_path}, {output_dir}, {model} and {language}) or else the `whisper` CLI on PATH;
 *   it writes a `.txt` file into the output directory;
 * - `openai`: an OpenAI-compatible `/audio/transcriptions` endpoint (`STT_OPENAI_BASE_URL`,
 *   default OpenAI's; key `VOICE_TOOLS_OPENAI_KEY`, else `OPENAI_API_KEY`), so a local
 *   whisper server works too;
 * - `groq`: Groq's endpoint (`GROQ_API_KEY`, `GROQ_BASE_URL`);
 * - `mistral` (Voxtral, `MISTRAL_API_KEY`) and `elevenlabs` (Scribe, `ELEVENLABS_API_KEY`).
 * The hosted ones are described in stt-endpoints.ts.
 * With `local` and no command here, a provider whose key is set (groq, then openai) steps in.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, extname, join } from "node:path";
import { httpRequest } from "../llm/http-client.js";
import { proxyForUrl } from "../llm/proxy.js";
import { commandEnv } from "../tools/process-group.js";
import { findExecutable } from "../util/executable.js";
import { redactSecrets } from "../util/redact.js";
import { type Endpoint, hostedEndpoint, type SttSettings } from "./stt-endpoints.js";

export type { SttSettings } from "./stt-endpoints.js";

export type Transcription = { text: string } | { error: string };

type Env = Record<string, string | undefined>;

/** The hosted APIs take files up to this size. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
const TIMEOUT_MS = 120_000;
/** Names that only hosted APIs know; a local whisper gets its default size instead. */
const HOSTED_MODEL = /^(?:whisper-1|gpt-4o(?:-mini)?-transcribe|whisper-large-v3(?:-turbo)?|distil-whisper)/;

/** The shell command for the `local` provider, or undefined when this machine has none. */
export function localCommand(env: Env): string | undefined {
  const configured = env.HERMES_LOCAL_STT_COMMAND?.trim();
  if (configured) return configured;
  const whisper = findExecutable("whisper", env.PATH ?? "");
  return whisper
    ? `${shellQuote(whisper)} {input_path} --model {model} --output_format txt --output_dir {output_dir} --language {language}`
    : undefined;
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export async function transcribe(
  path: string,
  settings: SttSettings,
  env: Env = process.env,
  signal?: AbortSignal,
): Promise<Transcription> {
  const provider = settings.provider.trim().toLowerCase() || "local";
  if (provider === "local") {
    const command = localCommand(env);
    if (command) return runLocal(command, path, settings, env, signal);
    const stepIn = ["groq", "openai"].map((p) => hostedEndpoint(p, settings, env)).find((e) => typeof e !== "string");
    if (!stepIn) {
      return {
        error:
          "no speech-to-text here: install the whisper CLI or set HERMES_LOCAL_STT_COMMAND, " +
          "or set stt.provider to openai (VOICE_TOOLS_OPENAI_KEY) or groq (GROQ_API_KEY)",
      };
    }
    return upload(stepIn as Endpoint, path, signal);
  }
  const endpoint = hostedEndpoint(provider, settings, env);
  return typeof endpoint === "string" ? { error: endpoint } : upload(endpoint, path, signal);
}

function multipart(fields: Record<string, string>, fileName: string, file: Uint8Array): { body: Buffer; type: string } {
  const boundary = `hermes-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  const safeName = fileName.replaceAll(/["\r\n\\]/g, "_");
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\n` +
        "Content-Type: application/octet-stream\r\n\r\n",
    ),
    Buffer.from(file),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

async function upload(endpoint: Endpoint, path: string, signal?: AbortSignal): Promise<Transcription> {
  const size = statSync(path).size;
  if (size > MAX_UPLOAD_BYTES) {
    return { error: `the recording is ${size} bytes; ${endpoint.provider} takes at most ${MAX_UPLOAD_BYTES}` };
  }
  const { body, type } = multipart(endpoint.fields, basename(path), readFileSync(path));
  const limit = AbortSignal.timeout(TIMEOUT_MS);
  try {
    const response = await httpRequest(endpoint.url, {
      method: "POST",
      headers: { ...endpoint.headers, "content-type": type },
      body,
      signal: signal ? AbortSignal.any([signal, limit]) : limit,
      proxy: proxyForUrl(endpoint.url),
      context: { provider: endpoint.provider, model: endpoint.model },
    });
    const text = await response.text();
    if (response.status >= 400) {
      const said = clean(text, endpoint.key);
      return { error: `${endpoint.provider} answered ${response.status}: ${said}${hint(response.status)}` };
    }
    let parsed: { text?: unknown };
    try {
      parsed = JSON.parse(text) as { text?: unknown };
    } catch {
      return { error: `${endpoint.provider} answered something that is not JSON: ${clean(text, endpoint.key)}` };
    }
    return typeof parsed.text === "string" ? { text: parsed.text.trim() } : { error: "the reply had no text" };
  } catch (error) {
    if (limit.aborted) return { error: `${endpoint.provider} gave no transcript within ${TIMEOUT_MS / 1000}s` };
    if (signal?.aborted) return { error: `the transcription by ${endpoint.provider} was interrupted` };
    const message = error instanceof Error ? error.message : String(error);
    return { error: `could not reach ${endpoint.provider}: ${clean(message, endpoint.key)}` };
  }
}

/** What a service said, short, with the key (and anything like one) taken out. */
function clean(text: string, key: string): string {
  return redactSecrets(text.replaceAll(key, "[key]").replaceAll(/\s+/g, " ").trim().slice(0, 200));
}

function hint(status: number): string {
  if (status === 401 || status === 403) return " (the API key was refused: check it)";
  if (status === 429) return " (rate limited or out of credits: try again later)";
  if (status >= 500) return " (a problem on the service's side: try again later)";
  return "";
}

async function runLocal(
  template: string,
  path: string,
  settings: SttSettings,
  env: Env,
  signal?: AbortSignal,
): Promise<Transcription> {
  const outputDir = mkdtempSync(join(tmpdir(), "hermes-stt-"));
  try {
    const model = HOSTED_MODEL.test(settings.localModel) ? "base" : settings.localModel || "base";
    const language = settings.localLanguage.trim() || env.HERMES_LOCAL_STT_LANGUAGE?.trim() || "en";
    const values: Record<string, string> = { input_path: path, output_dir: outputDir, model, language };
    const command = template.replaceAll(/\{(input_path|output_dir|model|language)\}/g, (_, name: string) =>
      shellQuote(values[name]!),
    );
    const failure = await runShell(command, signal);
    if (failure) return { error: failure };
    const stem = basename(path, extname(path));
    const files = readdirSync(outputDir).filter((name) => name.endsWith(".txt"));
    const chosen = files.find((name) => name === `${stem}.txt`) ?? files[0];
    if (!chosen) return { error: "the local speech-to-text command wrote no .txt file" };
    return { text: readFileSync(join(outputDir, chosen), "utf8").trim() };
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}

/** Runs `command` in bash; resolves with why it failed, or undefined. */
function runShell(command: string, signal?: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    // The agent's provider keys stay out of it, as out of every command.
    const child = spawn("bash", ["-c", command], { stdio: ["ignore", "ignore", "pipe"], env: commandEnv() });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    const stop = () => child.kill("SIGKILL");
    const timer = setTimeout(stop, TIMEOUT_MS);
    signal?.addEventListener("abort", stop, { once: true });
    child.on("error", (error) => resolve(`the local speech-to-text command could not start: ${error.message}`));
    child.on("close", (code, killed) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      if (code === 0) resolve(undefined);
      else
        resolve(`the local speech-to-text command failed (${killed ?? `exit ${code}`}): ${stderr.trim().slice(-300)}`);
    });
  });
}
