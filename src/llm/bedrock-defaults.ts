/**
 * Process-wide settings of the Bedrock transport from config.yaml (`bedrock.*`, see
 * state/config-bedrock.ts), set by the runtime when it opens. Every Bedrock transport of the
 * process (the agent's, fallbacks, auxiliary tasks) reads them when it sends.
 */
export interface BedrockGuardrail {
  identifier: string;
  version: string;
  streamProcessingMode: "sync" | "async";
  trace: "enabled" | "disabled" | "enabled_full";
}

export interface BedrockDefaults {
  /** Used when the base URL names no region, before AWS_REGION / AWS_DEFAULT_REGION. */
  region?: string;
  guardrail?: BedrockGuardrail;
}

let current: BedrockDefaults = {};

export function setBedrockDefaults(defaults: BedrockDefaults): void {
  current = defaults;
}

export function bedrockDefaults(): BedrockDefaults {
  return current;
}
