/** Tavily (https://docs.tavily.com): POST /search and /extract with a bearer key. */
import { asArray, asRecord, asString, joinUrl, postJson } from "./http.js";
import type { Env, ExtractedPage, WebBackend } from "./types.js";

export const TAVILY_DEFAULT_BASE_URL = "https://api.tavily.com";

export function tavilyBackend(env: Env): WebBackend | null {
  const key = env.TAVILY_API_KEY?.trim();
  if (!key) return null;
  const base = env.TAVILY_BASE_URL?.trim() || TAVILY_DEFAULT_BASE_URL;
  const headers = { authorization: `Bearer ${key}` };
  return {
    name: "tavily",
    async search(query, limit, signal) {
      const body = { query, max_results: limit, search_depth: "basic", include_answer: false };
      const data = asRecord(await postJson(joinUrl(base, "search"), body, headers, signal, "Tavily"));
      return asArray(data.results).map((raw) => {
        const hit = asRecord(raw);
        return { title: asString(hit.title), url: asString(hit.url), description: asString(hit.content) };
      });
    },
    async extract(urls, signal) {
      const data = asRecord(await postJson(joinUrl(base, "extract"), { urls }, headers, signal, "Tavily"));
      const pages = new Map<string, ExtractedPage>();
      for (const raw of asArray(data.results)) {
        const page = asRecord(raw);
        const url = asString(page.url);
        pages.set(url, { url, title: asString(page.title), content: asString(page.raw_content) });
      }
      for (const raw of asArray(data.failed_results)) {
        const failed = asRecord(raw);
        const url = asString(failed.url);
        pages.set(url, { url, title: "", content: "", error: asString(failed.error) || "extraction failed" });
      }
      return urls.map((url) => pages.get(url) ?? { url, title: "", content: "", error: "Tavily returned nothing" });
    },
  };
}
