/**
 * `agent.image_input_mode`: how images a user sends in a chat reach the model. `native` sends
 * them as image parts; `text` has the vision task describe each one first and gives the model
 * the description (with the image's path, so it can ask vision_analyze more); `auto` is native
 * for models known to read images and text for the rest (see llm/model-vision.ts).
 */
import { isAbsolute } from "node:path";
import { type ImageInputMode, imageInputFor } from "../llm/model-vision.js";
import { DEFAULT_VISION_QUESTION, type VisionAnalyzer } from "../tools/vision/types.js";
import type { Attachment } from "./types.js";

/** What each described image shows, or why it could not be described. */
export type ImageDescriptions = ReadonlyMap<Attachment, { text: string } | { error: string }>;

export interface DescribeImagesInput {
  mode: ImageInputMode;
  /** The model the turn runs on. */
  model: string;
  attachments: readonly Attachment[];
  analyze: VisionAnalyzer;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

const MAX_ERROR_CHARS = 300;

/** Describes the message's images when the mode says the model gets them as text; else nothing. */
export async function describeImages(input: DescribeImagesInput): Promise<ImageDescriptions> {
  const out = new Map<Attachment, { text: string } | { error: string }>();
  if (imageInputFor(input.mode, input.model) === "native") return out;
  const images = input.attachments.filter((a) => a.kind === "image" && isAbsolute(a.url));
  if (images.length === 0) return out;
  const { readLocalImage } = await import("../tools/vision/local.js");
  const { toDataUrl } = await import("../tools/vision/image-type.js");
  for (const attachment of images) {
    try {
      const loaded = await readLocalImage(attachment.url, "/");
      if (!loaded.ok) throw new Error(loaded.error);
      const text = await input.analyze({
        question: DEFAULT_VISION_QUESTION,
        dataUrl: toDataUrl(loaded.image),
        ...(input.signal ? { signal: input.signal } : {}),
      });
      out.set(attachment, { text: text.trim() });
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_CHARS);
      input.log?.(`describing the image ${attachment.url} failed: ${reason}`);
      out.set(attachment, { error: reason });
    }
  }
  return out;
}

/** The line an image given as text becomes in the model's input. */
export function describedImageNote(attachment: Attachment, described: { text: string } | { error: string }): string {
  if ("error" in described) {
    return `[an image was attached but could not be described: ${described.error}] (saved at ${attachment.url})`;
  }
  return (
    `[The user sent an image, saved at ${attachment.url}. A vision model describes it:]\n${described.text}\n` +
    `[To ask something else about this image, call vision_analyze with image_url ${attachment.url}.]`
  );
}
