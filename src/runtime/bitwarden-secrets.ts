/**
 * Secrets from Bitwarden Secrets Manager, put into the environment at start-up
 * (`secrets.bitwarden.*`; see docs/security.md). Loaded only when `secrets.bitwarden.enabled`.
 *
 * What we rely on from Bitwarden's `bws` CLI (crate `bws` in bitwarden/sdk-sm):
 * - `bws secret list [PROJECT_ID] --output json --color no [--server-url URL]` prints a JSON
 *   array of secrets, each `{id, organizationId, projectId (or null), key, value, note,
 *   creationDate, revisionDate}`; `[]` when the token can read none. Without PROJECT_ID (a
 *   UUID) it lists every secret the machine account can read.
 * - The access token comes from `--access-token` or the `BWS_ACCESS_TOKEN` environment
 *   variable. We use the variable, so the token never shows in a process listing.
 * - `--server-url` (also `BWS_SERVER_URL`) must start with http:// or https://; it replaces
 *   the API and identity URLs of bws's config profile (self-hosted or EU servers).
 * - On failure bws exits 1 and writes a color-eyre report to stderr ("Error: ... Location:
 *   ..."), such as "Missing access token" or the server's refusal. Its stderr is only shown
 *   redacted, without the token, and shortened.
 * - `bws` is installed by the user (`cargo install bws --locked`, or a release binary); we
 *   never download it, whatever `auto_install` says.
 */
import { type ExecFileException, execFile } from "node:child_process";
import {
  type BitwardenCacheKey,
  type CachedSecret,
  readBitwardenCache,
  removeBitwardenCache,
  writeBitwardenCache,
} from "../state/bitwarden-cache.js";
import type { BitwardenSettings } from "../state/config-secrets.js";
import { isEnvVarName } from "../state/dotenv.js";
import { log } from "../util/log.js";
import { redactSecrets } from "../util/redact.js";
import { registerSecretValue } from "../util/redact-known.js";

export const BWS_TIMEOUT_MS = 30_000;
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
const MAX_SHOWN_STDERR = 300;
const INSTALL_HELP =
  "install it with `cargo install bws --locked` or from https://bitwarden.com/help/secrets-manager-cli/";
const CONTINUING = "continuing without Bitwarden secrets";

export type BitwardenNoticeLevel = "warning" | "important";

export interface BitwardenLoadOptions {
  home: string;
  settings: BitwardenSettings;
  /** The environment to read the token from and put the secrets into (default process.env). */
  env?: NodeJS.ProcessEnv;
  notice?: (message: string, level: BitwardenNoticeLevel) => void;
  /** Milliseconds bws may take (default 30 s). */
  timeoutMs?: number;
  now?: number;
}

export interface BitwardenLoadResult {
  /** Where the secrets came from; "none" when nothing could be fetched (see `problem`). */
  source: "bws" | "cache" | "none";
  /** Variables set from Bitwarden. */
  loaded: string[];
  /** Variables already set and kept (`override_existing: false`). */
  kept: string[];
  /** Secret keys that cannot be environment variable names, or that would replace the token itself. */
  skipped: string[];
  problem?: string;
}

/** Per process: a gateway loads before its platforms start and again when it opens the runtime. */
const doneInThisProcess = new Map<string, BitwardenLoadResult>();

export async function loadBitwardenSecrets(options: BitwardenLoadOptions): Promise<BitwardenLoadResult> {
  const env = options.env ?? process.env;
  const token = env[options.settings.access_token_env]?.trim() ?? "";
  if (env !== process.env) return load(options, env, token);
  const memoKey = JSON.stringify([options.home, options.settings, token]);
  const earlier = doneInThisProcess.get(memoKey);
  if (earlier) return earlier;
  const result = await load(options, env, token);
  doneInThisProcess.set(memoKey, result);
  return result;
}

async function load(
  options: BitwardenLoadOptions,
  env: NodeJS.ProcessEnv,
  token: string,
): Promise<BitwardenLoadResult> {
  const { settings } = options;
  const notice = options.notice ?? (() => {});
  const failed = (problem: string): BitwardenLoadResult => {
    notice(problem, "important");
    return { source: "none", loaded: [], kept: [], skipped: [], problem };
  };
  if (!token) {
    return failed(
      `secrets.bitwarden is enabled but ${settings.access_token_env} is not set: put the machine account's ` +
        `access token in it (in your shell or $HERMES_HOME/.env); ${CONTINUING}`,
    );
  }
  const cacheKey: BitwardenCacheKey = { token, projectId: settings.project_id, serverUrl: settings.server_url };
  let secrets = readBitwardenCache(options.home, cacheKey, settings.cache_ttl_seconds, options.now);
  const source = secrets ? "cache" : "bws";
  if (!secrets) {
    const fetched = await fetchWithBws(settings, token, env, options.timeoutMs ?? BWS_TIMEOUT_MS);
    if (typeof fetched === "string") return failed(fetched);
    secrets = fetched;
    saveToCache(options, cacheKey, secrets, notice);
  }
  const result = { source, ...applySecrets(secrets, settings, env, notice) } as const;
  log("info", "secrets", "Bitwarden secrets in the environment", {
    from: source,
    set: result.loaded.length,
    kept: result.kept.length,
    skipped: result.skipped.length,
  });
  return result;
}

function saveToCache(
  options: BitwardenLoadOptions,
  key: BitwardenCacheKey,
  secrets: CachedSecret[],
  notice: (message: string, level: BitwardenNoticeLevel) => void,
): void {
  try {
    if (options.settings.cache_ttl_seconds > 0) writeBitwardenCache(options.home, key, secrets, options.now);
    else removeBitwardenCache(options.home);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    notice(
      `could not write the Bitwarden secrets cache under $HERMES_HOME/cache (${code}); the next start fetches again`,
      "warning",
    );
  }
}

function bwsArguments(settings: BitwardenSettings): string[] {
  const args = ["secret", "list"];
  if (settings.project_id) args.push(settings.project_id);
  args.push("--output", "json", "--color", "no");
  if (settings.server_url) args.push("--server-url", settings.server_url);
  return args;
}

/** The secrets bws lists, or a one-line problem that names neither the token nor a value. */
function fetchWithBws(
  settings: BitwardenSettings,
  token: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<CachedSecret[] | string> {
  const childEnv = { ...env, BWS_ACCESS_TOKEN: token };
  return new Promise((resolve) => {
    execFile(
      "bws",
      bwsArguments(settings),
      { env: childEnv, timeout: timeoutMs, maxBuffer: MAX_OUTPUT_BYTES, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) resolve(describeFailure(error, String(stderr), token, settings, timeoutMs));
        else resolve(parseSecretList(String(stdout)));
      },
    );
  });
}

function describeFailure(
  error: ExecFileException,
  stderr: string,
  token: string,
  settings: BitwardenSettings,
  timeoutMs: number,
): string {
  if (error.code === "ENOENT") {
    const noDownload = settings.auto_install
      ? " (secrets.bitwarden.auto_install is not supported: Hermes never downloads programs)"
      : "";
    return `secrets.bitwarden is enabled but bws, Bitwarden's Secrets Manager CLI, is not on PATH: ${INSTALL_HELP}${noDownload}; ${CONTINUING}`;
  }
  if (error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") return `bws printed more than 16 MiB; ${CONTINUING}`;
  if (error.killed && error.signal) return `bws did not answer within ${timeoutMs / 1000} s; ${CONTINUING}`;
  const exit = typeof error.code === "number" ? `exit ${error.code}` : (error.signal ?? error.code ?? "failed");
  const said = shownStderr(stderr, token);
  return (
    `bws secret list failed (${exit})${said ? `: ${said}` : ""}. Check the access token in ` +
    `${settings.access_token_env}, secrets.bitwarden.project_id and server_url; ${CONTINUING}`
  );
}

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/** bws's own words, without colours, the token, anything secret-shaped, or its source locations. */
export function shownStderr(stderr: string, token: string): string {
  let text = stderr.replace(ANSI, "");
  const location = text.search(/\n\s*Location:/);
  if (location >= 0) text = text.slice(0, location);
  text = text.split(token).join("***");
  text = redactSecrets(text).replace(/\s+/g, " ").trim();
  return text.length > MAX_SHOWN_STDERR ? `${text.slice(0, MAX_SHOWN_STDERR)}…` : text;
}

function parseSecretList(stdout: string): CachedSecret[] | string {
  const notAList = `bws printed something other than a JSON list of secrets (${stdout.length} bytes); ${CONTINUING}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return notAList;
  }
  if (!Array.isArray(parsed)) return notAList;
  const secrets: CachedSecret[] = [];
  for (const item of parsed) {
    if (typeof item?.key === "string" && typeof item?.value === "string") {
      secrets.push({ key: item.key, value: item.value });
    }
  }
  return secrets;
}

/** A key as shown in a notice: quoted, control characters escaped, long ones cut. */
function shownKey(key: string): string {
  return JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key);
}

function applySecrets(
  secrets: readonly CachedSecret[],
  settings: BitwardenSettings,
  env: NodeJS.ProcessEnv,
  notice: (message: string, level: BitwardenNoticeLevel) => void,
): Omit<BitwardenLoadResult, "source"> {
  const loaded = new Set<string>();
  const kept: string[] = [];
  const skipped: string[] = [];
  const repeated = new Set<string>();
  for (const { key, value } of secrets) {
    registerSecretValue(value);
    if (!isEnvVarName(key) || key === settings.access_token_env) {
      skipped.push(key);
      continue;
    }
    if (loaded.has(key)) repeated.add(key);
    else if (env[key] !== undefined && !settings.override_existing) {
      if (!kept.includes(key)) kept.push(key);
      continue;
    }
    env[key] = value;
    loaded.add(key);
  }
  const invalid = skipped.filter((key) => key !== settings.access_token_env);
  if (invalid.length > 0) {
    notice(
      `skipped ${invalid.length} Bitwarden secret(s) whose key is not an environment variable name ` +
        `(letters, digits and _, not starting with a digit): ${invalid.map(shownKey).join(", ")}`,
      "warning",
    );
  }
  if (skipped.includes(settings.access_token_env)) {
    notice(
      `a Bitwarden secret named ${settings.access_token_env} was not applied: it would replace the access token itself`,
      "warning",
    );
  }
  if (repeated.size > 0) {
    notice(
      `more than one Bitwarden secret has the key ${[...repeated].map(shownKey).join(", ")}; the last one bws listed is used`,
      "warning",
    );
  }
  return { loaded: [...loaded], kept, skipped };
}
