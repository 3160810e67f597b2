/**
 * The model MCP servers borrow through `sampling/createMessage`: the auxiliary `mcp` task
 * (`auxiliary.mcp.*`, `auto` = the main model first). The request holds the server's messages
 * and nothing else: no tools, none of the user's conversation.
 */
import type { AuxiliaryClient } from "../agent/auxiliary.js";
import { acceptsImages } from "../llm/model-vision.js";
import type { ContentPart, FinishReason, Message } from "../llm/types.js";
import {
  type SamplingMessage,
  type SamplingModel,
  SamplingRefused,
  type SamplingRequest,
} from "../tools/mcp/sampling-request.js";

const STOP_REASONS: Record<FinishReason, string> = {
  stop: "endTurn",
  length: "maxTokens",
  tool_calls: "endTurn",
  content_filter: "contentFilter",
};

function contentOf(message: SamplingMessage): Message["content"] {
  const [only, ...rest] = message.parts;
  if (only?.type === "text" && rest.length === 0) return only.text;
  return message.parts.map(
    (part): ContentPart =>
      part.type === "text"
        ? { type: "text", text: part.text }
        : { type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.data}` } },
  );
}

/** The request as the messages the auxiliary model is sent. */
export function samplingPrompt(request: SamplingRequest): Message[] {
  const messages: Message[] = request.systemPrompt ? [{ role: "system", content: request.systemPrompt }] : [];
  for (const message of request.messages) messages.push({ role: message.role, content: contentOf(message) });
  return messages;
}

/** A request with images goes only to a model known to read them. */
function refuseImagesFor(model: string | undefined, request: SamplingRequest): void {
  const hasImages = request.messages.some((message) => message.parts.some((part) => part.type === "image"));
  if (!hasImages || (model && acceptsImages(model))) return;
  throw new SamplingRefused(
    `the request has images and the model that answers (${model || "unknown"}) is not known to read images`,
  );
}

export function mcpSamplingModel(auxiliary: () => Promise<AuxiliaryClient>): SamplingModel {
  return async (request) => {
    const client = await auxiliary();
    refuseImagesFor(request.model ?? client.candidates("mcp")[0]?.model, request);
    const reply = await client.reply("mcp", samplingPrompt(request), {
      maxTokens: request.maxTokens,
      maxTokensCap: request.maxTokens,
      signal: request.signal,
      ...(request.model ? { model: request.model } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.stopSequences ? { stopSequences: request.stopSequences } : {}),
    });
    return { text: reply.text, model: reply.model, stopReason: STOP_REASONS[reply.finish] };
  };
}
