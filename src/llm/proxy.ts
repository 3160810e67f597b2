/**
 * HTTP(S) proxy support for model requests: which proxy applies to a URL (the usual proxy
 * environment variables), and how to reach a target through it — an absolute-form request for
 * http targets, a CONNECT tunnel wrapped in TLS for https targets. The HTTP client
 * (http-client.ts) sends the request itself.
 */
import type http from "node:http";
import type { Socket } from "node:net";
import type { ConnectionOptions, TLSSocket } from "node:tls";

// Not an ESM import: on Node 24 the ESM namespace of node:http loads the bundled undici (~60 ms).
const nodeHttp = process.getBuiltinModule("node:http");

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

export interface ProxyRouteOptions {
  /** The request headers for the target (the target's `host` is added). */
  headers: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Extra TLS options for the target connection (custom CA in tests). */
  tls?: ConnectionOptions | undefined;
}

function proxyAuthHeader(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { "proxy-authorization": `Basic ${Buffer.from(credentials).toString("base64")}` };
}

function openTunnel(proxy: URL, target: URL, signal: AbortSignal | undefined): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const authority = `${target.hostname}:${target.port || "443"}`;
    const req = nodeHttp.request({
      host: proxy.hostname,
      port: proxy.port || 80,
      method: "CONNECT",
      path: authority,
      headers: { host: authority, ...proxyAuthHeader(proxy) },
      ...(signal ? { signal } : {}),
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

/** TLS over the tunnel; `node:tls` loads only here, when an https target is proxied. */
async function secureTunnel(proxy: URL, target: URL, options: ProxyRouteOptions): Promise<TLSSocket> {
  const socket = await openTunnel(proxy, target, options.signal);
  const tls = process.getBuiltinModule("node:tls");
  const secure = tls.connect({ socket, servername: target.hostname, ...options.tls });
  const onAbort = () => secure.destroy();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      secure.once("secureConnect", resolve);
      secure.once("error", reject);
      secure.once("close", () =>
        reject(Object.assign(new Error("The tunnel closed during the TLS handshake."), { code: "ECONNRESET" })),
      );
    });
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  return secure;
}

/**
 * Request options that send a request for `target` through `proxyUrl`: http targets go to the
 * proxy in absolute form with the proxy's credentials; https targets get a fresh CONNECT tunnel
 * (options carry `createConnection`, so no connection pool applies).
 */
export async function proxiedRequestOptions(
  target: URL,
  proxyUrl: string,
  options: ProxyRouteOptions,
): Promise<http.RequestOptions> {
  const proxy = new URL(proxyUrl);
  const headers: Record<string, string> = { ...options.headers, host: target.host };
  if (target.protocol === "https:") {
    const secure = await secureTunnel(proxy, target, options);
    return { path: `${target.pathname}${target.search}`, headers, createConnection: () => secure };
  }
  return {
    host: proxy.hostname,
    port: proxy.port || 80,
    path: target.href,
    headers: { ...headers, ...proxyAuthHeader(proxy) },
  };
}
