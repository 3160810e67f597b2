/**
 * A server's `sampling/createMessage` parameters checked and turned into the request our model
 * answers. Everything in them is the server's to choose, so anything we do not take is refused
 * with a reason rather than passed on: tool use, audio, task-augmented requests, oversized
 * prompts. `includeContext` is read as "none": the user's conversation never goes to a server.
 */
import type { McpSamplingSettings } from "./settings.js";

export type SamplingPart = { type: "text"; text: string } | { type: "image"; mimeType: string; data: string };

export interface SamplingMessage {
  role: "user" | "assistant";
  parts: SamplingPart[];
}

/** What the model is asked: the server's messages and settings after our limits. */
export interface SamplingRequest {
  server: string;
  messages: SamplingMessage[];
  systemPrompt?: string;
  /** The server's maxTokens, lowered to `max_tokens_cap`. */
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  /** `sampling.model`, or the allowed model a hint picked; undefined: the sampling model's own. */
  model?: string;
  signal: AbortSignal;
}

export interface SamplingCompletion {
  text: string;
  /** The model that wrote the answer. */
  model: string;
  stopReason: string;
}

/** Answers one request with the client's model. Throw `SamplingRefused` for a request it cannot take. */
export type SamplingModel = (request: SamplingRequest) => Promise<SamplingCompletion>;

/** A request refused for what it asks (not for a failure of the model). */
export class SamplingRefused extends Error {
  override name = "SamplingRefused";
}

/** Characters of text one request may carry (system prompt and messages together). */
export const MAX_SAMPLING_TEXT_CHARS = 200_000;
/** Characters of base64 image data one request may carry. */
export const MAX_SAMPLING_IMAGE_CHARS = 10_000_000;

/** The subset of the SDK's CreateMessageRequest params read here (already schema-checked by the SDK). */
export interface CreateMessageParams {
  messages: Array<{ role: string; content: unknown }>;
  systemPrompt?: string | undefined;
  maxTokens: number;
  temperature?: number | undefined;
  stopSequences?: string[] | undefined;
  includeContext?: string | undefined;
  modelPreferences?: { hints?: Array<{ name?: string | undefined }> | undefined } | undefined;
  tools?: unknown;
  toolChoice?: unknown;
  task?: unknown;
}

interface Block {
  type?: unknown;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
}

function partOf(block: Block, index: number): SamplingPart {
  switch (block.type) {
    case "text":
      return { type: "text", text: String(block.text ?? "") };
    case "image": {
      const mimeType = String(block.mimeType ?? "");
      if (!/^image\/[\w.+-]+$/i.test(mimeType)) {
        throw new SamplingRefused(`message ${index + 1}: "${mimeType.slice(0, 60)}" is not an image type`);
      }
      return { type: "image", mimeType, data: String(block.data ?? "") };
    }
    case "audio":
      throw new SamplingRefused(`message ${index + 1}: audio content is not supported`);
    case "tool_use":
    case "tool_result":
      throw new SamplingRefused(`message ${index + 1}: tool use in sampling is not supported`);
    default:
      throw new SamplingRefused(
        `message ${index + 1}: content of type "${String(block.type).slice(0, 40)}" is not supported`,
      );
  }
}

/** The server's messages as ours, refusing content we do not send and prompts over the size limits. */
export function samplingMessages(params: CreateMessageParams): SamplingMessage[] {
  if (params.messages.length === 0) throw new SamplingRefused("the request has no messages");
  let textChars = params.systemPrompt?.length ?? 0;
  let imageChars = 0;
  const messages = params.messages.map((message, index): SamplingMessage => {
    if (message.role !== "user" && message.role !== "assistant") {
      throw new SamplingRefused(
        `message ${index + 1}: role "${String(message.role).slice(0, 40)}" is not user or assistant`,
      );
    }
    const blocks = (Array.isArray(message.content) ? message.content : [message.content]) as Block[];
    const parts = blocks.map((block) => partOf(block ?? {}, index));
    for (const part of parts) {
      if (part.type === "text") textChars += part.text.length;
      else imageChars += part.data.length;
    }
    return { role: message.role, parts };
  });
  if (textChars > MAX_SAMPLING_TEXT_CHARS) {
    throw new SamplingRefused(
      `the prompt has ${textChars} characters; at most ${MAX_SAMPLING_TEXT_CHARS} are accepted`,
    );
  }
  if (imageChars > MAX_SAMPLING_IMAGE_CHARS) {
    throw new SamplingRefused(
      `the images add up to ${imageChars} characters of data; at most ${MAX_SAMPLING_IMAGE_CHARS} are accepted`,
    );
  }
  return messages;
}

/**
 * The model to answer with: `sampling.model` when set; otherwise the first of the server's hints
 * that names an allowed model (exactly, or as part of its name, as the MCP spec reads hints);
 * otherwise none, and the sampling model's own answers. A hint alone never picks a model.
 */
export function chooseModel(settings: McpSamplingSettings, params: CreateMessageParams): string | undefined {
  const fixed = settings.model?.trim();
  if (fixed) return fixed;
  const allowed = (settings.allowed_models ?? []).map((model) => model.trim()).filter(Boolean);
  if (allowed.length === 0) return undefined;
  for (const hint of params.modelPreferences?.hints ?? []) {
    const name = hint.name?.trim().toLowerCase();
    if (!name) continue;
    const exact = allowed.find((model) => model.toLowerCase() === name);
    const partial = allowed.find((model) => model.toLowerCase().includes(name));
    if (exact ?? partial) return exact ?? partial;
  }
  return undefined;
}

/** Refuses what the request asks for that this client does not do, before any limit is spent. */
export function refuseUnsupported(params: CreateMessageParams): void {
  if (params.tools !== undefined || params.toolChoice !== undefined) {
    throw new SamplingRefused("tool use in sampling is not supported (this client does not declare sampling.tools)");
  }
  if (params.task !== undefined) throw new SamplingRefused("task-augmented sampling requests are not supported");
  if (!Number.isInteger(params.maxTokens) || params.maxTokens < 1) {
    throw new SamplingRefused(`maxTokens must be a whole number of at least 1 (got ${params.maxTokens})`);
  }
  const temperature = params.temperature;
  if (temperature !== undefined && !(temperature >= 0 && temperature <= 2)) {
    throw new SamplingRefused(`temperature must be between 0 and 2 (got ${temperature})`);
  }
}
