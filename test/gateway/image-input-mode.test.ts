import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RecordedRequest, ScriptStep } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";
import { type GatewayHarness, modelRequests, startGateway } from "./harness.js";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const DATA_URL = `data:image/png;base64,${PNG.toString("base64")}`;

type Part = { type: string; text?: string; image_url?: { url: string } };
type Sent = { role: string; content: string | Part[] };

const messagesOf = (request: RecordedRequest) => (request.body?.messages ?? []) as Sent[];
/** The chat turn: the request with the agent's system prompt. */
const turnRequest = (gw: GatewayHarness) =>
  modelRequests(gw.fake).find((r) => messagesOf(r).some((m) => m.role === "system"));
/** The vision task's requests: a lone user message carrying an image. */
const visionRequests = (gw: GatewayHarness) =>
  modelRequests(gw.fake).filter((r) => {
    const messages = messagesOf(r);
    return messages.length === 1 && Array.isArray(messages[0]?.content);
  });
const lastUser = (request: RecordedRequest | undefined) =>
  request
    ? messagesOf(request)
        .filter((m) => m.role === "user")
        .at(-1)
    : undefined;

/** Sends "what is this?" with a PNG from user-1 and waits for `reply` in the chat. */
async function sendImage(options: { config?: string; model?: string; script: ScriptStep[]; reply: RegExp }) {
  const image = join(tempDir("hermes-gw-image-"), "cat.png");
  writeFileSync(image, PNG);
  const gw = await startGateway({
    provider: { script: options.script },
    ...(options.config ? { config: options.config } : {}),
    ...(options.model ? { model: options.model } : {}),
  });
  gw.adapter.inject({
    messageId: "1",
    text: "what is this?",
    attachments: [{ kind: "image", url: image, mimeType: "image/png" }],
  });
  await gw.adapter.waitForText(options.reply);
  return { gw, image };
}

const mode = (value: string) => `agent:\n  image_input_mode: ${value}\n`;

test("native: the image reaches the model as an image part and no description is asked for", async () => {
  const { gw } = await sendImage({ config: mode("native"), script: [{ text: "a cat" }], reply: /a cat/ });
  try {
    assert.equal(visionRequests(gw).length, 0);
    const content = lastUser(turnRequest(gw))?.content as Part[];
    assert.ok(Array.isArray(content), "the user turn is a list of parts");
    assert.match(content[0]?.text ?? "", /what is this\?/);
    assert.equal(content[1]?.image_url?.url, DATA_URL);
  } finally {
    await gw.close();
  }
});

test("text: the vision task describes the image and the model gets the description and the path, no image part", async () => {
  const { gw, image } = await sendImage({
    config: mode("text"),
    script: [{ text: "A tabby cat asleep on a red sofa." }, { text: "That is a sleepy cat." }],
    reply: /sleepy cat/,
  });
  try {
    const [vision] = visionRequests(gw);
    const parts = messagesOf(vision!)[0]?.content as Part[];
    assert.match(parts[0]?.text ?? "", /^Describe this image/);
    assert.equal(parts[1]?.image_url?.url, DATA_URL);
    const content = lastUser(turnRequest(gw))?.content;
    assert.equal(typeof content, "string", "no image part reaches the model");
    assert.match(String(content), /what is this\?/);
    assert.match(String(content), /A tabby cat asleep on a red sofa\./);
    assert.ok(String(content).includes(`call vision_analyze with image_url ${image}`));
  } finally {
    await gw.close();
  }
});

test("text: when describing fails the message says so and the turn still runs", async () => {
  const { gw, image } = await sendImage({
    config: mode("text"),
    script: [
      { fault: { kind: "status", status: 400, message: "images are not supported" } },
      { text: "no idea, sorry" },
    ],
    reply: /no idea/,
  });
  try {
    const content = String(lastUser(turnRequest(gw))?.content);
    assert.match(content, /\[an image was attached but could not be described: .*images are not supported/);
    assert.ok(content.includes(`(saved at ${image})`));
    assert.ok(gw.logs.some((line) => /describing the image .* failed/.test(line)));
  } finally {
    await gw.close();
  }
});

test("auto: a model known to read images gets the image part", async () => {
  const { gw } = await sendImage({ model: "gpt-4o", script: [{ text: "a cat" }], reply: /a cat/ });
  try {
    assert.equal(visionRequests(gw).length, 0);
    const content = lastUser(turnRequest(gw))?.content as Part[];
    assert.equal(content[1]?.image_url?.url, DATA_URL);
  } finally {
    await gw.close();
  }
});

test("auto (the default): a model not known to read images gets a description", async () => {
  const { gw } = await sendImage({
    model: "some-local-text-model",
    script: [{ text: "A cat." }, { text: "described cat" }],
    reply: /described cat/,
  });
  try {
    assert.equal(gw.runtime.config.agent.image_input_mode, "auto");
    assert.equal(visionRequests(gw).length, 1);
    assert.match(String(lastUser(turnRequest(gw))?.content), /A vision model describes it:\]\nA cat\./);
  } finally {
    await gw.close();
  }
});
