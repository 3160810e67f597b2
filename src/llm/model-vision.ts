/**
 * Which models read images, judged from the model's name alone (no request is made). The rule
 * lives here only: `agent.image_input_mode: auto` sends a chat's images as image parts to models
 * this says accept them, and describes them as text for every other model. A name this does not
 * recognise is "not known to accept images": describing an image costs a side call, sending one
 * to a text-only model fails the turn.
 */

export type ImageInputMode = "auto" | "native" | "text";

/** Names (or parts of names) of models that read images. */
const ACCEPTS_IMAGES: readonly RegExp[] = [
  /gpt-4o/, // GPT-4o, 4o-mini, chatgpt-4o-latest
  /gpt-4\.1/,
  /gpt-4-turbo/,
  /gpt-4-vision/,
  /gpt-5/,
  /(^|[^a-z0-9])o[134](-|$)/, // o1, o3, o4-mini (the text-only minis are excluded below)
  /claude-(3|sonnet|opus|haiku)/, // Claude 3 and every later family
  /gemini/,
  /gemma-?3/,
  /llama-?3\.2[\w.-]*vision/,
  /llama-?4/,
  /qwen[\w.-]*vl/, // Qwen-VL, Qwen2-VL, Qwen2.5-VL (qwen2.5vl), Qwen3-VL
  /qvq/,
  /pixtral/,
  /mistral-medium-(3|latest|25)/,
  /mistral-small-(3\.[1-9]|latest|250[3-9]|25[1-9])/,
  /grok[\w.-]*vision/,
  /grok-4/,
  /llava/,
  /kimi-k2\.5/,
  /kimi[\w.-]*vl/,
  /moonshot[\w.-]*vision/,
  /glm-4(\.\d+)?v/, // GLM-4V, GLM-4.1V, GLM-4.5V, GLM-4.6V
  /minicpm-v/,
  /internvl/,
  /moondream/,
  /phi-[\d.]+-(vision|multimodal)/,
];

/** Names matching a pattern above that still take no images. */
const TEXT_ONLY: readonly RegExp[] = [
  /(^|[^a-z0-9])o1-(mini|preview)/,
  /(^|[^a-z0-9])o3-mini/,
  /gpt-4o[\w.-]*-(audio|realtime|transcribe|tts)/,
  /gpt-5[\w.-]*-(audio|realtime|transcribe|tts)/,
  /gemini-(1\.0-)?pro$/,
  /gemma-?3[\w.-]*?[-:](1b|270m)/,
  /embedding/,
];

/** Whether `model` is known to accept image input. */
export function acceptsImages(model: string): boolean {
  const name = model.trim().toLowerCase();
  if (!name) return false;
  if (TEXT_ONLY.some((pattern) => pattern.test(name))) return false;
  return ACCEPTS_IMAGES.some((pattern) => pattern.test(name));
}

/** How a chat's images reach `model` under `agent.image_input_mode`. */
export function imageInputFor(mode: ImageInputMode, model: string): "native" | "text" {
  if (mode === "native" || mode === "text") return mode;
  return acceptsImages(model) ? "native" : "text";
}
