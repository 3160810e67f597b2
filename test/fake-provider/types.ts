/**
 * Contract of the scripted fake LLM provider used by tests, demos and benchmarks.
 * `startFakeProvider` (server.ts) serves every wire protocol from one script.
 */

export type Protocol = "chat_completions" | "responses" | "anthropic_messages" | "bedrock_converse";

export interface RecordedRequest {
  protocol: Protocol;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body (undefined for GET). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the bodies they sent
  body: any;
  /** Raw body text, to compare bytes between requests. */
  rawBody: string;
  stream: boolean;
}

export interface ScriptedToolCall {
  /** Omit to let the fake invent one (or, with `omitIds`, send none at all). */
  id?: string;
  name: string;
  /** A string is sent verbatim (so tests can send broken JSON); an object is JSON-encoded. */
  arguments: string | Record<string, unknown>;
}

/**
 * Token counters of one reply. `input` counts only the uncached prompt tokens (Anthropic's
 * meaning); protocols whose prompt count includes cached tokens (chat completions, responses)
 * report input + cacheRead + cacheWrite. Defaults: input ≈ request bytes / 4, output ≈ reply
 * characters / 4 (plus reasoning), caches 0.
 */
export interface ScriptedUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

export type Fault =
  /** Reply with this HTTP status and the protocol's real error body shape. */
  | { kind: "status"; status: number; message?: string; body?: unknown; headers?: Record<string, string> }
  /** Close the socket after N stream chunks (events). */
  | { kind: "disconnect"; afterChunks: number }
  /** Stop sending (keep the socket open) after N chunks. */
  | { kind: "stall"; afterChunks: number }
  /** Send a chunk that is not valid JSON after N chunks, then carry on. */
  | { kind: "malformed_chunk"; afterChunks: number }
  /** Cut the tool-call arguments JSON in half. */
  | { kind: "truncated_tool_json" }
  /** A reply with no content and no tool calls. */
  | { kind: "empty" };

export interface ScriptedTurn {
  text?: string;
  reasoning?: string;
  /** Anthropic thinking signature to attach to the reasoning block. */
  reasoningSignature?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: ScriptedUsage;
  /** Defaults to "tool_calls" when toolCalls are present, else "stop". */
  finish?: "stop" | "tool_calls" | "length" | "content_filter";
  /** Send tool calls without ids (chat_completions only). */
  omitIds?: boolean;
  fault?: Fault;
  /** Milliseconds between stream chunks (default 0). */
  chunkDelayMs?: number;
  /** chat_completions only: the delta/message field carrying reasoning (default "reasoning_content"). */
  reasoningField?: "reasoning_content" | "reasoning";
}

/** A turn, or a function of the recorded request and its 0-based position among model requests. */
export type ScriptStep = ScriptedTurn | ((req: RecordedRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>);

export interface FakeProviderOptions {
  /** Played in order, one step per model request; when exhausted `fallback` (or a plain "ok" text) answers. */
  script?: ScriptStep[];
  fallback?: ScriptStep;
  port?: number;
  host?: string;
  /** Models listed by GET /v1/models, with their context length. */
  models?: Array<{ id: string; contextLength?: number }>;
}

export interface FakeProvider {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:43121 (OpenAI paths live under /v1). */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Append steps to the script while running. */
  push(...steps: ScriptStep[]): void;
  /** Replace the remaining script. */
  setScript(steps: ScriptStep[]): void;
  close(): Promise<void>;
}
