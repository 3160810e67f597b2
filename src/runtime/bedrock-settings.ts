/** `bedrock.*` of config.yaml as the Bedrock transport takes it (see llm/bedrock-defaults.ts). */
import type { BedrockDefaults } from "../llm/bedrock-defaults.js";
import type { HermesConfig } from "../state/config-schema.js";

export function bedrockDefaultsFrom(section: HermesConfig["bedrock"]): BedrockDefaults {
  const { guardrail } = section;
  const identifier = guardrail.guardrail_identifier.trim();
  return {
    ...(section.region.trim() ? { region: section.region.trim() } : {}),
    ...(identifier
      ? {
          guardrail: {
            identifier,
            version: guardrail.guardrail_version.trim(),
            streamProcessingMode: guardrail.stream_processing_mode,
            trace: guardrail.trace,
          },
        }
      : {}),
  };
}
