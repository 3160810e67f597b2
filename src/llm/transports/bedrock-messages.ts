/** The Bedrock Converse request: `system` blocks, alternating turns, `toolConfig`, inference settings. */
import type { BedrockGuardrail } from "../bedrock-defaults.js";
import type { ContentPart, LlmRequest, Message } from "../types.js";
import {
  contentText,
  parseArguments,
  parseDataUrl,
  pushTurn,
  type TransportOptions,
  temperatureFor,
  thinkingBudget,
} from "./common.js";

type Block = Record<string, unknown>;
type Turn = { role: "user" | "assistant"; content: Block[] };

const IMAGE_FORMATS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

export function regionFromBaseUrl(baseUrl: string | undefined): string | undefined {
  return baseUrl ? /bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com/.exec(baseUrl)?.[1] : undefined;
}

/** Text and image blocks; Converse takes image bytes only, so remote image URLs stay as a text note. */
function partBlocks(content: Message["content"]): Block[] {
  if (content === null || content === "") return [];
  if (typeof content === "string") return [{ text: content }];
  return content.flatMap((part: ContentPart): Block[] => {
    if (part.type === "text") return part.text ? [{ text: part.text }] : [];
    const data = parseDataUrl(part.image_url.url);
    const format = data ? IMAGE_FORMATS[data.mediaType.toLowerCase()] : undefined;
    if (!data || !format) return [{ text: `[image: ${part.image_url.url.slice(0, 200)}]` }];
    return [{ image: { format, source: { bytes: Buffer.from(data.data, "base64") } } }];
  });
}

function reasoningBlocks(message: Message): Block[] {
  return (message.reasoningContinuity?.anthropicThinking ?? []).map((block): Block => {
    if (block.type === "redacted_thinking") {
      return { reasoningContent: { redactedContent: Buffer.from(block.data, "base64") } };
    }
    const reasoningText = block.signature
      ? { text: block.thinking, signature: block.signature }
      : { text: block.thinking };
    return { reasoningContent: { reasoningText } };
  });
}

function assistantBlocks(message: Message): Block[] {
  const blocks = [...reasoningBlocks(message), ...partBlocks(message.content)];
  for (const call of message.tool_calls ?? []) {
    const input = parseArguments(call.function.arguments);
    blocks.push({ toolUse: { toolUseId: call.id, name: call.function.name, input } });
  }
  return blocks;
}

function toolResultBlock(message: Message): Block {
  const content = partBlocks(message.content);
  return {
    toolResult: { toolUseId: message.tool_call_id ?? "", content: content.length > 0 ? content : [{ text: "" }] },
  };
}

/** Converts the internal history to Converse `system` blocks and strictly alternating turns. */
export function toBedrockMessages(messages: Message[]): { system: Block[]; messages: Turn[] } {
  const system: Block[] = [];
  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.role === "system") {
      const text = contentText(message.content);
      if (text) system.push({ text });
    } else if (message.role === "assistant") {
      pushTurn(turns, "assistant", assistantBlocks(message));
    } else if (message.role === "tool") {
      pushTurn(turns, "user", [toolResultBlock(message)]);
    } else {
      pushTurn(turns, "user", partBlocks(message.content));
    }
  }
  return { system, messages: turns };
}

/** The ConverseStream input for a request; `extraBody` fields are merged at the top level. */
export function buildConverseInput(
  req: LlmRequest,
  options: TransportOptions = {},
  guardrail?: BedrockGuardrail,
): Record<string, unknown> {
  const { system, messages } = toBedrockMessages(req.messages);
  const input: Record<string, unknown> = { modelId: req.model, messages };
  if (system.length > 0) input.system = system;
  const inference: Record<string, unknown> = {};
  if (req.maxTokens !== undefined) inference.maxTokens = req.maxTokens;
  const budget = thinkingBudget(req.reasoningEffort);
  if (budget !== undefined && /claude/i.test(req.model)) {
    input.additionalModelRequestFields = { thinking: { type: "enabled", budget_tokens: budget } };
  } else {
    const temperature = temperatureFor(req, options.quirks);
    if (temperature !== undefined) inference.temperature = temperature;
  }
  if (req.stopSequences?.length) inference.stopSequences = req.stopSequences;
  if (Object.keys(inference).length > 0) input.inferenceConfig = inference;
  if (req.tools && req.tools.length > 0) {
    input.toolConfig = {
      tools: req.tools.map((tool) => ({
        toolSpec: {
          name: tool.function.name,
          description: tool.function.description,
          inputSchema: { json: tool.function.parameters },
        },
      })),
    };
  }
  if (guardrail) {
    input.guardrailConfig = {
      guardrailIdentifier: guardrail.identifier,
      guardrailVersion: guardrail.version,
      streamProcessingMode: guardrail.streamProcessingMode,
      trace: guardrail.trace,
    };
  }
  return { ...input, ...req.extraBody };
}
