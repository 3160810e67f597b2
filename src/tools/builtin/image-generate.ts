/**
 * `image_generate` (toolset `image_gen`): makes an image from a prompt with fal.ai or OpenAI
 * (`image_gen.provider`) and saves it under `$HERMES_HOME/cache/images/`. The result carries a
 * `MEDIA:<path>` line: in a reply on a messaging platform it sends the image to the chat. The
 * providers load on the first call, never at start-up.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "../../util/schema/index.js";
import { chooseImageProvider } from "../image-gen/select.js";
import {
  ASPECT_RATIOS,
  DEFAULT_IMAGE_GEN_SETTINGS,
  type Env,
  type ImageGenSettings,
  type ImageHttp,
} from "../image-gen/types.js";
import type { ToolContext, ToolRegistry } from "../registry.js";

export interface ImageGenToolOptions {
  /** `image_gen.*` from config; missing fields take the defaults. */
  settings?: Partial<ImageGenSettings>;
  /** Where API keys and base URLs are read, at call time (default process.env). */
  env?: () => Env;
  /** HERMES_HOME, for the image cache. */
  home?: string;
  /** The HTTP client for the providers and the download (the runtime passes the project's, with proxies). */
  http?: ImageHttp;
  /** Time limits and the size cap, in place of the defaults (120 s, 30 s, 20 MB). */
  generateTimeoutMs?: number;
  downloadTimeoutMs?: number;
  maxImageBytes?: number;
}

export const imageGenerateParameters = z.object({
  prompt: z.string().min(1).describe("The image to make: subject, style, composition"),
  aspect_ratio: z.enum(ASPECT_RATIOS).optional().describe("square (default), landscape or portrait"),
});

export type ImageGenerateArgs = z.infer<typeof imageGenerateParameters>;

function settingsOf(options: ImageGenToolOptions): ImageGenSettings {
  return { ...DEFAULT_IMAGE_GEN_SETTINGS, ...options.settings };
}

function currentEnv(options: ImageGenToolOptions): Env {
  return options.env ? options.env() : process.env;
}

/** `$HERMES_HOME/cache/images`. */
export function imageCacheDir(home: string | undefined, env: Env): string {
  const root = home ?? (env.HERMES_HOME?.trim() || join(homedir(), ".hermes"));
  return join(root, "cache", "images");
}

export async function imageGenerateTool(
  args: ImageGenerateArgs,
  ctx: Pick<ToolContext, "signal">,
  options: ImageGenToolOptions = {},
): Promise<string> {
  const env = currentEnv(options);
  const { generateImage } = await import("../image-gen/generate.js");
  const result = await generateImage({
    prompt: args.prompt,
    aspectRatio: args.aspect_ratio ?? "square",
    settings: settingsOf(options),
    env,
    outputDir: imageCacheDir(options.home, env),
    http: options.http,
    signal: ctx.signal,
    generateTimeoutMs: options.generateTimeoutMs,
    downloadTimeoutMs: options.downloadTimeoutMs,
    maxImageBytes: options.maxImageBytes,
  });
  if (!result.ok) {
    return JSON.stringify({
      success: false,
      ...(result.provider ? { provider: result.provider } : {}),
      error: result.error,
    });
  }
  return JSON.stringify({
    success: true,
    file_path: result.path,
    provider: result.provider,
    model: result.model,
    media_tag: `MEDIA:${result.path}`,
    hint:
      "On a messaging platform, put media_tag on a line of its own in your reply to send the image; " +
      "in a terminal, give the user file_path.",
  });
}

export function registerImageGenerateTools(registry: ToolRegistry, options: ImageGenToolOptions = {}): void {
  registry.register({
    name: "image_generate",
    toolset: "image_gen",
    description:
      "Make an image from a text prompt when the user asks for a picture, drawing or illustration. " +
      "Returns the saved file's path and a MEDIA: line; on a messaging platform that line in your reply sends the image.",
    parameters: imageGenerateParameters,
    handler: (args, ctx) => imageGenerateTool(args, ctx, options),
    check: () => chooseImageProvider(settingsOf(options), currentEnv(options)).ok,
    emoji: "🎨",
  });
}
