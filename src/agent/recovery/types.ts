/** Shapes shared by the model call and its recovery steps. */
import type { ClassifiedError } from "../../llm/errors.js";
import type { Transport } from "../../llm/types.js";

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
}

export interface RetryPolicy {
  maxRetries: number;
  baseMs: number;
  capMs: number;
}
