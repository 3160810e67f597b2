/** Shared helpers for the transport tests: drain a stream, capture its error, build histories. */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach } from "node:test";
import { LlmError } from "../../src/llm/errors.js";
import type { LlmEvent, Message, ToolDefinition } from "../../src/llm/types.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";

export async function drain(events: AsyncIterable<LlmEvent>): Promise<LlmEvent[]> {
  const out: LlmEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** Drains until the stream throws; fails the test if it does not. */
export async function drainError(events: AsyncIterable<LlmEvent>): Promise<{ events: LlmEvent[]; error: LlmError }> {
  const out: LlmEvent[] = [];
  try {
    for await (const event of events) out.push(event);
  } catch (error) {
    assert.ok(error instanceof LlmError, `expected an LlmError, got ${String(error)}`);
    return { events: out, error };
  }
  assert.fail(`the stream ended without an error after ${out.length} events`);
}

export function signal(): AbortSignal {
  return new AbortController().signal;
}

export const WEATHER_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather for a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

export const TIME_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "get_time",
    description: "Current time in a zone.",
    parameters: { type: "object", properties: { zone: { type: "string" } } },
  },
};

/** A history with a system prompt, one tool round trip, and a follow-up question. */
export function toolHistory(): Message[] {
  return [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Weather in Paris and the time in Tokyo?" },
    {
      role: "assistant",
      content: "Checking.",
      tool_calls: [
        { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { id: "call_b", type: "function", function: { name: "get_time", arguments: '{"zone":"Asia/Tokyo"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_a", name: "get_weather", content: "sunny, 21C" },
    { role: "tool", tool_call_id: "call_b", name: "get_time", content: "09:00" },
    { role: "user", content: "Thanks. Anything else?" },
  ];
}

export function ofType<T extends LlmEvent["type"]>(events: LlmEvent[], type: T): Array<Extract<LlmEvent, { type: T }>> {
  return events.filter((e): e is Extract<LlmEvent, { type: T }> => e.type === type);
}

export function textOf(events: LlmEvent[]): string {
  return ofType(events, "text_delta")
    .map((e) => e.text)
    .join("");
}

export function reasoningOf(events: LlmEvent[]): string {
  return ofType(events, "reasoning_delta")
    .map((e) => e.text)
    .join("");
}

/** A loopback server answering every request with `handler`; for wire cases the fake provider does not cover. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<import("node:net").Socket>();
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => handler(req, res, Buffer.concat(parts).toString("utf8")));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * One fake provider for the whole test file, with an empty script and request log before each
 * test. The returned object forwards to the running server.
 */
export function suiteFakeProvider(): FakeProvider {
  let running: FakeProvider | undefined;
  before(async () => {
    running = await startFakeProvider();
  });
  after(() => running?.close());
  beforeEach(() => {
    running!.setScript([]);
    running!.requests.length = 0;
  });
  return new Proxy({} as FakeProvider, {
    get(_target, key) {
      const value = Reflect.get(running!, key);
      return typeof value === "function" ? value.bind(running) : value;
    },
  });
}

/** Aborting on the first text delta rejects with an `abort` error within 1.5 s of the abort call, before any finish. */
export async function assertAbortIsPrompt(stream: (signal: AbortSignal) => AsyncIterable<LlmEvent>): Promise<void> {
  const controller = new AbortController();
  const seen: string[] = [];
  let abortedAt: number | undefined;
  await assert.rejects(
    (async () => {
      for await (const event of stream(controller.signal)) {
        seen.push(event.type);
        if (event.type === "text_delta" && abortedAt === undefined) {
          abortedAt = performance.now();
          controller.abort();
        }
      }
    })(),
    (error: { kind?: string }) => error.kind === "abort",
  );
  assert.ok(abortedAt !== undefined, "the stream produced a text delta to abort on");
  const latency = performance.now() - abortedAt;
  assert.ok(latency < 1500, `the stream ended ${Math.round(latency)} ms after the abort call`);
  assert.ok(!seen.includes("finish"));
}
