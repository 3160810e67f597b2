/** Pick the web backend from the keys that are set, or the one configured by name. */
import { exaBackend } from "./exa.js";
import { firecrawlBackend } from "./firecrawl.js";
import { tavilyBackend } from "./tavily.js";
import type { Env, WebBackend, WebBackendName } from "./types.js";

const FACTORIES: Record<WebBackendName, (env: Env) => WebBackend | null> = {
  tavily: tavilyBackend,
  exa: exaBackend,
  firecrawl: firecrawlBackend,
};

/** Order tried when no backend is named. */
export const WEB_BACKEND_ORDER: WebBackendName[] = ["tavily", "exa", "firecrawl"];

export function isWebBackendName(value: string): value is WebBackendName {
  return value in FACTORIES;
}

/**
 * The named backend (option, else HERMES_WEB_BACKEND) when its key is set; otherwise the first
 * in WEB_BACKEND_ORDER whose key is set; null when none is.
 */
export function selectWebBackend(env: Env = process.env, preferred?: string): WebBackend | null {
  const wanted = (preferred ?? env.HERMES_WEB_BACKEND ?? "").trim().toLowerCase();
  if (wanted && isWebBackendName(wanted)) {
    const backend = FACTORIES[wanted](env);
    if (backend) return backend;
  }
  for (const name of WEB_BACKEND_ORDER) {
    const backend = FACTORIES[name](env);
    if (backend) return backend;
  }
  return null;
}
