/**
 * One model call with the recovery hierarchy around it: stream the reply (forwarding text to
 * listeners), and on failure read the classified error's flags — compress, rotate the
 * credential, switch to the next fallback route, or back off and retry — never matching
 * error strings here. Text already delivered to listeners is not delivered twice on a retry.
 */
import { type ClassifiedError, classifyApiError } from "../llm/errors.js";
import { type CollectedReply, collect } from "../llm/normalize.js";
import type { LlmEvent, LlmRequest, Transport } from "../llm/types.js";
import { backoffDelayMs, sleepWithSignal } from "../util/backoff.js";
import type { AgentEmitter } from "./events.js";

/** A provider + model the agent can call; the first route is the primary, the rest are fallbacks. */
export interface ModelRoute {
  provider: string;
  model: string;
  transport: Transport;
  /** Called when the credential should rotate; resolves with a new transport, or undefined when no key is left. */
  rotateCredential?: (error: ClassifiedError) => Promise<Transport | undefined>;
  /** Largest context window of this route, when known. */
  contextLength?: number;
}

export interface RetryPolicy {
  maxRetries: number;
  baseMs: number;
  capMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseMs: 5000, capMs: 120_000 };

export interface ModelCallOptions {
  signal: AbortSignal;
  emitter: AgentEmitter;
  retry?: Partial<RetryPolicy>;
  /** Shrinks the conversation on a context overflow; resolves true when it made room. */
  compress?: () => Promise<boolean>;
  /** Emit text and reasoning deltas to listeners (off for side calls). */
  stream?: boolean;
}

export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly classified: ClassifiedError,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ModelCallError";
  }
}

export interface ModelCallResult {
  reply: CollectedReply;
  route: ModelRoute;
  routeIndex: number;
}

function guidance(classified: ClassifiedError, route: ModelRoute): string {
  const where = `${route.provider}/${route.model}`;
  switch (classified.reason) {
    case "auth":
    case "auth_permanent":
      return `${where} rejected the credentials: check the API key (hermes auth list, or the provider's *_API_KEY).`;
    case "billing":
      return `${where} refused for billing reasons: add credits or configure fallback_providers.`;
    case "rate_limit":
      return `${where} is rate limiting and retries ran out: wait a little, add a key (hermes auth add) or configure fallback_providers.`;
    case "context_overflow":
    case "payload_too_large":
      return `the conversation no longer fits ${where}'s context: start a new session (/new) or compress (/compress).`;
    case "model_not_found":
      return `${where} does not know this model: check the model name (hermes model).`;
    default:
      return `${where} failed (${classified.reason}): ${classified.message}`;
  }
}

/** Forwards deltas to listeners, skipping text that an earlier attempt already delivered. */
async function* forwardDeltas(
  events: AsyncIterable<LlmEvent>,
  emitter: AgentEmitter,
  delivered: { text: number; reasoning: number },
): AsyncIterable<LlmEvent> {
  let text = 0;
  let reasoning = 0;
  for await (const event of events) {
    if (event.type === "text_delta") {
      const fresh = event.text.slice(Math.max(0, delivered.text - text));
      text += event.text.length;
      if (fresh) {
        emitter.emit({ type: "text_delta", text: fresh });
        delivered.text = Math.max(delivered.text, text);
      }
    } else if (event.type === "reasoning_delta") {
      const fresh = event.text.slice(Math.max(0, delivered.reasoning - reasoning));
      reasoning += event.text.length;
      if (fresh) {
        emitter.emit({ type: "reasoning_delta", text: fresh });
        delivered.reasoning = Math.max(delivered.reasoning, reasoning);
      }
    }
    yield event;
  }
}

export async function callModel(
  routes: ModelRoute[],
  buildRequest: (route: ModelRoute) => LlmRequest,
  options: ModelCallOptions,
): Promise<ModelCallResult> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const delivered = { text: 0, reasoning: 0 };
  let routeIndex = 0;
  let attempt = 0;
  let compressions = 0;
  for (;;) {
    const route = routes[routeIndex]!;
    try {
      const events = route.transport.stream(buildRequest(route), options.signal);
      const reply = await collect(
        options.stream === false ? events : forwardDeltas(events, options.emitter, delivered),
      );
      return { reply, route, routeIndex };
    } catch (error) {
      if (options.signal.aborted) throw error;
      const classified = classifyApiError(error, { provider: route.provider, model: route.model });
      const hasFallback = routeIndex + 1 < routes.length;

      if (classified.shouldCompress && options.compress && compressions < 2) {
        compressions++;
        options.emitter.emit({
          type: "status",
          kind: "compression",
          message: "context is full; compressing and retrying",
        });
        if (await options.compress()) continue;
      }
      if (classified.shouldRotateCredential && route.rotateCredential) {
        const next = await route.rotateCredential(classified);
        if (next) {
          route.transport = next;
          options.emitter.emit({
            type: "status",
            kind: "retry",
            message: `${route.provider}: switched to the next credential`,
          });
          continue;
        }
      }
      // Transient faults get the primary's retries first; errors that retrying cannot fix (and
      // rate limits, where waiting is the expensive path) switch at once.
      const eager = !classified.retryable || classified.reason === "rate_limit";
      const switchNow = (classified.shouldFallback && eager) || (classified.retryable && attempt >= policy.maxRetries);
      if (hasFallback && switchNow) {
        routeIndex++;
        attempt = 0;
        const next = routes[routeIndex]!;
        options.emitter.emit({
          type: "status",
          kind: "fallback",
          message: `${route.provider}/${route.model} failed (${classified.reason}); falling back to ${next.provider}/${next.model}`,
        });
        continue;
      }
      if (classified.retryable && attempt < policy.maxRetries) {
        attempt++;
        const retryAfterMs =
          classified.retryAfterSeconds !== undefined ? classified.retryAfterSeconds * 1000 : undefined;
        const delay = backoffDelayMs(attempt, { baseMs: policy.baseMs, capMs: policy.capMs, retryAfterMs });
        const what = classified.reason === "rate_limit" ? "rate limited" : `${classified.reason.replace(/_/g, " ")}`;
        options.emitter.emit({
          type: "status",
          kind: "retry",
          message: `${what}, retrying in ${Math.max(1, Math.round(delay / 1000))} s (attempt ${attempt} of ${policy.maxRetries})`,
        });
        await sleepWithSignal(delay, options.signal);
        continue;
      }
      throw new ModelCallError(guidance(classified, route), classified, { cause: error });
    }
  }
}
