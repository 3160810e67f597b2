/**
 * HTTP(S) proxy support for model requests. Node 20's global fetch ignores the proxy
 * environment variables and its dispatcher (`undici`) is not importable without installing it,
 * so proxied requests go over `node:http` instead: absolute-form requests for http targets and a
 * CONNECT tunnel wrapped in TLS for https targets. The result is a standard web `Response`.
 */
import http from "node:http";
import { Readable } from "node:stream";
import tls from "node:tls";

type Env = Record<string, string | undefined>;

function envValue(env: Env, name: string): string | undefined {
  const value = env[name] ?? env[name.toLowerCase()];
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Adds a scheme when missing, drops trailing slashes, and rejects schemes we cannot speak. */
export function normalizeProxyUrl(raw: string): string | undefined {
  let value = raw.trim().replace(/\/+$/, "");
  if (!value) return undefined;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) value = `http://${value}`;
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return value;
  } catch {
    return undefined;
  }
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

function ipv4ToInt(ip: string): number | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return value;
}

function matchesNoProxyEntry(host: string, port: string, entry: string): boolean {
  let pattern = entry.trim().toLowerCase();
  if (!pattern) return false;
  if (pattern === "*") return true;
  const cidr = /^(\d+\.\d+\.\d+\.\d+)\/(\d{1,2})$/.exec(pattern);
  if (cidr) {
    const base = ipv4ToInt(cidr[1]!);
    const target = ipv4ToInt(host);
    const bits = Number(cidr[2]);
    if (base === undefined || target === undefined || bits > 32) return false;
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return (base & mask) >>> 0 === (target & mask) >>> 0;
  }
  // `host:port` (a bare IPv6 address has several colons and is left alone).
  const withPort = /^([^:]+):(\d+)$/.exec(pattern);
  if (withPort) {
    if (withPort[2] !== port) return false;
    pattern = withPort[1]!;
  }
  pattern = pattern.replace(/^\*?\./, "");
  return host === pattern || host.endsWith(`.${pattern}`);
}

/**
 * The proxy to use for `url`, from HTTPS_PROXY / HTTP_PROXY / ALL_PROXY (upper or lower case;
 * the variable matching the URL's scheme wins), or undefined when none applies. NO_PROXY entries
 * (hosts, domain suffixes, `host:port`, IPv4 CIDR, `*`) and loopback hosts bypass the proxy.
 */
export function proxyForUrl(url: string, env: Env = process.env): string | undefined {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  const order =
    target.protocol === "https:"
      ? ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"]
      : ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"];
  let proxy: string | undefined;
  for (const name of order) {
    const raw = envValue(env, name);
    proxy = raw ? normalizeProxyUrl(raw) : undefined;
    if (proxy) break;
  }
  if (!proxy) return undefined;
  const host = target.hostname.toLowerCase();
  if (LOOPBACK.has(host) || host.startsWith("127.")) return undefined;
  const port = target.port || (target.protocol === "https:" ? "443" : "80");
  const noProxy = envValue(env, "NO_PROXY") ?? "";
  const bare = host.replace(/^\[|\]$/g, "");
  if (noProxy.split(/[\s,]+/).some((entry) => matchesNoProxyEntry(bare, port, entry))) return undefined;
  return proxy;
}

export interface ProxyFetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Extra TLS options for the target connection (custom CA in tests). */
  tls?: tls.ConnectionOptions;
}

function proxyAuthHeader(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { "proxy-authorization": `Basic ${Buffer.from(credentials).toString("base64")}` };
}

function toResponse(res: http.IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const status = res.statusCode ?? 502;
  const noBody = status === 204 || status === 304;
  if (noBody) res.resume();
  const body = noBody ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: res.statusMessage ?? "", headers });
}

function openTunnel(proxy: URL, target: URL, signal: AbortSignal | undefined): Promise<import("node:net").Socket> {
  return new Promise((resolve, reject) => {
    const authority = `${target.hostname}:${target.port || "443"}`;
    const req = http.request({
      host: proxy.hostname,
      port: proxy.port || 80,
      method: "CONNECT",
      path: authority,
      headers: { host: authority, ...proxyAuthHeader(proxy) },
      signal,
    });
    req.once("connect", (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        const error = new Error(`The proxy refused the tunnel to ${authority} (HTTP ${res.statusCode}).`);
        Object.assign(error, { code: "EPROXY" });
        reject(error);
        return;
      }
      resolve(socket);
    });
    req.once("error", reject);
    req.end();
  });
}

/** Sends one request through an HTTP proxy and resolves with the target's response. */
export async function fetchViaProxy(url: string, init: ProxyFetchInit, proxyUrl: string): Promise<Response> {
  const target = new URL(url);
  const proxy = new URL(proxyUrl);
  const headers: Record<string, string> = { ...init.headers, host: target.host };
  if (init.body !== undefined) headers["content-length"] = String(Buffer.byteLength(init.body));
  let options: http.RequestOptions;
  if (target.protocol === "https:") {
    const socket = await openTunnel(proxy, target, init.signal);
    const secure = tls.connect({ socket, servername: target.hostname, ...init.tls });
    await new Promise<void>((resolve, reject) => {
      secure.once("secureConnect", resolve);
      secure.once("error", reject);
    });
    options = {
      method: init.method,
      path: `${target.pathname}${target.search}`,
      headers,
      createConnection: () => secure,
    };
  } else {
    options = {
      host: proxy.hostname,
      port: proxy.port || 80,
      method: init.method,
      path: target.href,
      headers: { ...headers, ...proxyAuthHeader(proxy) },
    };
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ ...options, signal: init.signal });
    req.once("response", (res) => resolve(toResponse(res)));
    req.once("error", reject);
    req.end(init.body);
  });
}
