/**
 * Values of the config schema that code outside it needs at start-up. Kept apart so that
 * importing them does not build the schema (see ./config-cache.ts).
 */

/** model.default when config.yaml names none: an OpenRouter (aggregator) model id. */
export const DEFAULT_MODEL = "anthropic/claude-opus-4.6";

export const REASONING_EFFORTS = ["", "none", "minimal", "low", "medium", "high", "xhigh"] as const;
