/**
 * `x_search` (toolset `x_search`): asks xAI's Grok to search X (posts, accounts, threads) and
 * returns its answer with the URLs of the posts it cites. Offered only when XAI_API_KEY is set;
 * the filters and the HTTP side (src/tools/x-search/) load on the first call.
 */
import { baseUrlProblem } from "../../util/base-url.js";
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import type { XSearchHttp } from "../x-search/client.js";

export type Env = Record<string, string | undefined>;

/** `x_search.*` as the tool reads it. */
export interface XSearchSettings {
  model: string;
  /** Per attempt. */
  timeoutSeconds: number;
  /** Attempts after the first, for timeouts, connection failures, 429 and 5xx. */
  retries: number;
}

export const DEFAULT_X_SEARCH_SETTINGS: XSearchSettings = {
  model: "grok-4.20-reasoning",
  timeoutSeconds: 180,
  retries: 2,
};

export const X_SEARCH_DEFAULT_CHARS = 8000;
export const X_SEARCH_MAX_CHARS = 20_000;

export interface XSearchToolOptions {
  /** `x_search.*` from config; missing fields take the defaults. */
  settings?: Partial<XSearchSettings>;
  /** Where XAI_API_KEY and XAI_BASE_URL are read, at call time (default process.env). */
  env?: () => Env;
  /** The HTTP client (the runtime passes the project's, with proxies); default `fetch`. */
  http?: XSearchHttp;
  /** The first retry's delay in ms before jitter (default 1,500; later ones double). */
  retryBaseMs?: number;
  /** Replies larger than this are refused (default 2 MiB). */
  maxReplyBytes?: number;
}

export const xSearchParameters = z.object({
  query: z.string().min(1).describe("What to find out on X: a topic, event, claim or account"),
  allowed_x_handles: z
    .array(z.string())
    .max(10)
    .optional()
    .describe("Only posts by these handles (at most 10; not with excluded_x_handles)"),
  excluded_x_handles: z.array(z.string()).max(10).optional().describe("Leave out posts by these handles (at most 10)"),
  from_date: z.string().optional().describe("Earliest post date, YYYY-MM-DD"),
  to_date: z.string().optional().describe("Latest post date, YYYY-MM-DD"),
  enable_image_understanding: z.boolean().optional().describe("Also look at images in posts"),
  enable_video_understanding: z.boolean().optional().describe("Also look at videos in posts"),
  max_chars: z
    .number()
    .int()
    .min(200)
    .max(X_SEARCH_MAX_CHARS)
    .optional()
    .describe(`Longest answer returned, in characters (default ${X_SEARCH_DEFAULT_CHARS})`),
});

export type XSearchArgs = z.infer<typeof xSearchParameters>;

function currentEnv(options: XSearchToolOptions): Env {
  return options.env ? options.env() : process.env;
}

function settingsOf(options: XSearchToolOptions): XSearchSettings {
  return { ...DEFAULT_X_SEARCH_SETTINGS, ...options.settings };
}

function failure(error: string): string {
  return JSON.stringify({ success: false, error });
}

function capAnswer(answer: string, limit: number): { answer: string; truncated?: true } {
  if (answer.length <= limit) return { answer };
  const removed = answer.length - limit;
  return { answer: `${answer.slice(0, limit)}\n\n[... ${removed} more characters not shown ...]`, truncated: true };
}

export async function xSearchTool(
  args: XSearchArgs,
  ctx: Pick<ToolContext, "signal">,
  options: XSearchToolOptions = {},
): Promise<string> {
  const env = currentEnv(options);
  const key = env.XAI_API_KEY?.trim();
  if (!key) return failure("x_search needs an xAI API key: set XAI_API_KEY in ~/.hermes/.env (from console.x.ai).");
  const query = args.query.trim();
  if (!query) return failure("Give a query: what to find out on X.");
  const [{ checkFilters, narrows }, client] = await Promise.all([
    import("../x-search/filters.js"),
    import("../x-search/client.js"),
  ]);
  const baseUrl = env.XAI_BASE_URL?.trim() || client.XAI_DEFAULT_BASE_URL;
  const problem = baseUrlProblem(baseUrl);
  if (problem) return failure(`XAI_BASE_URL cannot be used: ${problem}.`);
  const checked = checkFilters(args);
  if (!checked.ok) return failure(checked.error);
  const settings = settingsOf(options);
  try {
    const found = await client.searchX({
      query,
      filters: checked.filters,
      model: settings.model,
      key,
      baseUrl,
      timeoutMs: Math.max(1, Math.round(settings.timeoutSeconds * 1000)),
      retries: Math.max(0, Math.floor(settings.retries)),
      http: options.http ?? client.fetchXSearchHttp,
      signal: ctx.signal,
      retryBaseMs: options.retryBaseMs ?? 1500,
      maxReplyBytes: options.maxReplyBytes ?? client.MAX_REPLY_BYTES,
    });
    const unsourced = found.citations.length === 0 && narrows(checked.filters);
    return JSON.stringify({
      success: true,
      query,
      model: settings.model,
      ...capAnswer(found.answer, args.max_chars ?? X_SEARCH_DEFAULT_CHARS),
      citations: found.citations,
      ...(unsourced
        ? {
            warning:
              "No post was cited although filters were set: the answer may come from the model's own knowledge, not from X. Widen the filters or treat it as unsourced.",
          }
        : {}),
    });
  } catch (error) {
    if (error instanceof client.XSearchError) return failure(error.message);
    const message = error instanceof Error ? error.message : String(error);
    return failure(`x_search failed: ${message.replaceAll(key, "[key]")}`);
  }
}

export function registerXSearchTools(registry: ToolRegistry, options: XSearchToolOptions = {}): void {
  registry.register({
    name: "x_search",
    toolset: "x_search",
    description:
      "Search X (Twitter) posts, accounts and threads through xAI's Grok, for current discussion, reactions " +
      "and claims on X (use web_search for other sites). Read-only. Returns an answer written from the posts " +
      "found and the URLs of the posts it cites.",
    parameters: xSearchParameters,
    handler: (args, ctx) => xSearchTool(args, ctx, options),
    check: () => Boolean(currentEnv(options).XAI_API_KEY?.trim()),
    parallelSafe: true,
    untrustedOutput: true,
    emoji: "🐦",
  });
}
