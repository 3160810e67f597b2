/**
 * The API server's settings: API_SERVER_* environment variables first, then
 * `gateway.api_server.*` in config.yaml. The server refuses to start without a real key, even
 * on loopback: any local process (or a web page through DNS rebinding) could otherwise drive
 * an agent that runs commands.
 */
import type { HermesConfig } from "../state/config-schema.js";

export interface ApiServerSettings {
  enabled: boolean;
  host: string;
  port: number;
  /** Accepted bearer keys (API_SERVER_KEY may list several, comma-separated). */
  keys: string[];
  /** Browser origins allowed by CORS; `*` allows any. Empty: no CORS headers at all. */
  corsOrigins: string[];
  modelName: string;
  maxConcurrentRuns: number;
  maxBodyBytes: number;
}

export const MIN_KEY_LENGTH = 16;
const PLACEHOLDER =
  /^(?:change[-_ ]?me|changeme.*|your[-_ ]?(?:api[-_ ]?)?key.*|x{6,}|<.*>|\.{3,}|placeholder.*|secret|password.*|test|example.*)$/i;

export class ApiServerSettingsError extends Error {
  override name = "ApiServerSettingsError";
}

function flag(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return /^(?:1|true|yes|on)$/i.test(value.trim());
}

function list(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

function port(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new ApiServerSettingsError(`API_SERVER_PORT must be a port number between 0 and 65535 (got "${raw}")`);
  }
  return value;
}

/** Why a key cannot be used, or undefined when it can. */
export function keyProblem(key: string): string | undefined {
  if (key.length < MIN_KEY_LENGTH) return `it is shorter than ${MIN_KEY_LENGTH} characters`;
  if (PLACEHOLDER.test(key)) return "it looks like a placeholder";
  if (new Set(key).size < 4) return "it repeats too few characters to be a secret";
  return undefined;
}

export function resolveApiServerSettings(config: HermesConfig, env: NodeJS.ProcessEnv): ApiServerSettings {
  const section = config.gateway.api_server;
  const rawKeys = env.API_SERVER_KEY?.trim() ? env.API_SERVER_KEY : section.key;
  return {
    enabled: flag(env.API_SERVER_ENABLED) ?? section.enabled,
    host: env.API_SERVER_HOST?.trim() || section.host,
    port: port(env.API_SERVER_PORT, section.port),
    keys: list(rawKeys),
    corsOrigins: list(env.API_SERVER_CORS_ORIGINS ?? section.cors_origins),
    modelName: env.API_SERVER_MODEL_NAME?.trim() || section.model_name,
    maxConcurrentRuns: section.max_concurrent_runs,
    maxBodyBytes: section.max_body_bytes,
  };
}

/** Throws ApiServerSettingsError with what to do when the keys cannot protect the server. */
export function assertUsableKeys(settings: ApiServerSettings): void {
  const howTo =
    "Generate one with `openssl rand -hex 32` and put it in ~/.hermes/.env as API_SERVER_KEY=... (several keys: comma-separated).";
  if (settings.keys.length === 0) {
    throw new ApiServerSettingsError(`the API server needs API_SERVER_KEY, even on ${settings.host}. ${howTo}`);
  }
  for (const [index, key] of settings.keys.entries()) {
    const problem = keyProblem(key);
    if (problem) {
      const which = settings.keys.length > 1 ? `key ${index + 1} of API_SERVER_KEY` : "API_SERVER_KEY";
      throw new ApiServerSettingsError(`${which} cannot protect the server: ${problem}. ${howTo}`);
    }
  }
}
