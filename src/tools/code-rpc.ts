/**
 * The channel between an `execute_code` script and the agent: a loopback HTTP server that
 * accepts `POST /call {tool, args}` with a per-run bearer token and runs the tool with the
 * same context as the `execute_code` call itself (so approvals and the working directory apply).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { nodeCrypto } from "../util/node-crypto.js";
import { capResult, DEFAULT_MAX_RESULT_CHARS, type ToolContext, type ToolRegistry } from "./registry.js";

// Not an ESM import: on Node 24 the ESM namespace of node:http loads the bundled undici (~60 ms).
const { createServer } = process.getBuiltinModule("node:http");

/** Runs one tool call; lets the agent put its own pipeline (hooks, guardrails) in between. */
export type ToolDispatcher = (name: string, args: Record<string, unknown>, ctx: ToolContext) => Promise<string>;

export interface ToolRpcOptions {
  registry: ToolRegistry;
  ctx: ToolContext;
  allowedTools: ReadonlySet<string>;
  maxToolCalls: number;
  token: string;
  /** Arguments removed from calls to a tool before dispatch, by tool name. */
  strippedArgs?: Record<string, readonly string[]>;
  dispatch?: ToolDispatcher;
}

export interface ToolRpcServer {
  url: string;
  callsMade(): number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;

class RpcError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startToolRpcServer(options: ToolRpcOptions): Promise<ToolRpcServer> {
  let calls = 0;
  let closed = false;
  const expected = Buffer.from(`Bearer ${options.token}`);

  const handle = async (req: IncomingMessage): Promise<string> => {
    if (req.method !== "POST" || req.url !== "/call") throw new RpcError(404, "not found");
    const auth = Buffer.from(req.headers.authorization ?? "");
    if (auth.length !== expected.length || !nodeCrypto().timingSafeEqual(auth, expected))
      throw new RpcError(401, "bad token");
    if (closed) throw new RpcError(410, "the script's run has ended");
    const body = await readJson(req);
    const tool = typeof body.tool === "string" ? body.tool : "";
    const args = isRecord(body.args) ? { ...body.args } : {};
    if (!options.allowedTools.has(tool)) {
      const allowed = [...options.allowedTools].sort().join(", ");
      throw new RpcError(403, `tool "${tool}" is not available inside execute_code (available: ${allowed})`);
    }
    if (calls >= options.maxToolCalls) {
      throw new RpcError(429, `tool call limit reached (${options.maxToolCalls} per execute_code run)`);
    }
    calls++;
    for (const name of options.strippedArgs?.[tool] ?? []) delete args[name];
    return options.dispatch
      ? options.dispatch(tool, args, options.ctx)
      : dispatchToRegistry(options.registry, tool, args, options.ctx);
  };

  const server = createServer((req, res) => {
    handle(req).then(
      (result) => reply(res, 200, { result }),
      (err: unknown) => {
        const status = err instanceof RpcError ? err.status : 500;
        reply(res, status, { error: err instanceof Error ? err.message : String(err) });
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/call`,
    callsMade: () => calls,
    close: () => {
      closed = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

async function dispatchToRegistry(
  registry: ToolRegistry,
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  const spec = registry.get(name);
  if (!spec) throw new RpcError(404, `tool "${name}" is not registered`);
  const parsed = spec.parameters.safeParse(args);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "(args)"}: ${i.message}`).join("; ");
    throw new RpcError(400, `invalid arguments for ${name}: ${detail}`);
  }
  const result = await spec.handler(parsed.data, ctx);
  return capResult(result, spec.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
}

function reply(res: ServerResponse, status: number, payload: unknown): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new RpcError(413, "request too large");
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (isRecord(value)) return value;
  } catch {
    // Reported below.
  }
  throw new RpcError(400, 'the request body must be a JSON object {"tool": ..., "args": {...}}');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
