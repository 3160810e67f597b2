import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { registerWebTools, type WebToolsOptions } from "../../src/tools/builtin/web.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { selectWebBackend } from "../../src/tools/web/backends.js";
import { fetchPage } from "../../src/tools/web/fetch-page.js";
import type { Env } from "../../src/tools/web/types.js";
import { callTool, makeContext } from "./tool-harness.js";

interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

const requests: Recorded[] = [];
const PAGE = `<!doctype html><html><head><title>Fake &amp; Page</title><script>alert(1)</script></head>
<body><nav><a href="/">Home</a></nav><main><h1>Welcome</h1><p>Read the <a href="/docs">docs</a>.</p>
<ul><li>one</li><li>two</li></ul><pre><code class="language-js">let x = 1;</code></pre></main></body></html>`;

function reply(res: ServerResponse, status: number, body: unknown, type = "application/json"): void {
  res.writeHead(status, { "content-type": type });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

type Reply = [status: number, body: unknown, type?: string] | null;

function route(req: Recorded, base: string): Reply {
  const body = req.body as Record<string, unknown>;
  switch (req.path) {
    case "/tavily/search":
      return [
        200,
        {
          query: body.query,
          results: [{ title: "T1", url: "https://t.example/1", content: "tavily snippet", score: 0.9 }],
        },
      ];
    case "/tavily/extract":
      return [
        200,
        {
          results: [{ url: `${base}/site/a`, raw_content: "# A from Tavily" }],
          failed_results: [{ url: `${base}/site/page.html`, error: "blocked" }],
        },
      ];
    case "/exa/search":
      return [
        200,
        {
          requestId: "r1",
          results: [{ id: "https://e.example/1", title: "E1", url: "https://e.example/1", text: "exa text" }],
        },
      ];
    case "/exa/contents":
      return [
        200,
        {
          results: [{ id: `${base}/site/a`, url: `${base}/site/a`, title: "A", text: "exa page" }],
        },
      ];
    case "/firecrawl/v2/search":
      return [
        200,
        {
          success: true,
          data: { web: [{ url: "https://f.example/1", title: "F1", description: "firecrawl snippet" }] },
        },
      ];
    case "/firecrawl/v2/scrape":
      return [
        200,
        {
          success: true,
          data: { markdown: "# Scraped", metadata: { title: "S", sourceURL: body.url } },
        },
      ];
    case "/failing/search":
      return [401, { detail: "bad key" }];
    case "/site/page.html":
      return [200, PAGE, "text/html; charset=utf-8"];
    case "/site/a":
      return [200, "plain text page", "text/plain"];
    case "/site/image.png":
      return [200, "\x89PNG", "image/png"];
    case "/site/big":
      return [200, "y".repeat(50_000), "text/plain"];
    case "/site/missing":
      return [404, "nope", "text/plain"];
    case "/site/slow":
      return null; // never answers
    default:
      return [404, { error: "no route" }];
  }
}

let base = "";
const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (chunk) => {
    raw += chunk;
  });
  req.on("end", () => {
    const record: Recorded = {
      method: req.method ?? "",
      path: (req.url ?? "").split("?")[0] ?? "",
      headers: req.headers,
      body: raw ? JSON.parse(raw) : undefined,
    };
    requests.push(record);
    const answer = route(record, base);
    if (answer) reply(res, ...answer);
  });
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

function envFor(keys: Env): Env {
  return {
    TAVILY_BASE_URL: `${base}/tavily`,
    EXA_BASE_URL: `${base}/exa`,
    FIRECRAWL_BASE_URL: `${base}/firecrawl`,
    ...keys,
  };
}

function toolsWith(keys: Env, backend?: string): ToolRegistry {
  const registry = new ToolRegistry();
  // The test server is on loopback, which web_extract refuses unless allowed.
  const options: WebToolsOptions = {
    env: () => envFor(keys),
    allowPrivateUrls: true,
    ...(backend ? { backend } : {}),
  };
  registerWebTools(registry, options);
  return registry;
}

function lastRequest(path: string): Recorded {
  const found = requests.filter((r) => r.path === path).at(-1);
  assert.ok(found, `no request to ${path}`);
  return found;
}

const ctx = makeContext("/");

test("web_search is unavailable without any key", async () => {
  const registry = toolsWith({});
  assert.equal(await registry.isAvailable("web_search"), false);
  assert.equal(await registry.isAvailable("web_extract"), true);
  const result = await callTool(registry, "web_search", { query: "x" }, ctx);
  assert.match(String(result.error), /TAVILY_API_KEY/);
});

test("Tavily: POST /search with a bearer key, query and max_results", async () => {
  const registry = toolsWith({ TAVILY_API_KEY: "tvly-test" });
  assert.equal(await registry.isAvailable("web_search"), true);
  const result = await callTool(registry, "web_search", { query: "node streams", limit: 3 }, ctx);
  const request = lastRequest("/tavily/search");
  assert.equal(request.method, "POST");
  assert.equal(request.headers.authorization, "Bearer tvly-test");
  assert.deepEqual(request.body, {
    query: "node streams",
    max_results: 3,
    search_depth: "basic",
    include_answer: false,
  });
  assert.equal(result.backend, "tavily");
  assert.deepEqual(result.results, [{ title: "T1", url: "https://t.example/1", description: "tavily snippet" }]);
});

test("Exa: POST /search with x-api-key and numResults", async () => {
  const registry = toolsWith({ EXA_API_KEY: "exa-test" });
  const result = await callTool(registry, "web_search", { query: "q" }, ctx);
  const request = lastRequest("/exa/search");
  assert.equal(request.headers["x-api-key"], "exa-test");
  const body = request.body as Record<string, unknown>;
  assert.equal(body.query, "q");
  assert.equal(body.numResults, 5);
  assert.deepEqual(result.results, [{ title: "E1", url: "https://e.example/1", description: "exa text" }]);
});

test("Firecrawl: POST /v2/search with a bearer key and limit", async () => {
  const registry = toolsWith({ FIRECRAWL_API_KEY: "fc-test" });
  const result = await callTool(registry, "web_search", { query: "q", limit: 2 }, ctx);
  const request = lastRequest("/firecrawl/v2/search");
  assert.equal(request.headers.authorization, "Bearer fc-test");
  assert.deepEqual(request.body, { query: "q", limit: 2 });
  assert.deepEqual(result.results, [{ title: "F1", url: "https://f.example/1", description: "firecrawl snippet" }]);
});

test("the backend is picked by key order, or by name when asked", () => {
  const all = envFor({ TAVILY_API_KEY: "t", EXA_API_KEY: "e", FIRECRAWL_API_KEY: "f" });
  assert.equal(selectWebBackend(all)?.name, "tavily");
  assert.equal(selectWebBackend(all, "firecrawl")?.name, "firecrawl");
  assert.equal(selectWebBackend({ ...all, HERMES_WEB_BACKEND: "exa" })?.name, "exa");
  // A named backend without its key falls back to one that has a key.
  assert.equal(selectWebBackend(envFor({ EXA_API_KEY: "e" }), "tavily")?.name, "exa");
  assert.equal(selectWebBackend({ FIRECRAWL_API_URL: `${base}/firecrawl` })?.name, "firecrawl");
});

test("an HTTP error from the backend becomes an error result naming the cause", async () => {
  const registry = new ToolRegistry();
  registerWebTools(registry, {
    env: () => ({ TAVILY_API_KEY: "bad", TAVILY_BASE_URL: `${base}/failing` }),
    allowPrivateUrls: true,
  });
  const result = await callTool(registry, "web_search", { query: "q" }, ctx);
  assert.match(String(result.error), /HTTP 401 \(check the API key\)/);
});

test("Tavily extract: pages it read are kept, pages it failed are fetched directly", async () => {
  const registry = toolsWith({ TAVILY_API_KEY: "tvly-test" });
  const result = await callTool(registry, "web_extract", { urls: [`${base}/site/a`, `${base}/site/page.html`] }, ctx);
  assert.deepEqual(lastRequest("/tavily/extract").body, { urls: [`${base}/site/a`, `${base}/site/page.html`] });
  const [first, second] = result.results as Array<Record<string, unknown>>;
  assert.equal(first?.content, "# A from Tavily");
  assert.equal(second?.title, "Fake & Page");
  assert.match(String(second?.content), /^# Welcome/);
});

test("Exa contents and Firecrawl scrape request shapes", async () => {
  const exa = await callTool(toolsWith({ EXA_API_KEY: "e" }), "web_extract", { urls: [`${base}/site/a`] }, ctx);
  assert.deepEqual(lastRequest("/exa/contents").body, { urls: [`${base}/site/a`], text: true });
  assert.equal((exa.results as Array<Record<string, unknown>>)[0]?.content, "exa page");
  const fc = await callTool(toolsWith({ FIRECRAWL_API_KEY: "f" }), "web_extract", { urls: [`${base}/site/a`] }, ctx);
  assert.deepEqual(lastRequest("/firecrawl/v2/scrape").body, {
    url: `${base}/site/a`,
    formats: ["markdown"],
    onlyMainContent: true,
  });
  assert.equal((fc.results as Array<Record<string, unknown>>)[0]?.content, "# Scraped");
});

test("without a backend web_extract fetches the page and converts HTML to markdown", async () => {
  const result = await callTool(toolsWith({}), "web_extract", { urls: [`${base}/site/page.html`] }, ctx);
  assert.equal(result.backend, "direct");
  const [page] = result.results as Array<Record<string, unknown>>;
  assert.equal(page?.title, "Fake & Page");
  assert.equal(
    page?.content,
    ["# Welcome", "", `Read the [docs](${base}/docs).`, "", "- one", "- two", "", "```js", "let x = 1;", "```"].join(
      "\n",
    ),
  );
});

test("direct fetch refuses other schemes, binary content and error statuses", async () => {
  const signal = new AbortController().signal;
  assert.match(String((await fetchPage("file:///etc/passwd", signal)).error), /only http and https/);
  const local = { allowPrivate: true };
  assert.match(String((await fetchPage(`${base}/site/image.png`, signal, local)).error), /image\/png/);
  assert.match(String((await fetchPage(`${base}/site/missing`, signal, local)).error), /HTTP 404/);
  assert.match(String((await fetchPage("not a url", signal)).error), /not a valid URL/);
});

test("direct fetch caps the size it reads and gives up after its timeout", async () => {
  const signal = new AbortController().signal;
  const big = await fetchPage(`${base}/site/big`, signal, { maxBytes: 1000, allowPrivate: true });
  assert.ok(big.content.startsWith("y".repeat(1000)));
  assert.match(big.content, /page cut at 1000 bytes/);
  const slow = await fetchPage(`${base}/site/slow`, signal, { timeoutMs: 200, allowPrivate: true });
  assert.match(String(slow.error), /timed out/);
});

test("web_extract takes at most five URLs", () => {
  const spec = toolsWith({}).get("web_extract");
  assert.throws(() => spec?.parameters.parse({ urls: ["a", "b", "c", "d", "e", "f"] }));
  assert.equal(spec?.parallelSafe, true);
});

test("search and extract can each have their own backend, and extract_char_limit caps a page", async () => {
  const registry = new ToolRegistry();
  registerWebTools(registry, {
    env: () => envFor({ EXA_API_KEY: "e", FIRECRAWL_API_KEY: "f", TAVILY_API_KEY: "t" }),
    allowPrivateUrls: true,
    backend: "tavily",
    searchBackend: "exa",
    extractBackend: "firecrawl",
    extractPageChars: 5,
  });
  const search = await callTool(registry, "web_search", { query: "q" }, ctx);
  assert.equal(search.backend, "exa");
  const extract = await callTool(registry, "web_extract", { urls: [`${base}/site/a`] }, ctx);
  assert.equal(extract.backend, "firecrawl");
  assert.match(
    String((extract.results as Array<{ content: string }>)[0]?.content),
    /^# Scr\n\n\[\.\.\. 4 more characters not shown \.\.\.\]$/,
  );
});
