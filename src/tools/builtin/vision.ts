/**
 * `vision_analyze` (toolset `vision`): loads an image from a URL or a local file and asks the
 * auxiliary `vision` model (which falls back to the main model) a question about it. The
 * runtime injects the analyzer; loading code is imported on the first call. It needs no key of
 * its own, so it is always available.
 */
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import { DEFAULT_VISION_QUESTION, type VisionAnalyzer } from "../vision/types.js";
import type { WebsiteBlocklist } from "../web/blocklist.js";

export interface VisionToolOptions {
  /** Asks the vision model (the runtime's auxiliary `vision` task); without it every call fails. */
  analyze?: VisionAnalyzer;
  /** `auxiliary.vision.download_timeout`, in seconds. */
  downloadTimeoutSeconds?: number;
  /** `web.allow_private_urls`: let downloads reach private and loopback addresses. */
  allowPrivateUrls?: boolean;
  /** `security.website_blocklist`, when enabled. */
  blocklist?: WebsiteBlocklist | null;
  /** Why a URL may not be downloaded, in place of the private-address check (tests). */
  checkUrl?: (url: URL) => Promise<string | null>;
}

const MAX_QUESTION_CHARS = 4000;
const MAX_ERROR_CHARS = 500;

export const visionAnalyzeParameters = z.object({
  image_url: z.string().min(1).describe("http(s) URL, file:// URL or local path"),
  question: z.string().max(MAX_QUESTION_CHARS).optional().describe("What to find out (default: describe it)"),
});

export type VisionAnalyzeArgs = z.infer<typeof visionAnalyzeParameters>;

const failure = (error: string) => JSON.stringify({ success: false, error: error.slice(0, MAX_ERROR_CHARS) });

export async function visionAnalyzeTool(
  args: VisionAnalyzeArgs,
  ctx: Pick<ToolContext, "cwd" | "signal">,
  options: VisionToolOptions = {},
): Promise<string> {
  if (!options.analyze) return failure("No vision model is available in this process.");
  const imageUrl = args.image_url.trim();
  if (!imageUrl) return failure("image_url is empty: give an http(s) URL or a local path.");
  const { loadImage } = await import("../vision/load.js");
  const { toDataUrl } = await import("../vision/image-type.js");
  const blocklist = options.blocklist;
  const loaded = await loadImage(imageUrl, ctx.cwd, ctx.signal, {
    ...(options.downloadTimeoutSeconds ? { timeoutSeconds: options.downloadTimeoutSeconds } : {}),
    ...(options.allowPrivateUrls ? { allowPrivate: true } : {}),
    ...(blocklist ? { blocked: (url: URL) => blocklist.check(url)?.message ?? null } : {}),
    ...(options.checkUrl ? { checkUrl: options.checkUrl } : {}),
  });
  if (!loaded.ok) return failure(`Could not load the image: ${loaded.error}`);
  const question = args.question?.trim() || DEFAULT_VISION_QUESTION;
  try {
    const analysis = await options.analyze({ question, dataUrl: toDataUrl(loaded.image), signal: ctx.signal });
    return JSON.stringify({ success: true, analysis });
  } catch (error) {
    if (ctx.signal.aborted) return failure("interrupted");
    return failure(`The vision model could not analyse the image: ${(error as Error).message ?? String(error)}`);
  }
}

export function registerVisionTools(registry: ToolRegistry, options: VisionToolOptions = {}): void {
  registry.register({
    name: "vision_analyze",
    toolset: "vision",
    description:
      "See an image (web URL or local file) and answer a question about it. Returns JSON {success, analysis}.",
    parameters: visionAnalyzeParameters,
    handler: (args, ctx) => visionAnalyzeTool(args, ctx, options),
    parallelSafe: true,
    untrustedOutput: true,
    emoji: "👁️",
  });
}
