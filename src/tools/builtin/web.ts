/**
 * The web toolset: `web_search` through Tavily, Exa or Firecrawl (whichever has a key), and
 * `web_extract`, which uses the same backend when there is one and otherwise fetches pages
 * itself and converts their HTML to markdown.
 */
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import { selectWebBackend } from "../web/backends.js";
import type { WebsiteBlocklist } from "../web/blocklist.js";
import { fetchPage } from "../web/fetch-page.js";
import type { Env, ExtractedPage } from "../web/types.js";

export const WEB_SEARCH_DEFAULT_LIMIT = 5;
export const WEB_SEARCH_MAX_LIMIT = 10;
export const WEB_EXTRACT_MAX_URLS = 5;
/** Total characters of page text one web_extract call returns, shared between its pages. */
const EXTRACT_TOTAL_CHARS = 90_000;
const EXTRACT_PAGE_MAX_CHARS = 50_000;

export interface WebToolsOptions {
  /** Backend by name (config `web.backend`); default: HERMES_WEB_BACKEND, else the first with a key. */
  backend?: string;
  /** `web.search_backend` / `web.extract_backend`: one tool's backend, in place of `backend`. */
  searchBackend?: string;
  extractBackend?: string;
  /** `web.extract_char_limit`: characters of one page web_extract returns at most. */
  extractPageChars?: number;
  /** Where API keys and base URLs are read, at call time (default process.env). */
  env?: () => Env;
  /** `web.allow_private_urls`: let the direct fetch read private and loopback addresses. */
  allowPrivateUrls?: boolean;
  /** `security.website_blocklist`, when enabled: hosts neither tool may reach or return. */
  blocklist?: WebsiteBlocklist | null;
}

export const webSearchParameters = z.object({
  query: z.string().min(1).describe("What to search the web for"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(WEB_SEARCH_MAX_LIMIT)
    .optional()
    .describe(`Number of results (default ${WEB_SEARCH_DEFAULT_LIMIT})`),
});

export const webExtractParameters = z.object({
  urls: z.array(z.string()).min(1).max(WEB_EXTRACT_MAX_URLS).describe("http(s) URLs"),
});

function currentEnv(options: WebToolsOptions): Env {
  return options.env ? options.env() : process.env;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function webSearchTool(
  args: z.infer<typeof webSearchParameters>,
  ctx: Pick<ToolContext, "signal">,
  options: WebToolsOptions = {},
): Promise<string> {
  const backend = selectWebBackend(currentEnv(options), options.searchBackend || options.backend);
  if (!backend) {
    return JSON.stringify({
      error: "Web search needs an API key: set TAVILY_API_KEY, EXA_API_KEY or FIRECRAWL_API_KEY.",
    });
  }
  const limit = args.limit ?? WEB_SEARCH_DEFAULT_LIMIT;
  try {
    const hits = await backend.search(args.query, limit, ctx.signal);
    const found = hits.filter((hit) => hit.url);
    const allowed = found.filter((hit) => !options.blocklist?.check(hit.url));
    const withheld = found.length - allowed.length;
    const results = allowed.slice(0, limit);
    return JSON.stringify({
      query: args.query,
      backend: backend.name,
      count: results.length,
      results,
      ...(withheld > 0 ? { withheld: `${withheld} result(s) on sites the website policy blocks` } : {}),
    });
  } catch (error) {
    return JSON.stringify({ error: `Web search failed: ${errorMessage(error)}`, backend: backend.name });
  }
}

function capPage(page: ExtractedPage, limit: number): ExtractedPage {
  if (page.content.length <= limit) return page;
  const removed = page.content.length - limit;
  return { ...page, content: `${page.content.slice(0, limit)}\n\n[... ${removed} more characters not shown ...]` };
}

export async function webExtractTool(
  args: z.infer<typeof webExtractParameters>,
  ctx: Pick<ToolContext, "signal">,
  options: WebToolsOptions = {},
): Promise<string> {
  const urls = args.urls.map((url) => url.trim()).filter(Boolean);
  if (urls.length === 0) return JSON.stringify({ error: "Give at least one URL." });
  const blocked = (url: string | URL) => options.blocklist?.check(url)?.message ?? null;
  // A blocked URL goes to no backend and is not fetched; it answers with the policy's reason.
  const refused = new Map(urls.flatMap((url) => (blocked(url) ? [[url, blocked(url)!] as const] : [])));
  const allowed = urls.filter((url) => !refused.has(url));
  const backend = selectWebBackend(currentEnv(options), options.extractBackend || options.backend);
  let pages: ExtractedPage[] | null = null;
  let backendError: string | undefined;
  if (backend && allowed.length > 0) {
    try {
      pages = await backend.extract(allowed, ctx.signal);
    } catch (error) {
      backendError = `${backend.name}: ${errorMessage(error)}`;
    }
  }
  const fetchOptions = {
    allowPrivate: options.allowPrivateUrls === true,
    ...(options.blocklist ? { blocked } : {}),
  };
  // Pages the backend could not read (or all of them, without a backend) are fetched directly.
  const fetched = await Promise.all(
    allowed.map(async (url, i): Promise<ExtractedPage> => {
      const fromBackend = pages?.[i];
      if (fromBackend && !fromBackend.error && fromBackend.content) {
        // The backend may have followed a redirect to a blocked site.
        const landed = blocked(fromBackend.url || url);
        return landed ? { url, title: "", content: "", error: landed } : fromBackend;
      }
      const direct = await fetchPage(url, ctx.signal, fetchOptions);
      if (direct.error && fromBackend?.error) direct.error = `${fromBackend.error}; direct fetch: ${direct.error}`;
      return direct;
    }),
  );
  const results = urls.map((url) => {
    const reason = refused.get(url);
    return reason ? { url, title: "", content: "", error: reason } : fetched[allowed.indexOf(url)]!;
  });
  const pageLimit = options.extractPageChars ?? EXTRACT_PAGE_MAX_CHARS;
  const perPage = Math.min(pageLimit, Math.floor(Math.max(EXTRACT_TOTAL_CHARS, pageLimit) / urls.length));
  return JSON.stringify({
    ...(backend ? { backend: backend.name } : { backend: "direct" }),
    ...(backendError ? { backend_error: backendError } : {}),
    results: results.map((page) => capPage(page, perPage)),
  });
}

export function registerWebTools(registry: ToolRegistry, options: WebToolsOptions = {}): void {
  registry.register({
    name: "web_search",
    toolset: "web",
    description:
      "Search the web for current information. Returns titles, URLs and short descriptions; " +
      "use web_extract to read a page in full.",
    parameters: webSearchParameters,
    handler: (args, ctx) => webSearchTool(args, ctx, options),
    check: () => selectWebBackend(currentEnv(options), options.searchBackend || options.backend) !== null,
    parallelSafe: true,
    untrustedOutput: true,
    emoji: "🌐",
  });
  registry.register({
    name: "web_extract",
    toolset: "web",
    description: `Read up to ${WEB_EXTRACT_MAX_URLS} web pages. Returns each page's main content as markdown.`,
    parameters: webExtractParameters,
    handler: (args, ctx) => webExtractTool(args, ctx, options),
    parallelSafe: true,
    maxResultChars: 100_000,
    untrustedOutput: true,
    emoji: "📄",
  });
}
