/** The shape every web search/extract backend (Tavily, Exa, Firecrawl) implements. */

export interface SearchHit {
  title: string;
  url: string;
  description: string;
}

export interface ExtractedPage {
  url: string;
  title: string;
  content: string;
  error?: string;
}

export type WebBackendName = "tavily" | "exa" | "firecrawl";

export interface WebBackend {
  name: WebBackendName;
  search(query: string, limit: number, signal: AbortSignal): Promise<SearchHit[]>;
  /** One page per URL, in order; a page that failed carries `error`. */
  extract(urls: string[], signal: AbortSignal): Promise<ExtractedPage[]>;
}

/** Environment variables, passed in so tests and profiles need not touch process.env. */
export type Env = Record<string, string | undefined>;
