import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, request as forward } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect, type Socket } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { postJson } from "../../src/llm/http.js";
import { httpRequest } from "../../src/llm/http-client.js";
import { normalizeProxyUrl, proxyForUrl } from "../../src/llm/proxy.js";
import { signal } from "./transport-helpers.js";

describe("proxyForUrl", () => {
  test("uses the variable that matches the scheme, upper or lower case", () => {
    const env = { HTTPS_PROXY: "http://secure:3128", http_proxy: "http://plain:3128" };
    assert.equal(proxyForUrl("https://api.openai.com/v1", env), "http://secure:3128");
    assert.equal(proxyForUrl("http://example.com/v1", env), "http://plain:3128");
  });

  test("falls back to the other variables and ALL_PROXY", () => {
    assert.equal(proxyForUrl("https://api.x.ai", { HTTP_PROXY: "http://p:1" }), "http://p:1");
    assert.equal(proxyForUrl("https://api.x.ai", { all_proxy: "http://all:2" }), "http://all:2");
    assert.equal(proxyForUrl("https://api.x.ai", {}), undefined);
  });

  test("normalises proxy URLs and ignores schemes it cannot speak", () => {
    assert.equal(normalizeProxyUrl("proxy.corp:8080/"), "http://proxy.corp:8080");
    assert.equal(normalizeProxyUrl("  https://p:1//  "), "https://p:1");
    assert.equal(normalizeProxyUrl("socks5://p:1080"), undefined);
    assert.equal(proxyForUrl("https://api.x.ai", { HTTPS_PROXY: "socks5://p:1080" }), undefined);
  });

  test("respects NO_PROXY hosts, suffixes, ports, CIDR ranges and *", () => {
    const base = { HTTPS_PROXY: "http://p:1", HTTP_PROXY: "http://p:1" };
    const bypass = (url: string, noProxy: string) => proxyForUrl(url, { ...base, NO_PROXY: noProxy }) === undefined;
    assert.ok(bypass("https://api.anthropic.com", "api.anthropic.com"));
    assert.ok(bypass("https://api.anthropic.com", "anthropic.com"));
    assert.ok(bypass("https://api.anthropic.com", ".anthropic.com"));
    assert.ok(bypass("https://api.anthropic.com", "*.anthropic.com"));
    assert.ok(!bypass("https://notanthropic.com", "anthropic.com"));
    assert.ok(bypass("http://gpu.lan:8000/v1", "foo.com, gpu.lan:8000"));
    assert.ok(!bypass("http://gpu.lan:9000/v1", "gpu.lan:8000"));
    assert.ok(bypass("http://10.1.2.3:8000/v1", "10.0.0.0/8"));
    assert.ok(!bypass("http://11.1.2.3:8000/v1", "10.0.0.0/8"));
    assert.ok(bypass("https://anything.example", "*"));
    assert.ok(bypass("https://api.anthropic.com", "x.org api.anthropic.com"));
  });

  test("never proxies loopback addresses", () => {
    const env = { HTTP_PROXY: "http://p:1" };
    assert.equal(proxyForUrl("http://localhost:11434/v1", env), undefined);
    assert.equal(proxyForUrl("http://127.0.0.1:1234/v1", env), undefined);
    assert.equal(proxyForUrl("http://[::1]:8080/v1", env), undefined);
  });
});

describe("requests through a proxy", () => {
  const cert = readFileSync(join(import.meta.dirname, "fixtures", "proxy-target.crt"));
  const key = readFileSync(join(import.meta.dirname, "fixtures", "proxy-target.key"));
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  let target: ReturnType<typeof createServer>;
  let secureTarget: ReturnType<typeof createHttpsServer>;
  let proxy: ReturnType<typeof createServer>;
  let proxyUrl = "";

  const portOf = (server: { address(): unknown }) => (server.address() as AddressInfo).port;
  const reply = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => {
    const parts: Buffer[] = [];
    req.on("data", (p: Buffer) => parts.push(p));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ host: req.headers.host, path: req.url, body: Buffer.concat(parts).toString() }));
    });
  };

  before(async () => {
    target = createServer(reply);
    secureTarget = createHttpsServer({ cert, key }, reply);
    // A forwarding proxy: every host name resolves to the loopback test servers.
    proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} auth=${req.headers["proxy-authorization"] ?? "-"}`);
      const url = new URL(req.url ?? "/");
      const upstream = forward(
        { host: "127.0.0.1", port: portOf(target), method: req.method, path: url.pathname, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    proxy.on("connect", (req, client: Socket) => {
      seen.push(`CONNECT ${req.url}`);
      const upstream = connect(portOf(secureTarget), "127.0.0.1", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream).add(client);
    });
    proxy.on("connection", (s: Socket) => sockets.add(s));
    for (const server of [target, secureTarget, proxy]) {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    }
    proxyUrl = `http://user:p%40ss@127.0.0.1:${portOf(proxy)}`;
  });

  after(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all([target, secureTarget, proxy].map((s) => new Promise((resolve) => s.close(resolve))));
  });

  test("postJson sends http requests to the proxy in absolute form with proxy credentials", async () => {
    const response = await postJson(
      "http://model.test/v1/chat/completions",
      { hello: "world" },
      { signal: signal(), env: { HTTP_PROXY: proxyUrl } },
    );
    const echoed = (await response.json()) as { host: string; path: string; body: string };
    assert.equal(echoed.host, "model.test");
    assert.equal(echoed.path, "/v1/chat/completions");
    assert.deepEqual(JSON.parse(echoed.body), { hello: "world" });
    const basic = `Basic ${Buffer.from("user:p@ss").toString("base64")}`;
    assert.ok(seen.includes(`POST http://model.test/v1/chat/completions auth=${basic}`), seen.join("\n"));
  });

  test("https requests go through a CONNECT tunnel with TLS to the target", async () => {
    const response = await httpRequest("https://model.test/v1/messages", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
      tls: { ca: cert },
      proxy: proxyUrl,
    });
    assert.equal(response.status, 200);
    const echoed = (await response.json()) as { host: string; path: string };
    assert.equal(echoed.host, "model.test");
    assert.equal(echoed.path, "/v1/messages");
    assert.ok(seen.includes("CONNECT model.test:443"));
  });

  test("a certificate that does not verify fails the request", async () => {
    await assert.rejects(
      httpRequest("https://model.test/v1/messages", { method: "POST", headers: {}, body: "{}", proxy: proxyUrl }),
      (error: { code?: string }) => typeof error.code === "string",
    );
  });
});
