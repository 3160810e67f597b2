/**
 * The model calls of one turn: builds each request from the live history (so a compression
 * during a retry is picked up), runs it through the recovery hierarchy, and totals usage.
 */
import type { CollectedReply } from "../llm/normalize.js";
import { resolveProvider } from "../llm/providers.js";
import type { LlmRequest, Message, ToolDefinition, Usage } from "../llm/types.js";
import { emptyUsage } from "../llm/types.js";
import { addUsage } from "../llm/usage.js";
import type { AgentEmitter } from "./events.js";
import { callModel, type ModelRoute } from "./model-call.js";
import type { AgentOptions } from "./options.js";

export interface TurnCallerOptions {
  routes: ModelRoute[];
  agent: AgentOptions;
  tools: ToolDefinition[];
  emitter: AgentEmitter;
  signal: AbortSignal;
  /** The messages of the next request, with `extra` (nudges, continuations) at the end. */
  messages: (extra: Message[]) => Message[];
  /** Makes room after a context overflow; resolves true when it did. */
  compress: () => Promise<boolean>;
  /** Told of every reply, with the provider's prompt token count. */
  onReply?: (reply: CollectedReply) => void;
  /** This turn wants a new reply, not a cached one (RunOptions.freshReply). */
  freshReply?: boolean;
}

export class TurnCaller {
  usage: Usage = emptyUsage();
  apiCalls = 0;
  lastRoute: ModelRoute;

  constructor(private readonly options: TurnCallerOptions) {
    this.lastRoute = options.routes[0]!;
  }

  async call(extra: Message[], withTools = true): Promise<CollectedReply> {
    const { emitter, agent } = this.options;
    this.apiCalls++;
    emitter.emit({ type: "thinking", state: "start" });
    try {
      const result = await callModel(this.options.routes, (route) => this.request(route, extra, withTools), {
        signal: this.options.signal,
        emitter,
        retry: agent.retry ?? {},
        ...(agent.firstByteTimeoutMs ? { firstByteTimeoutMs: agent.firstByteTimeoutMs } : {}),
        ...(agent.maxReplyBytes ? { maxReplyBytes: agent.maxReplyBytes } : {}),
        compress: this.options.compress,
      });
      this.usage = addUsage(this.usage, result.reply.usage);
      this.lastRoute = result.route;
      this.options.onReply?.(result.reply);
      return result.reply;
    } finally {
      emitter.emit({ type: "thinking", state: "stop" });
    }
  }

  private request(route: ModelRoute, extra: Message[], withTools: boolean): LlmRequest {
    const { agent, tools } = this.options;
    return {
      model: route.model,
      messages: this.options.messages(extra),
      ...(withTools && tools.length ? { tools } : {}),
      ...(agent.maxTokens ? { maxTokens: agent.maxTokens } : {}),
      ...(agent.temperature !== undefined ? { temperature: agent.temperature } : {}),
      ...(agent.reasoningEffort ? { reasoningEffort: agent.reasoningEffort } : {}),
      ...(agent.extraBody ? { extraBody: agent.extraBody } : {}),
      ...(agent.serviceTier ? { serviceTier: agent.serviceTier } : {}),
      ...(agent.promptCache !== undefined ? { promptCache: agent.promptCache } : {}),
      ...this.responseCacheHeaders(route),
    };
  }

  /** OpenRouter answers an identical request from its cache when asked to (`openrouter.response_cache`). */
  private responseCacheHeaders(route: ModelRoute): { headers?: Record<string, string> } {
    const cache = this.options.agent.responseCache;
    if (!cache || this.options.freshReply || resolveProvider(route.provider)?.id !== "openrouter") return {};
    return { headers: { "X-OpenRouter-Cache": "true", "X-OpenRouter-Cache-TTL": String(cache.ttlSeconds) } };
  }
}
