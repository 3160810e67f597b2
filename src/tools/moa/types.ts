/**
 * What the mixture_of_agents tool needs from the process: a backend that turns a preset into
 * routes (provider + model with credentials) and sends one request to a route. The runtime
 * supplies it (src/runtime/moa.ts); tests may supply their own.
 */

/** One model the tool can ask. The backend may carry more fields (endpoint, key) on its own routes. */
export interface MoaRoute {
  /** How the model is named in results and traces: `provider:model`. */
  label: string;
  provider: string;
  model: string;
}

/** A model of the preset that is left out, and why (no credentials, an unknown provider, a failed request). */
export interface MoaFailure {
  model: string;
  error: string;
}

export interface MoaPlan<R extends MoaRoute = MoaRoute> {
  preset: string;
  /** The reference models that can be asked. Never empty. */
  references: R[];
  /** Reference models of the preset that cannot be asked (no credentials), named in the result. */
  unusable: MoaFailure[];
  aggregator: R;
  referenceTemperature: number;
  aggregatorTemperature: number;
  referenceMaxTokens: number;
  aggregatorMaxTokens: number;
}

export interface MoaMessage {
  role: "system" | "user";
  content: string;
}

export interface MoaRequest<R extends MoaRoute = MoaRoute> {
  role: "reference" | "aggregator";
  route: R;
  messages: MoaMessage[];
  temperature: number;
  maxTokens: number;
  /** The tool call's signal: aborting it cancels the request. */
  signal: AbortSignal;
}

export interface MoaBackend<R extends MoaRoute = MoaRoute> {
  /**
   * The plan for a preset (undefined: the configured one). Throws MoaSetupError, saying what to
   * set, for an unknown or disabled preset, an aggregator that cannot be reached, or no reachable
   * reference model.
   */
  plan(preset?: string): MoaPlan<R>;
  /** The reply text of one request; throws when the request fails or the reply is empty. */
  ask(request: MoaRequest<R>): Promise<string>;
  /** Whether the configured preset has at least one reference model with credentials. */
  available(): boolean;
}

/** A preset that cannot run as configured; the message says what to change. */
export class MoaSetupError extends Error {
  override name = "MoaSetupError";
}
