/**
 * Finds an OpenAI-compatible model server running on this machine (Ollama, LM Studio,
 * llama.cpp) by asking each default port for its model list. Used when no provider is
 * configured, so a first run against a local model needs no setup.
 */

export interface LocalServerCandidate {
  name: string;
  port: number;
}

export interface LocalServer {
  name: string;
  /** OpenAI-style base URL, ending in /v1. */
  baseUrl: string;
  /** The model picked: the first one the server lists. */
  model: string;
  models: string[];
}

export interface DetectOptions {
  /** Probed in parallel; the first in this order that answers wins. */
  candidates?: readonly LocalServerCandidate[];
  host?: string;
  /** Per-probe timeout in milliseconds (default 400). */
  timeoutMs?: number;
}

export const DEFAULT_LOCAL_SERVERS: readonly LocalServerCandidate[] = [
  { name: "Ollama", port: 11434 },
  { name: "LM Studio", port: 1234 },
  { name: "llama.cpp", port: 8080 },
];

const DEFAULT_TIMEOUT_MS = 400;

/** Model ids from an OpenAI-style `/v1/models` body (`{data: [{id}]}`), or Ollama's `{models: [{name}]}`. */
export function modelIdsFrom(body: unknown): string[] {
  if (!body || typeof body !== "object") return [];
  const record = body as { data?: unknown; models?: unknown };
  const list = Array.isArray(record.data) ? record.data : Array.isArray(record.models) ? record.models : [];
  const ids: string[] = [];
  for (const entry of list) {
    if (!entry || typeof entry !== "object") continue;
    const { id, name } = entry as { id?: unknown; name?: unknown };
    const value = typeof id === "string" ? id : typeof name === "string" ? name : undefined;
    if (value) ids.push(value);
  }
  return ids;
}

async function probe(candidate: LocalServerCandidate, host: string, timeoutMs: number): Promise<LocalServer | null> {
  const baseUrl = `http://${host}:${candidate.port}/v1`;
  try {
    const response = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return null;
    const models = modelIdsFrom(await response.json());
    const model = models[0];
    return model ? { name: candidate.name, baseUrl, model, models } : null;
  } catch {
    return null;
  }
}

/** The first local server (in candidate order) that answers with at least one model, or undefined. */
export async function detectLocalServer(options: DetectOptions = {}): Promise<LocalServer | undefined> {
  const candidates = options.candidates ?? DEFAULT_LOCAL_SERVERS;
  const host = options.host ?? "127.0.0.1";
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const found = await Promise.all(candidates.map((candidate) => probe(candidate, host, timeoutMs)));
  return found.find((server): server is LocalServer => server !== null);
}
