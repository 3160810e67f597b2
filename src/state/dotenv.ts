/**
 * `$HERMES_HOME/.env`: secrets only. Loaded into process.env without overriding variables
 * the user already set, and edited line by line so comments and other entries survive.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { atomicWriteFile } from "../util/atomic-write.js";
import { hermesPaths } from "./paths.js";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isEnvVarName(name: string): boolean {
  return ENV_NAME.test(name);
}

export function readDotEnv(home: string): Record<string, string> {
  const path = hermesPaths(home).env;
  if (!existsSync(path)) return {};
  const parsed = parseEnv(readFileSync(path, "utf8"));
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) if (value !== undefined) out[key] = value;
  return out;
}

/** Copy `.env` entries into process.env, keeping any value already set. Returns the names applied. */
export function loadDotEnv(home: string): { path: string; loaded: string[] } {
  const loaded: string[] = [];
  for (const [key, value] of Object.entries(readDotEnv(home))) {
    if (process.env[key] === undefined) {
      process.env[key] = value;
      loaded.push(key);
    }
  }
  return { path: hermesPaths(home).env, loaded };
}

function quote(value: string): string {
  if (/^[A-Za-z0-9_\-.,:/@+=%~]*$/.test(value)) return value;
  if (!value.includes("\n")) {
    if (!value.includes("'")) return `'${value}'`;
    if (!value.includes('"')) return `"${value}"`;
    if (!value.includes("`")) return `\`${value}\``;
  } else if (!value.includes('"')) {
    return `"${value.replace(/\n/g, "\\n")}"`;
  }
  throw new Error("this value mixes quotes and newlines in a way .env cannot hold; set it in your shell instead");
}

function lineKey(line: string): string | undefined {
  return /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
}

function rewrite(home: string, key: string, replacement: string | undefined): string {
  if (!isEnvVarName(key)) throw new Error(`"${key}" is not a valid environment variable name`);
  const path = hermesPaths(home).env;
  const lines = existsSync(path) ? readFileSync(path, "utf8").split("\n") : [];
  if (lines.at(-1) === "") lines.pop();
  const kept: string[] = [];
  let placed = false;
  for (const line of lines) {
    if (lineKey(line) !== key) kept.push(line);
    else if (replacement !== undefined && !placed) {
      kept.push(replacement);
      placed = true;
    }
  }
  if (replacement !== undefined && !placed) kept.push(replacement);
  atomicWriteFile(path, kept.length ? `${kept.join("\n")}\n` : "", { mode: 0o600 });
  return path;
}

/** Set `KEY=value` in `.env` (file mode 0600). Returns the file path. */
export function setEnvValue(home: string, key: string, value: string): string {
  return rewrite(home, key, `${key}=${quote(value)}`);
}

/** Remove every `KEY=` line from `.env`. Returns the file path. */
export function unsetEnvValue(home: string, key: string): string {
  return rewrite(home, key, undefined);
}
