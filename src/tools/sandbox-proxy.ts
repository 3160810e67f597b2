/**
 * Network limited to allowed hosts (`sandbox.network: [hosts]`). A sandboxed command gets its
 * own empty network namespace, as with `network: false`; the only way out is an HTTP proxy on
 * a Unix socket, run here in the agent, that opens connections only to the allowed hosts. Inside
 * the sandbox a small relay (a second Node process, started in front of the command) listens on
 * the namespace's loopback and passes every connection to that socket, and the command runs
 * with the usual proxy variables pointing at the relay. A program that ignores the variables
 * simply has no network.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The relay's port inside the sandbox's own network namespace (nothing else listens there). */
export const RELAY_PORT = 3128;

/** An IPv6 literal without its brackets (`[::1]` → `::1`); other names unchanged. */
function unbracketed(host: string): string {
  return host.replace(/^\[(.*)\]$/, "$1");
}

/** `example.com` allows that host only; `*.example.com` its subdomains and itself. */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = unbracketed(host.toLowerCase().replace(/\.$/, ""));
  return allowed.some((pattern) => {
    const p = pattern.toLowerCase().trim();
    if (p.startsWith("*.")) return name === p.slice(2) || name.endsWith(p.slice(1));
    return name === p;
  });
}

/** Host and port of a CONNECT target (`host:443`, `[::1]:443`). */
function splitAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: unbracketed(match[1]!), port } : undefined;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "text/plain", connection: "close" });
  res.end(`${message}\n`);
}

export interface HostFilterProxy {
  /** The Unix socket the relay inside the sandbox connects to. */
  socketPath: string;
  close(): void;
}

/**
 * Starts the filtering proxy. Listening on a Unix socket binds synchronously, so a command
 * started right after this returns can already connect.
 */
export function startHostFilterProxy(allowed: readonly string[]): HostFilterProxy {
  const http = process.getBuiltinModule("node:http");
  const net = process.getBuiltinModule("node:net");
  // A Unix socket path has room for about 100 bytes; a deep TMPDIR falls back to /tmp.
  const base = tmpdir().length <= 60 ? tmpdir() : "/tmp";
  const dir = mkdtempSync(join(base, "hermes-net-"));
  const socketPath = join(dir, "proxy.sock");
  const denied = (host: string) =>
    `sandbox: ${host} is not in sandbox.network's allowed hosts (${allowed.join(", ") || "none"})`;

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      return refuse(res, 400, "sandbox proxy: expected an absolute http:// URL");
    }
    if (target.protocol !== "http:") return refuse(res, 400, "sandbox proxy: use CONNECT for https");
    if (!hostAllowed(target.hostname, allowed)) return refuse(res, 403, denied(target.hostname));
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, connection: "close" };
    delete headers["proxy-connection"];
    delete headers["proxy-authorization"];
    const upstream = http.request(
      {
        // The URL keeps an IPv6 literal's brackets, which the resolver does not take.
        host: unbracketed(target.hostname),
        port: target.port || 80,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers,
      },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        // An upstream that dies halfway through its answer reports it here, not on the request.
        reply.on("error", () => res.destroy());
        reply.pipe(res);
      },
    );
    upstream.on("error", (error) => {
      // Once the answer has started, a failure is the answer's (above), which cuts the client.
      if (!res.headersSent) refuse(res, 502, `sandbox proxy: ${target.host}: ${error.message}`);
    });
    req.pipe(upstream);
  };

  // A CONNECT socket leaves the HTTP server's keeping once tunnelled, so close() ends these itself.
  const tunnels = new Set<Socket>();
  const tunnel = (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = splitAuthority(req.url ?? "");
    if (!target) {
      client.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
      return;
    }
    if (!hostAllowed(target.host, allowed)) {
      const body = `${denied(target.host)}\n`;
      client.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const upstream = net.connect(target.port, target.host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const close = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on("error", () => {
      if (!client.destroyed) client.end("HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n");
    });
    tunnels.add(client);
    client.on("error", close);
    client.on("close", () => {
      tunnels.delete(client);
      upstream.destroy();
    });
  };

  const server: Server = http.createServer(forward);
  server.on("connect", tunnel);
  server.on("clientError", (_error, socket) => socket.destroy());
  server.listen(socketPath);
  server.unref();
  return {
    socketPath,
    close: () => {
      server.close();
      server.closeAllConnections();
      for (const client of tunnels) client.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Node code run inside the sandbox in front of the command: argv is
 * `[socketPath, port, file, ...args]`. It relays loopback connections on `port` to the socket,
 * runs the command with the proxy variables set, passes signals on and exits as the command
 * did.
 */
export const RELAY_SOURCE = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const [socketPath, port, file, ...args] = process.argv.slice(1);
const relay = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream).pipe(client);
  const close = () => { client.destroy(); upstream.destroy(); };
  client.on("error", close);
  upstream.on("error", close);
});
relay.listen(Number(port), "127.0.0.1", () => {
  const url = "http://127.0.0.1:" + port;
  const env = { ...process.env, HTTP_PROXY: url, HTTPS_PROXY: url, ALL_PROXY: url, http_proxy: url, https_proxy: url, all_proxy: url, NO_PROXY: "", no_proxy: "" };
  const child = spawn(file, args, { stdio: "inherit", env });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => { process.stderr.write(file + ": " + error.message + "\\n"); process.exit(127); });
  child.on("exit", (code, signal) => {
    relay.close();
    if (signal) { process.removeAllListeners(signal); process.kill(process.pid, signal); }
    process.exit(code ?? 1);
  });
});
relay.on("error", (error) => { process.stderr.write("sandbox relay: " + error.message + "\\n"); process.exit(126); });
`;
