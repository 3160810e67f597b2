/**
 * Image understanding through the auxiliary `vision` task (`auxiliary.vision.*`, falling back to
 * the main model): the analyzer vision_analyze is given, and that the gateway uses to describe
 * a chat's images for models that read no images (`agent.image_input_mode`).
 */
import type { AuxiliaryClient } from "../agent/auxiliary.js";
import type { HermesConfig } from "../state/config-schema.js";
import type { VisionAnalyzer } from "../tools/vision/types.js";

export function visionAnalyzer(auxiliary: () => Promise<AuxiliaryClient>): VisionAnalyzer {
  return async ({ question, dataUrl, signal }) => {
    const client = await auxiliary();
    return client.complete(
      "vision",
      [
        {
          role: "user",
          content: [
            { type: "text", text: question },
            { type: "image_url", image_url: { url: dataUrl } },
          ],
        },
      ],
      signal ? { signal } : {},
    );
  };
}

/** The vision_analyze tool's options for a runtime. */
export function visionToolOptions(config: HermesConfig, auxiliary: () => Promise<AuxiliaryClient>) {
  return { analyze: visionAnalyzer(auxiliary), downloadTimeoutSeconds: config.auxiliary.vision.download_timeout };
}
