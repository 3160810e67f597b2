/** Shapes shared by the model call and its recovery steps. */
import type { ClassifiedError } from "../../llm/errors.js";
import type { Message, Transport } from "../../llm/types.js";

/**
 * What a route has refused in a request during this session, so that later requests to it
 * leave that out at once instead of failing first each time.
 */
export interface RouteRefusals {
  /** Messages whose reasoning artefacts (thinking signatures, encrypted reasoning) it rejected. */
  reasoningOf: WeakSet<Message>;
  /** Images in tool results: it takes only text there. */
  toolResultImages: boolean;
  /** A request that turns reasoning off: the model always reasons. */
  reasoningOff: boolean;
}

/** A provider + model the agent can call; the first route is the primary, the rest are fallbacks. */
export interface ModelRoute {
  provider: string;
  model: string;
  transport: Transport;
  /** Called when the credential should rotate; resolves with a new transport, or undefined when no key is left. */
  rotateCredential?: (error: ClassifiedError) => Promise<Transport | undefined>;
  /**
   * Called once on a 401 before rotating: refreshes the current credential (an OAuth token, or a
   * key re-read from auth.json) and resolves with a transport using it, or undefined if it cannot.
   */
  refreshCredential?: (error: ClassifiedError) => Promise<Transport | undefined>;
  /** Called once on a transport failure (timeout, disconnect, network): a fresh client for the same credential. */
  rebuildTransport?: (error: ClassifiedError) => Promise<Transport>;
  /** Largest context window of this route, when known. */
  contextLength?: number;
  /** Filled in by recovery when the route rejects part of a request. */
  refused?: RouteRefusals;
}

export interface RetryPolicy {
  maxRetries: number;
  baseMs: number;
  capMs: number;
}
