import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openRuntime } from "../../src/runtime/runtime.js";
import { registerWebTools } from "../../src/tools/builtin/web.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { hostMatchesRule, normalizeRule, WebsiteBlocklist } from "../../src/tools/web/blocklist.js";
import { tempDir } from "../state/temp-dir.js";
import { callTool, makeContext } from "./tool-harness.js";

/** One server reached under two names: 127.0.0.1 (allowed) and localhost (blocked in these tests). */
const seen: string[] = [];
let port = 0;
const server = createServer((req, res) => {
  seen.push(`${req.headers.host?.split(":")[0]}${req.url}`);
  if (req.url === "/to-blocked") {
    res.writeHead(302, { location: `http://localhost:${port}/page` });
    res.end();
  } else if (req.url === "/tavily/search") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        results: [
          { title: "Open", url: "https://docs.example.org/a", content: "fine" },
          { title: "Internal", url: "https://wiki.corp.example/secret", content: "hidden" },
        ],
      }),
    );
  } else if (req.url === "/firecrawl/v2/scrape") {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const { url } = JSON.parse(body) as { url: string };
      // The scrape of /first "followed a redirect" onto a blocked host.
      const landed = url.endsWith("/first") ? "https://wiki.corp.example/landing" : url;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ success: true, data: { markdown: `content of ${url}`, metadata: { url: landed } } }));
    });
  } else {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`page ${req.url}`);
  }
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

function blocklist(domains: string[], sharedFiles: string[] = [], home = tempDir("hermes-blocklist-")) {
  return new WebsiteBlocklist({ enabled: true, domains, shared_files: sharedFiles }, home);
}

function webTools(list: WebsiteBlocklist, keys: Record<string, string> = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registerWebTools(registry, {
    env: () => ({
      TAVILY_BASE_URL: `http://127.0.0.1:${port}/tavily`,
      FIRECRAWL_BASE_URL: `http://127.0.0.1:${port}/firecrawl`,
      ...keys,
    }),
    allowPrivateUrls: true,
    blocklist: list,
  });
  return registry;
}

const ctx = makeContext("/");

test("rules are reduced to a host; a bare host covers the names under it, *. only those", () => {
  assert.equal(normalizeRule("  Admin.Example.COM. "), "admin.example.com");
  assert.equal(normalizeRule("https://www.example.com:8443/login?x=1"), "example.com");
  assert.equal(normalizeRule("example.com/path"), "example.com");
  assert.equal(normalizeRule("*.Internal.Corp"), "*.internal.corp");
  assert.equal(normalizeRule("# a comment"), null);
  assert.equal(normalizeRule("   "), null);
  assert.equal(normalizeRule("*."), null);
  assert.equal(hostMatchesRule("example.com", "example.com"), true);
  assert.equal(hostMatchesRule("a.b.example.com", "example.com"), true);
  assert.equal(hostMatchesRule("notexample.com", "example.com"), false);
  assert.equal(hostMatchesRule("x.internal.corp", "*.internal.corp"), true);
  assert.equal(hostMatchesRule("internal.corp", "*.internal.corp"), false);
  assert.equal(hostMatchesRule("printer.local", "*.local"), true);
});

test("a blocklist names the rule and where it came from; shared files are read relative to the home", () => {
  const home = tempDir("hermes-blocklist-");
  mkdirSync(join(home, "lists"));
  writeFileSync(join(home, "lists", "team.txt"), "\uFEFF# team rules\n\nwiki.corp.example\r\n*.intranet\n");
  const warnings: string[] = [];
  const list = new WebsiteBlocklist(
    { enabled: true, domains: ["admin.example.com"], shared_files: ["lists/team.txt", "lists/missing.txt"] },
    home,
    (message) => warnings.push(message),
  );
  assert.match(list.check("https://admin.example.com/x")?.message ?? "", /admin\.example\.com .*config\.yaml/);
  const fromFile = list.check("http://WIKI.corp.example./page");
  assert.equal(fromFile?.rule, "wiki.corp.example");
  assert.equal(fromFile?.source, join(home, "lists", "team.txt"));
  assert.equal(list.check("https://hr.intranet/")?.rule, "*.intranet");
  assert.equal(list.check("https://example.com/"), null);
  assert.equal(list.check("not a url at all"), null);
  list.check("https://example.com/again");
  assert.equal(warnings.length, 1, "a missing file is reported once");
  assert.match(warnings[0] ?? "", /missing\.txt could not be read .*ENOENT/);
  assert.equal(WebsiteBlocklist.from({ enabled: false, domains: ["x.com"], shared_files: [] }, home), null);
});

test("a shared file edited while running applies after at most 30 seconds", () => {
  const home = tempDir("hermes-blocklist-");
  writeFileSync(join(home, "rules.txt"), "old.example\n");
  let now = 1_000_000;
  const list = new WebsiteBlocklist(
    { enabled: true, domains: [], shared_files: ["rules.txt"] },
    home,
    () => {},
    () => now,
  );
  assert.ok(list.check("https://old.example/"));
  writeFileSync(join(home, "rules.txt"), "new.example\n");
  now += 29_000;
  assert.ok(list.check("https://old.example/"), "still the list read 29 s ago");
  now += 2_000;
  assert.equal(list.check("https://old.example/"), null);
  assert.ok(list.check("https://new.example/"));
});

test("web_extract fetches no blocked URL, nor a page that redirects to one", async () => {
  const registry = webTools(blocklist(["localhost"]));
  seen.length = 0;
  const result = await callTool(
    registry,
    "web_extract",
    {
      urls: [`http://localhost:${port}/direct`, `http://127.0.0.1:${port}/to-blocked`, `http://127.0.0.1:${port}/ok`],
    },
    ctx,
  );
  const [direct, redirected, ok] = result.results as Array<{ error?: string; content: string }>;
  assert.match(direct?.error ?? "", /blocked by the website policy: localhost matches the rule "localhost"/);
  assert.match(redirected?.error ?? "", /blocked by the website policy/);
  assert.equal(ok?.content, "page /ok");
  assert.deepEqual(seen.sort(), ["127.0.0.1/ok", "127.0.0.1/to-blocked"], "nothing was requested from localhost");
});

test("with a backend, blocked URLs are not sent to it and a page it landed on a blocked site is withheld", async () => {
  const registry = webTools(blocklist(["localhost", "corp.example"]), { FIRECRAWL_API_KEY: "fc-test" });
  seen.length = 0;
  const extract = await callTool(
    registry,
    "web_extract",
    { urls: [`http://127.0.0.1:${port}/first`, `http://localhost:${port}/never`, `http://127.0.0.1:${port}/second`] },
    ctx,
  );
  const [first, never, second] = extract.results as Array<{ error?: string; content: string }>;
  assert.match(first?.error ?? "", /wiki\.corp\.example matches the rule "corp\.example"/);
  assert.match(never?.error ?? "", /localhost matches/);
  assert.equal(second?.content, `content of http://127.0.0.1:${port}/second`);
  assert.ok(!seen.some((request) => request.startsWith("localhost")));

  const search = await callTool(
    webTools(blocklist(["corp.example"]), { TAVILY_API_KEY: "tvly-test" }),
    "web_search",
    { query: "handbook" },
    ctx,
  );
  assert.deepEqual(
    (search.results as Array<{ url: string }>).map((hit) => hit.url),
    ["https://docs.example.org/a"],
  );
  assert.match(String(search.withheld), /1 result\(s\) on sites the website policy blocks/);
});

test("security.website_blocklist in config.yaml reaches the agent's web tools", async () => {
  const home = tempDir("hermes-blocklist-runtime-");
  writeFileSync(join(home, "blocked.txt"), "localhost\n");
  writeFileSync(
    join(home, "config.yaml"),
    [
      "model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1",
      "web:\n  allow_private_urls: true",
      "security:\n  website_blocklist:\n    enabled: true\n    shared_files: [blocked.txt]",
      "",
    ].join("\n"),
  );
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
  try {
    const result = await callTool(runtime.registry, "web_extract", { urls: [`http://localhost:${port}/x`] }, ctx);
    assert.match((result.results as Array<{ error?: string }>)[0]?.error ?? "", /blocked by the website policy/);
    const open = await callTool(runtime.registry, "web_extract", { urls: [`http://127.0.0.1:${port}/y`] }, ctx);
    assert.equal((open.results as Array<{ content: string }>)[0]?.content, "page /y");
  } finally {
    await runtime.close();
  }
});
