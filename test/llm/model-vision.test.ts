import assert from "node:assert/strict";
import { test } from "node:test";
import { acceptsImages, imageInputFor } from "../../src/llm/model-vision.js";

const READS_IMAGES = [
  "gpt-4o",
  "gpt-4o-mini",
  "openai/gpt-4o-2024-08-06",
  "chatgpt-4o-latest",
  "gpt-4.1-mini",
  "gpt-4-turbo",
  "gpt-5",
  "gpt-5.1-codex-mini",
  "o1",
  "o3",
  "openai/o4-mini",
  "claude-3-haiku-20240307",
  "anthropic/claude-3.5-sonnet",
  "claude-sonnet-4-20250514",
  "claude-opus-4-1",
  "claude-haiku-4-5-20251001",
  "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
  "gemini-2.5-flash",
  "google/gemini-3-flash-preview",
  "gemma3:12b",
  "meta-llama/llama-3.2-11b-vision-instruct",
  "llama3.2-vision:11b",
  "meta-llama/llama-4-maverick",
  "Qwen/Qwen2.5-VL-72B-Instruct",
  "qwen2.5vl:7b",
  "qwen3-vl-235b-a22b-instruct",
  "qwen-vl-max",
  "pixtral-12b-2409",
  "mistral-medium-3",
  "mistral-small-3.1-24b-instruct",
  "mistral-small-2506",
  "grok-2-vision-1212",
  "grok-4",
  "x-ai/grok-4-fast",
  "llava:13b",
  "kimi-k2.5",
  "moonshotai/kimi-vl-a3b-thinking",
  "glm-4.5v",
  "z-ai/glm-4.6v",
  "GLM-4V-Plus",
];

const TEXT_ONLY = [
  "",
  "fake-model",
  "gpt-3.5-turbo",
  "gpt-4",
  "gpt-oss-120b",
  "o1-mini",
  "o3-mini",
  "gpt-4o-audio-preview",
  "claude-2.1",
  "claude-instant-1.2",
  "gemini-pro",
  "gemma3:1b",
  "llama-3.1-8b-instruct",
  "llama3.2:3b",
  "qwen2.5-coder:32b",
  "mistral-small-2501",
  "mistral-large-latest",
  "grok-3-mini",
  "deepseek-chat",
  "kimi-k2-turbo-preview",
  "glm-4.5-flash",
  "text-embedding-3-small",
];

test("models known to read images are recognised by name, whatever the vendor prefix or tag", () => {
  for (const model of READS_IMAGES) assert.equal(acceptsImages(model), true, model);
});

test("text-only and unknown models are not taken to read images", () => {
  for (const model of TEXT_ONLY) assert.equal(acceptsImages(model), false, model);
});

test("image_input_mode: native and text are kept; auto follows the model", () => {
  assert.equal(imageInputFor("native", "fake-model"), "native");
  assert.equal(imageInputFor("text", "gpt-4o"), "text");
  assert.equal(imageInputFor("auto", "gpt-4o"), "native");
  assert.equal(imageInputFor("auto", "fake-model"), "text");
});
