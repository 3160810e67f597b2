/**
 * Firecrawl (https://docs.firecrawl.dev): POST /v2/search and /v2/scrape with a bearer key.
 * A self-hosted instance (FIRECRAWL_API_URL) may run without a key.
 */
import { asArray, asRecord, asString, joinUrl, postJson } from "./http.js";
import type { Env, ExtractedPage, WebBackend } from "./types.js";

export const FIRECRAWL_DEFAULT_BASE_URL = "https://api.firecrawl.dev";

export function firecrawlBackend(env: Env): WebBackend | null {
  const key = env.FIRECRAWL_API_KEY?.trim();
  const selfHosted = env.FIRECRAWL_API_URL?.trim();
  if (!key && !selfHosted) return null;
  const base = env.FIRECRAWL_BASE_URL?.trim() || selfHosted || FIRECRAWL_DEFAULT_BASE_URL;
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  return {
    name: "firecrawl",
    async search(query, limit, signal) {
      const data = asRecord(await postJson(joinUrl(base, "v2/search"), { query, limit }, headers, signal, "Firecrawl"));
      // v2 groups results by source ({web: [...]}); v1 answered with a flat list.
      const list = Array.isArray(data.data) ? data.data : asRecord(data.data).web;
      return asArray(list).map((raw) => {
        const hit = asRecord(raw);
        return { title: asString(hit.title), url: asString(hit.url), description: asString(hit.description) };
      });
    },
    async extract(urls, signal) {
      return Promise.all(urls.map((url) => scrape(base, headers, url, signal)));
    },
  };
}

async function scrape(
  base: string,
  headers: Record<string, string>,
  url: string,
  signal: AbortSignal,
): Promise<ExtractedPage> {
  try {
    const body = { url, formats: ["markdown"], onlyMainContent: true };
    const data = asRecord(await postJson(joinUrl(base, "v2/scrape"), body, headers, signal, "Firecrawl"));
    const page = asRecord(data.data);
    const metadata = asRecord(page.metadata);
    if (data.success === false) return { url, title: "", content: "", error: asString(data.error) || "scrape failed" };
    // metadata.url is where the scrape landed after redirects (the web tools check it against the website policy).
    return { url: asString(metadata.url) || url, title: asString(metadata.title), content: asString(page.markdown) };
  } catch (error) {
    return { url, title: "", content: "", error: (error as Error).message };
  }
}
