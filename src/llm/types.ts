/**
 * The contracts of the LLM layer: the internal OpenAI-style history, the request every
 * transport accepts, and the single event union every wire protocol streams into.
 */

export type Role = "system" | "user" | "assistant" | "tool";

export interface TextPart {
  type: "text";
  text: string;
}

export interface ImagePart {
  type: "image_url";
  image_url: { url: string; detail?: "auto" | "low" | "high" };
}

export type ContentPart = TextPart | ImagePart;

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  /** Responses API item id (`fc_...`) kept so later requests can reference the call. */
  responseItemId?: string;
}

/** Provider-specific reasoning artefacts that must be echoed back on later turns. */
export interface ReasoningContinuity {
  /** Anthropic thinking blocks, with their signatures (or redacted data). */
  anthropicThinking?: Array<
    { type: "thinking"; thinking: string; signature?: string } | { type: "redacted_thinking"; data: string }
  >;
  /** OpenRouter `reasoning_details` array, passed through verbatim. */
  openrouterDetails?: unknown[];
  /** Responses API reasoning items (with encrypted content when present). */
  responsesItems?: unknown[];
}

export interface Message {
  role: Role;
  content: string | ContentPart[] | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** Tool name on a tool result (helps protocols that need it). */
  name?: string;
  /** Visible reasoning text of an assistant message. */
  reasoning?: string;
  reasoningContinuity?: ReasoningContinuity;
  finish_reason?: FinishReason;
}

export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export type ApiMode = "chat_completions" | "codex_responses" | "anthropic_messages" | "bedrock_converse";

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter";

export interface LlmRequest {
  model: string;
  messages: Message[];
  tools?: ToolDefinition[];
  maxTokens?: number;
  temperature?: number;
  /**
   * Text that ends the reply where the model would write it: chat completions' `stop`, Anthropic's
   * `stop_sequences`, Bedrock's `inferenceConfig.stopSequences`. The Responses API has no such
   * field: it is not sent there.
   */
  stopSequences?: string[];
  /** Reasoning effort hint ("low" | "medium" | "high" ...), mapped per protocol. */
  reasoningEffort?: string;
  /** Extra body fields merged into the wire request (provider-specific knobs). */
  extraBody?: Record<string, unknown>;
  /**
   * The provider's processing tier (`agent.service_tier`: OpenAI's `priority` / `flex`,
   * Anthropic's `auto` / `standard_only`), sent as `service_tier`; Bedrock has none.
   */
  serviceTier?: string;
  /** Extra HTTP headers for this request. */
  headers?: Record<string, string>;
  /**
   * Prompt-cache breakpoints for models that take them (Anthropic natively and through
   * aggregators): `false` turns them off; the default TTL is "5m".
   */
  promptCache?: { ttl?: "5m" | "1h" } | false;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

export type LlmEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "tool_call_start"; index: number; id: string; name: string; responseItemId?: string }
  | { type: "tool_call_delta"; index: number; argumentsDelta: string }
  | { type: "tool_call_end"; index: number }
  | { type: "reasoning_continuity"; continuity: ReasoningContinuity }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; reason: FinishReason };

export interface Transport {
  readonly apiMode: ApiMode;
  stream(req: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent>;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}
