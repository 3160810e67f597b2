/**
 * Context windows that servers reported, kept between runs in HERMES_HOME/context_length_cache.yaml
 * under `context_lengths`, keyed `<model>@<base URL>`: the file and layout the original agent
 * keeps, so a home carried over keeps what it learned, and a run against a custom or local
 * server does not ask the server again before its first request.
 *
 * The file is read on every such run, so the layout the cache is written in is read without
 * a YAML parser; anything else in the file goes to the `yaml` package. A file that cannot be
 * read as a cache counts as empty: it only ever saves a probe.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { atomicWriteFile } from "../util/atomic-write.js";

export const CONTEXT_LENGTH_CACHE_FILE = "context_length_cache.yaml";

export function contextLengthKey(model: string, baseUrl: string): string {
  return `${model}@${baseUrl}`;
}

const HEADER = /^context_lengths:(?: \{\})?$/;
const ENTRY = /^ {2}(.+): ([1-9][0-9]*)$/;
/** A plain (unquoted) YAML key that needs no parser to read: no indicator first, no `: ` or ` #` inside. */
const PLAIN_KEY = /^[^-?:,[\]{}#&*!|>'"%@`\s](?:(?!: | #).)*$/;

function readKey(raw: string): string | undefined {
  if (raw.length >= 2 && raw.startsWith("'") && raw.endsWith("'")) {
    const inner = raw.slice(1, -1);
    return /'(?!')/.test(inner.replaceAll("''", "")) ? undefined : inner.replaceAll("''", "'");
  }
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    const inner = raw.slice(1, -1);
    return /["\\]/.test(inner) ? undefined : inner;
  }
  return PLAIN_KEY.test(raw) ? raw : undefined;
}

/** The entries of a file in the layout the cache is written in; undefined for anything else. */
export function readCacheLayout(text: string): Map<string, number> | undefined {
  const entries = new Map<string, number>();
  let header = false;
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    if (!header) {
      if (!HEADER.test(line)) return undefined;
      header = true;
      continue;
    }
    const match = ENTRY.exec(line);
    const key = match ? readKey(match[1]!) : undefined;
    if (!match || key === undefined || entries.has(key)) return undefined;
    entries.set(key, Number(match[2]));
  }
  return header ? entries : undefined;
}

async function readWithParser(text: string): Promise<Map<string, number>> {
  const entries = new Map<string, number>();
  let parsed: unknown;
  try {
    parsed = (await import("yaml")).parse(text);
  } catch {
    return entries;
  }
  const section = (parsed as { context_lengths?: unknown } | null)?.context_lengths;
  if (!section || typeof section !== "object" || Array.isArray(section)) return entries;
  for (const [key, value] of Object.entries(section)) {
    if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) entries.set(key, value);
  }
  return entries;
}

export async function readContextLengths(home: string): Promise<Map<string, number>> {
  const path = join(home, CONTEXT_LENGTH_CACHE_FILE);
  if (!existsSync(path)) return new Map();
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return new Map();
  }
  return readCacheLayout(text) ?? (await readWithParser(text));
}

export async function cachedContextLength(home: string, model: string, baseUrl: string): Promise<number | undefined> {
  return (await readContextLengths(home)).get(contextLengthKey(model, baseUrl));
}

/** Adds (or replaces) one model's window, keeping the other entries; keys sorted, as the original writes them. */
export async function rememberContextLength(
  home: string,
  model: string,
  baseUrl: string,
  tokens: number,
): Promise<void> {
  const entries = await readContextLengths(home);
  entries.set(contextLengthKey(model, baseUrl), tokens);
  const sorted = Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const { stringify } = await import("yaml");
  atomicWriteFile(join(home, CONTEXT_LENGTH_CACHE_FILE), stringify({ context_lengths: sorted }));
}
