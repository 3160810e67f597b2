/** Exa (https://exa.ai/docs): POST /search and /contents with an x-api-key header. */
import { asArray, asRecord, asString, joinUrl, postJson } from "./http.js";
import type { Env, ExtractedPage, WebBackend } from "./types.js";

export const EXA_DEFAULT_BASE_URL = "https://api.exa.ai";
const SNIPPET_CHARS = 500;

export function exaBackend(env: Env): WebBackend | null {
  const key = env.EXA_API_KEY?.trim();
  if (!key) return null;
  const base = env.EXA_BASE_URL?.trim() || EXA_DEFAULT_BASE_URL;
  const headers = { "x-api-key": key };
  return {
    name: "exa",
    async search(query, limit, signal) {
      const body = { query, numResults: limit, type: "auto", contents: { text: { maxCharacters: SNIPPET_CHARS } } };
      const data = asRecord(await postJson(joinUrl(base, "search"), body, headers, signal, "Exa"));
      return asArray(data.results).map((raw) => {
        const hit = asRecord(raw);
        const highlights = asArray(hit.highlights).map(asString).join(" … ");
        const description = asString(hit.summary) || highlights || asString(hit.text);
        return { title: asString(hit.title), url: asString(hit.url), description };
      });
    },
    async extract(urls, signal) {
      const data = asRecord(await postJson(joinUrl(base, "contents"), { urls, text: true }, headers, signal, "Exa"));
      const pages = new Map<string, ExtractedPage>();
      for (const raw of asArray(data.results)) {
        const page = asRecord(raw);
        const url = asString(page.url) || asString(page.id);
        pages.set(url, { url, title: asString(page.title), content: asString(page.text) });
      }
      for (const raw of asArray(data.statuses)) {
        const status = asRecord(raw);
        if (status.status !== "error") continue;
        const url = asString(status.id);
        const reason = asRecord(status.error);
        const error = asString(reason.tag) || asString(status.error) || "extraction failed";
        pages.set(url, { url, title: "", content: "", error });
      }
      return urls.map((url) => pages.get(url) ?? { url, title: "", content: "", error: "Exa returned nothing" });
    },
  };
}
