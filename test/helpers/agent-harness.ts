/** Builds an Agent wired to a scripted fake provider over real HTTP, with small test tools. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { historyProblems } from "../../src/agent/history.js";
import type { Message } from "../../src/llm/types.js";
import { type ToolContext, ToolRegistry } from "../../src/tools/registry.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, FakeProviderOptions, RecordedRequest } from "../fake-provider/types.js";

export interface Harness {
  fake: FakeProvider;
  agent: Agent;
  registry: ToolRegistry;
  events: AgentEvent[];
  dir: string;
  /** Every tool execution, in the order handlers started and finished. */
  trace: string[];
  close(): Promise<void>;
}

/** Messages of a recorded chat-completions request, without the system prompt. */
export function conversationOf(req: RecordedRequest): Message[] {
  return (req.body.messages as Message[]).filter((m) => m.role !== "system");
}

/** Asserts that every request the fake received had a well-formed history. */
export function assertWellFormedRequests(fake: FakeProvider): void {
  for (const [i, req] of fake.requests.entries()) {
    const problems = historyProblems(conversationOf(req));
    assert.deepEqual(problems, [], `request ${i} has a malformed history`);
  }
}

export function lastToolResults(req: RecordedRequest): string[] {
  const messages = conversationOf(req);
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "tool"; i--) {
    out.unshift(String(messages[i]!.content));
  }
  return out;
}

export async function createHarness(
  fakeOptions: FakeProviderOptions,
  agentOptions: Partial<AgentOptions> = {},
): Promise<Harness> {
  const fake = await startFakeProvider(fakeOptions);
  const dir = mkdtempSync(join(tmpdir(), "hermes-agent-"));
  const trace: string[] = [];
  const registry = new ToolRegistry();
  registry.register({
    name: "echo",
    toolset: "test",
    description: "Echo the text back.",
    parameters: z.object({ text: z.string() }),
    parallelSafe: true,
    handler: async ({ text }) => {
      trace.push(`echo:${text}`);
      return `echo: ${text}`;
    },
  });
  registry.register({
    name: "slow_write",
    toolset: "test",
    description: "Pretend to write a file slowly.",
    parameters: z.object({ path: z.string(), ms: z.number().default(20) }),
    parallelSafe: true,
    pathArgs: ["path"],
    handler: async ({ path, ms }, ctx) => {
      trace.push(`start:${path}`);
      await new Promise<void>((resolve, reject) => {
        if (ctx.signal.aborted) reject(new Error("aborted"));
        const timer = setTimeout(resolve, ms);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("aborted"));
        });
      });
      trace.push(`end:${path}`);
      return `wrote ${path}`;
    },
  });
  const events: AgentEvent[] = [];
  const agent = new Agent({
    model: "test-model",
    provider: "custom",
    baseUrl: `${fake.url}/v1`,
    apiKey: "test-key",
    registry,
    tools: ["echo", "slow_write"],
    cwd: dir,
    home: dir,
    retry: { baseMs: 5, capMs: 20 },
    onEvent: (event) => events.push(event),
    ...agentOptions,
  });
  return {
    fake,
    agent,
    registry,
    events,
    dir,
    trace,
    close: async () => {
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Registers argument-less tools named as given, each answering with `handler`. */
export function registerTestTools(
  registry: ToolRegistry,
  tools: ReadonlyArray<{ name: string; toolset: string }>,
  handler: (name: string, ctx: ToolContext) => Promise<string>,
): void {
  for (const tool of tools) {
    registry.register({
      name: tool.name,
      toolset: tool.toolset,
      description: `test tool ${tool.name}`,
      parameters: z.object({}),
      handler: (_args, ctx) => handler(tool.name, ctx),
    });
  }
}
