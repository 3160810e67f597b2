/**
 * The scripted fake LLM provider: one HTTP server on loopback that speaks chat completions,
 * responses, Anthropic messages and Bedrock converse, records every request, and answers each
 * model request with the next step of its script.
 */
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import { anthropicMessages } from "./anthropic.js";
import { bedrockConverse } from "./bedrock.js";
import { chatCompletions } from "./chat.js";
import { listen } from "./listener.js";
import type { ProtocolAdapter, ReplyContext } from "./protocol.js";
import { responses } from "./responses.js";
import { type Reply, writeJson, writeStream } from "./stream-writer.js";
import { planTurn } from "./turn.js";
import type { FakeProvider, FakeProviderOptions, RecordedRequest, ScriptedTurn, ScriptStep } from "./types.js";

const DEFAULT_MODELS = [{ id: "fake-model", contextLength: 128_000 }];
const DEFAULT_REPLY: ScriptedTurn = { text: "ok" };

type Route = { kind: "models" } | { kind: "model"; adapter: ProtocolAdapter; pathModel?: string; pathStream?: boolean };

function route(method: string, pathname: string): Route | undefined {
  if (method === "GET") return pathname.endsWith("/models") ? { kind: "models" } : undefined;
  if (method !== "POST") return undefined;
  if (pathname.endsWith("/chat/completions")) return { kind: "model", adapter: chatCompletions };
  if (pathname.endsWith("/responses")) return { kind: "model", adapter: responses };
  if (pathname.endsWith("/v1/messages")) return { kind: "model", adapter: anthropicMessages };
  const bedrock = /\/model\/([^/]+)\/(converse|converse-stream)$/.exec(pathname);
  if (bedrock) {
    const pathModel = decodeURIComponent(bedrock[1]!);
    return { kind: "model", adapter: bedrockConverse, pathModel, pathStream: bedrock[2] === "converse-stream" };
  }
  return undefined;
}

type Request = IncomingMessage | Http2ServerRequest;

async function readBody(req: Request): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

/** Header names lowercased; HTTP/2 pseudo-headers (`:path`, ...) are left out. */
function lowercaseHeaders(req: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(":")) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  let script: ScriptStep[] = [...(options.script ?? [])];
  let modelRequestCount = 0;
  let idCounter = 0;
  const shutdown = new AbortController();
  const models = options.models ?? DEFAULT_MODELS;
  const newId = (prefix: string) => `${prefix}${(++idCounter).toString().padStart(6, "0")}`;

  async function answerModelRequest(
    res: Reply,
    target: Extract<Route, { kind: "model" }>,
    recorded: RecordedRequest,
  ): Promise<void> {
    const { adapter } = target;
    if (!isObject(recorded.body)) {
      const error = adapter.errorReply(400, "request body must be a JSON object");
      return writeJson(res, 400, error.body, error.headers);
    }
    const index = modelRequestCount++;
    const step = script.shift() ?? options.fallback ?? DEFAULT_REPLY;
    let scripted: ScriptedTurn;
    try {
      scripted = typeof step === "function" ? await step(recorded, index) : step;
    } catch (err) {
      const error = adapter.errorReply(500, `fake provider script step ${index} threw: ${String(err)}`);
      return writeJson(res, 500, error.body, error.headers);
    }
    const turn = planTurn(scripted, recorded.rawBody);
    if (turn.fault?.kind === "status") {
      const { status, message, body, headers } = turn.fault;
      const error = adapter.errorReply(status, message ?? `fake provider error ${status}`);
      return writeJson(res, status, body ?? error.body, { ...error.headers, ...headers });
    }
    const ctx: ReplyContext = {
      model: target.pathModel ?? (typeof recorded.body.model === "string" ? recorded.body.model : models[0]?.id) ?? "",
      body: recorded.body,
      created: Math.floor(Date.now() / 1000),
      newId,
    };
    if (!recorded.stream) return writeJson(res, 200, adapter.jsonReply(turn, ctx), {}, turn);
    const chunks = adapter.streamChunks(turn, ctx);
    return writeStream(res, adapter.streamContentType, chunks, adapter.malformedChunk(), turn, shutdown.signal);
  }

  async function handle(req: Request, res: Reply): Promise<void> {
    const path = req.url ?? "/";
    const pathname = new URL(path, "http://fake").pathname;
    const method = req.method ?? "GET";
    const rawBody = await readBody(req);
    const target = route(method, pathname);
    if (!target) {
      const message = `fake provider has no route for ${method} ${pathname}`;
      return writeJson(res, 404, { error: { message, type: "not_found", param: null, code: null } });
    }
    const parsed = parseJson(rawBody);
    const body = parsed.ok ? parsed.value : undefined;
    const stream = target.kind === "model" && (target.pathStream ?? (isObject(body) && body.stream === true));
    const protocol = target.kind === "model" ? target.adapter.protocol : "chat_completions";
    const recorded: RecordedRequest = { protocol, method, path, headers: lowercaseHeaders(req), body, rawBody, stream };
    requests.push(recorded);
    if (target.kind === "models") {
      const data = models.map((m) => ({
        id: m.id,
        object: "model",
        created: 0,
        owned_by: "fake-provider",
        context_length: m.contextLength ?? 128_000,
      }));
      return writeJson(res, 200, { object: "list", data });
    }
    return answerModelRequest(res, target, recorded);
  }

  const listener = await listen(
    (req, res) => {
      const reply: Reply = res;
      handle(req, reply).catch((err: unknown) => {
        if (reply.headersSent) reply.destroy();
        else
          void writeJson(reply, 500, {
            error: { message: `fake provider failed: ${String(err)}`, type: "server_error" },
          });
      });
    },
    options.port ?? 0,
    options.host ?? "127.0.0.1",
  );
  const { address, port } = listener.address;
  const host = listener.address.family === "IPv6" ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    push: (...steps) => {
      script.push(...steps);
    },
    setScript: (steps) => {
      script = [...steps];
    },
    close: () => {
      shutdown.abort();
      return listener.close();
    },
  };
}
