import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { extractOutboundFiles } from "../../src/gateway/attachments.js";
import { type ImageGenToolOptions, registerImageGenerateTools } from "../../src/tools/builtin/image-generate.js";
import { MAX_IMAGE_BYTES } from "../../src/tools/image-gen/types.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { tempDir } from "../state/temp-dir.js";
import { callTool, makeContext } from "./tool-harness.js";

/** A real 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from("JFIF fake jpeg body")]);
const FAL_KEY = "fal-secret-key-0001";
const OPENAI_KEY = "sk-openai-secret-0002";

// ---- the provider APIs (fal.run's and OpenAI's shapes) on one server ----

interface Posted {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

interface Reply {
  status: number;
  body: unknown;
}

let posts: Posted[] = [];
let answer: (post: Posted) => Reply | "stall" = () => ({ status: 500, body: {} });
const stalled: ServerResponse[] = [];

const api = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const post: Posted = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>,
    };
    posts.push(post);
    const reply = answer(post);
    if (reply === "stall") {
      stalled.push(res);
      return;
    }
    res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.body));
  });
});

// ---- where the made images are downloaded from ----

let downloads: string[] = [];
const files = createServer((req, res) => {
  downloads.push(req.url ?? "");
  if (req.url === "/out/picture.png") return res.writeHead(200, { "content-type": "image/png" }).end(PNG);
  if (req.url === "/out/photo.jpeg") return res.writeHead(200, { "content-type": "image/jpeg" }).end(JPEG);
  // A page that claims to be an image: the bytes decide.
  if (req.url === "/out/fake.png") {
    return res.writeHead(200, { "content-type": "image/png" }).end("<html><body>Not found</body></html>");
  }
  if (req.url === "/out/huge.png") {
    // Streamed without a length, so only counting the bytes can stop it.
    res.writeHead(200, { "content-type": "image/png" });
    res.write(PNG.subarray(0, 16));
    const block = Buffer.alloc(1024 * 1024, 1);
    for (let i = 0; i <= MAX_IMAGE_BYTES / block.length; i++) res.write(block);
    return res.end();
  }
  res.writeHead(404, { "content-type": "text/plain" }).end("expired");
});

let apiBase = "";
let filesBase = "";

before(async () => {
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
  apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  filesBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});

after(async () => {
  for (const res of stalled) res.destroy();
  api.closeAllConnections();
  files.closeAllConnections();
  await new Promise<void>((resolve) => api.close(() => resolve()));
  await new Promise<void>((resolve) => files.close(() => resolve()));
});

const falEnv =
  (extra: Record<string, string> = {}) =>
  () => ({
    FAL_KEY,
    FAL_BASE_URL: apiBase,
    ...extra,
  });
const openaiEnv =
  (extra: Record<string, string> = {}) =>
  () => ({
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: `${apiBase}/v1`,
    ...extra,
  });

const falMade = (path = "/out/picture.png"): Reply => ({
  status: 200,
  body: {
    images: [{ url: `${filesBase}${path}`, width: 1024, height: 1024, content_type: "image/png" }],
    seed: 42,
    has_nsfw_concepts: [false],
    prompt: "p",
  },
});
const openaiMade = (): Reply => ({ status: 200, body: { created: 1, data: [{ b64_json: PNG.toString("base64") }] } });

function toolWith(options: ImageGenToolOptions): { registry: ToolRegistry; home: string } {
  const home = options.home ?? tempDir("hermes-image-home-");
  const registry = new ToolRegistry();
  registerImageGenerateTools(registry, { ...options, home });
  return { registry, home };
}

function draw(registry: ToolRegistry, args: Record<string, unknown>, signal?: AbortSignal) {
  const ctx = makeContext(tempDir("hermes-image-cwd-"), signal ? { signal } : {});
  return callTool(registry, "image_generate", args, ctx);
}

function savedImages(home: string): string[] {
  const dir = join(home, "cache", "images");
  return existsSync(dir) ? readdirSync(dir) : [];
}

test("fal: posts the prompt, a square size and one image with the key, then saves the downloaded PNG with a MEDIA tag", async () => {
  posts = [];
  downloads = [];
  answer = () => falMade();
  const { registry, home } = toolWith({ env: falEnv() });
  assert.equal(await registry.isAvailable("image_generate"), true);
  const result = await draw(registry, { prompt: "  A lighthouse at dusk, watercolour  " });
  assert.equal(result.success, true, JSON.stringify(result));
  const path = result.file_path as string;
  assert.ok(path.startsWith(join(home, "cache", "images", "image_")), path);
  assert.ok(path.endsWith(".png"), path);
  assert.deepEqual(readFileSync(path), PNG);
  assert.equal(result.provider, "fal");
  assert.equal(result.model, "fal-ai/flux-2");
  assert.equal(result.media_tag, `MEDIA:${path}`);
  assert.match(String(result.hint), /media_tag on a line of its own/);
  assert.equal(posts.length, 1);
  const [post] = posts;
  assert.equal(post!.method, "POST");
  assert.equal(post!.url, "/fal-ai/flux-2");
  assert.equal(post!.headers.authorization, `Key ${FAL_KEY}`);
  assert.match(String(post!.headers["content-type"]), /^application\/json/);
  assert.deepEqual(post!.body, { prompt: "A lighthouse at dusk, watercolour", image_size: "square_hd", num_images: 1 });
  assert.deepEqual(downloads, ["/out/picture.png"]);
  assert.doesNotMatch(JSON.stringify(result), new RegExp(FAL_KEY));
});

test("the MEDIA tag of a made image is sent by the gateway as an inline image, even in strict mode", async () => {
  answer = () => falMade();
  const { registry, home } = toolWith({ env: falEnv() });
  const result = await draw(registry, { prompt: "a cat" });
  const reply = `Here is your cat.\n${result.media_tag as string}`;
  const policy = { strict: true, home, allowDirs: [], trustRecentFiles: false, trustRecentSeconds: 0 };
  const outbound = extractOutboundFiles(reply, policy);
  assert.deepEqual(outbound.refused, []);
  assert.deepEqual(outbound.files, [{ path: result.file_path, image: true }]);
  assert.equal(outbound.text.trim(), "Here is your cat.");
});

test("fal: landscape and portrait map to its 16:9 sizes, and image_gen.model picks the endpoint", async () => {
  posts = [];
  answer = () => falMade("/out/photo.jpeg");
  const { registry } = toolWith({ env: falEnv(), settings: { provider: "fal", model: "fal-ai/flux-2/flash" } });
  const wide = await draw(registry, { prompt: "a beach", aspect_ratio: "landscape" });
  const tall = await draw(registry, { prompt: "a tower", aspect_ratio: "portrait" });
  assert.equal(wide.success, true, JSON.stringify(wide));
  assert.ok(String(wide.file_path).endsWith(".jpg"), "the file takes the extension of what the bytes are");
  assert.equal(wide.model, "fal-ai/flux-2/flash");
  assert.equal(tall.success, true);
  assert.deepEqual(
    posts.map((p) => [p.url, p.body.image_size]),
    [
      ["/fal-ai/flux-2/flash", "landscape_16_9"],
      ["/fal-ai/flux-2/flash", "portrait_16_9"],
    ],
  );
  assert.throws(() => registry.get("image_generate")!.parameters.parse({ prompt: "x", aspect_ratio: "wide" }));
});

test("openai: posts model, prompt, size and n with a bearer key; the b64_json image is saved", async () => {
  posts = [];
  answer = () => openaiMade();
  const { registry, home } = toolWith({ env: openaiEnv() });
  const result = await draw(registry, { prompt: "An owl reading a map" });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.provider, "openai");
  assert.equal(result.model, "gpt-image-1");
  assert.ok(String(result.file_path).startsWith(join(home, "cache", "images")));
  assert.deepEqual(readFileSync(result.file_path as string), PNG);
  const [post] = posts;
  assert.equal(post!.url, "/v1/images/generations");
  assert.equal(post!.headers.authorization, `Bearer ${OPENAI_KEY}`);
  assert.deepEqual(post!.body, { model: "gpt-image-1", prompt: "An owl reading a map", size: "1024x1024", n: 1 });

  posts = [];
  await draw(registry, { prompt: "wide", aspect_ratio: "landscape" });
  await draw(registry, { prompt: "tall", aspect_ratio: "portrait" });
  assert.deepEqual(
    posts.map((p) => p.body.size),
    ["1536x1024", "1024x1536"],
  );
});

test("openai: a model that answers with a URL (dall-e-3) is downloaded, with its own size names", async () => {
  posts = [];
  downloads = [];
  answer = () => ({ status: 200, body: { data: [{ url: `${filesBase}/out/picture.png`, revised_prompt: "r" }] } });
  const { registry } = toolWith({ env: openaiEnv(), settings: { model: "dall-e-3" } });
  const result = await draw(registry, { prompt: "a harbour", aspect_ratio: "landscape" });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.model, "dall-e-3");
  assert.equal(posts[0]!.body.size, "1792x1024");
  assert.deepEqual(downloads, ["/out/picture.png"]);
  assert.deepEqual(readFileSync(result.file_path as string), PNG);
});

test("auto takes fal when both keys are set and OpenAI when only its key is; a named provider wins", async () => {
  answer = (post) => (post.url.startsWith("/v1/") ? openaiMade() : falMade());
  const both = () => ({ ...falEnv()(), ...openaiEnv()() });
  posts = [];
  const auto = await draw(toolWith({ env: both }).registry, { prompt: "x" });
  assert.equal(auto.provider, "fal");
  const onlyOpenai = await draw(toolWith({ env: openaiEnv() }).registry, { prompt: "x" });
  assert.equal(onlyOpenai.provider, "openai");
  const named = await draw(toolWith({ env: both, settings: { provider: "openai" } }).registry, { prompt: "x" });
  assert.equal(named.provider, "openai");
  assert.deepEqual(
    posts.map((p) => p.url),
    ["/fal-ai/flux-2", "/v1/images/generations", "/v1/images/generations"],
  );
});

test("401, 429 and 500 come back as errors that say what to do, never with the key; nothing is saved", async () => {
  const { registry, home } = toolWith({ env: falEnv() });
  answer = () => ({ status: 401, body: { detail: `Invalid key ${FAL_KEY}` } });
  const refused = await draw(registry, { prompt: "x" });
  assert.equal(refused.success, false);
  assert.match(String(refused.error), /fal\.ai refused the API key \(HTTP 401\).*Check FAL_KEY/);
  assert.doesNotMatch(JSON.stringify(refused), new RegExp(FAL_KEY));

  answer = () => ({ status: 429, body: { detail: "Too many requests" } });
  const limited = await draw(registry, { prompt: "x" });
  assert.match(String(limited.error), /rate limiting .*HTTP 429\): Too many requests\. Wait a minute/);

  answer = () => ({ status: 500, body: { detail: "Internal error" } });
  const broken = await draw(registry, { prompt: "x" });
  assert.match(
    String(broken.error),
    /fal\.ai had a problem on its side \(HTTP 500\): Internal error\. Try again later/,
  );
  assert.deepEqual(savedImages(home), []);

  const openai = toolWith({ env: openaiEnv() });
  answer = () => ({
    status: 401,
    body: { error: { message: `Incorrect API key provided: ${OPENAI_KEY}`, type: "invalid_request_error" } },
  });
  const wrongKey = await draw(openai.registry, { prompt: "x" });
  assert.match(String(wrongKey.error), /OpenAI images refused the API key \(HTTP 401\).*Check OPENAI_API_KEY/);
  assert.doesNotMatch(JSON.stringify(wrongKey), new RegExp(OPENAI_KEY));
  answer = () => ({ status: 404, body: { error: { message: "The model 'gpt-image-9' does not exist" } } });
  const unknown = await draw(openai.registry, { prompt: "x" });
  assert.match(String(unknown.error), /HTTP 404\): The model 'gpt-image-9' does not exist\. Check image_gen\.model/);
});

test("a content-policy refusal says so and asks for a rephrased prompt (OpenAI, fal's checker and its flag)", async () => {
  answer = () => ({
    status: 400,
    body: {
      error: {
        message: "Your request was rejected by the safety system.",
        type: "image_generation_user_error",
        code: "moderation_blocked",
      },
    },
  });
  const openai = await draw(toolWith({ env: openaiEnv() }).registry, { prompt: "x" });
  assert.match(
    String(openai.error),
    /OpenAI images refused the prompt under its content policy: .*safety system.*Rephrase/,
  );

  const fal = toolWith({ env: falEnv() });
  answer = () => ({
    status: 422,
    body: {
      detail: [
        {
          loc: ["body", "prompt"],
          msg: "The content was flagged by a content checker.",
          type: "content_policy_violation",
        },
      ],
    },
  });
  const checked = await draw(fal.registry, { prompt: "x" });
  assert.match(String(checked.error), /fal\.ai refused the prompt under its content policy: The content was flagged/);

  downloads = [];
  answer = () => ({
    status: 200,
    body: { images: [{ url: `${filesBase}/out/picture.png` }], has_nsfw_concepts: [true] },
  });
  const flagged = await draw(fal.registry, { prompt: "x" });
  assert.match(String(flagged.error), /safety checker flagged the image.*Rephrase/);
  assert.deepEqual(downloads, [], "a withheld image is not fetched");
  assert.deepEqual(savedImages(fal.home), []);
});

test("a download that is not a PNG, JPEG or WebP image is refused whatever its content type says", async () => {
  answer = () => falMade("/out/fake.png");
  const { registry, home } = toolWith({ env: falEnv() });
  const result = await draw(registry, { prompt: "x" });
  assert.equal(result.success, false);
  assert.match(String(result.error), /not a PNG, JPEG or WebP image \(it starts with "<html><body>Not found/);
  assert.deepEqual(savedImages(home), []);

  answer = () => ({ status: 200, body: { data: [{ b64_json: Buffer.from("GIF89a....").toString("base64") }] } });
  const gif = await draw(toolWith({ env: openaiEnv() }).registry, { prompt: "x" });
  assert.match(String(gif.error), /not a PNG, JPEG or WebP image/);
});

test("an image larger than the cap is refused while it streams, and an expired link says so", async () => {
  answer = () => falMade("/out/huge.png");
  const { registry, home } = toolWith({ env: falEnv() });
  const huge = await draw(registry, { prompt: "x" });
  assert.equal(huge.success, false);
  assert.match(String(huge.error), new RegExp(`larger than ${MAX_IMAGE_BYTES} bytes; nothing was saved`));
  assert.deepEqual(savedImages(home), []);

  answer = () => falMade("/out/gone.png");
  const gone = await draw(registry, { prompt: "x" });
  assert.match(String(gone.error), /HTTP 404\); the link may have expired/);
});

test("a provider that does not answer in time is given up on, and an interrupted call says so", async () => {
  answer = () => "stall";
  const { registry } = toolWith({ env: falEnv(), generateTimeoutMs: 300 });
  const slow = await draw(registry, { prompt: "x" });
  assert.equal(slow.success, false);
  assert.match(String(slow.error), /fal\.ai made no image within 0\.3s; try again later/);

  const stop = new AbortController();
  const pending = draw(toolWith({ env: falEnv() }).registry, { prompt: "x" }, stop.signal);
  stop.abort();
  const interrupted = await pending;
  assert.match(String(interrupted.error), /interrupted/);
});

test("with no key the tool is unavailable, and a call anyway names the keys to set", async () => {
  posts = [];
  const none = toolWith({ env: () => ({ FAL_BASE_URL: apiBase }) });
  assert.equal(await none.registry.isAvailable("image_generate"), false);
  const result = await draw(none.registry, { prompt: "x" });
  assert.equal(result.success, false);
  assert.match(String(result.error), /needs an API key: set FAL_KEY \(fal\.ai\) or OPENAI_API_KEY/);

  const wrong = toolWith({ env: openaiEnv(), settings: { provider: "fal" } });
  assert.equal(await wrong.registry.isAvailable("image_generate"), false, "the named provider's key is missing");
  const named = await draw(wrong.registry, { prompt: "x" });
  assert.match(String(named.error), /image_gen\.provider is fal, which needs FAL_KEY/);
  assert.equal(posts.length, 0);
});

test("a prompt past the limit is refused before anything is sent", async () => {
  posts = [];
  const { registry } = toolWith({ env: falEnv() });
  const result = await draw(registry, { prompt: "a".repeat(4001) });
  assert.match(String(result.error), /the prompt is 4001 characters; at most 4000/);
  assert.equal(posts.length, 0);
});

test("through the runtime: image_gen.* from config.yaml reaches fal over the project's HTTP client", async () => {
  posts = [];
  answer = () => falMade();
  const saved = { key: process.env.FAL_KEY, url: process.env.FAL_BASE_URL };
  process.env.FAL_KEY = FAL_KEY;
  process.env.FAL_BASE_URL = apiBase;
  const rt = await openTestRuntime({ config: "image_gen:\n  provider: fal\n  model: fal-ai/flux-2-pro\n" });
  try {
    assert.equal(await rt.runtime.registry.isAvailable("image_generate"), true);
    const result = await draw(rt.runtime.registry, { prompt: "Configured model", aspect_ratio: "portrait" });
    assert.equal(result.success, true, JSON.stringify(result));
    assert.ok(String(result.file_path).startsWith(join(rt.home, "cache", "images")));
    assert.equal(posts[0]!.url, "/fal-ai/flux-2-pro");
    assert.equal(posts[0]!.body.image_size, "portrait_16_9");
    assert.equal(posts[0]!.headers["user-agent"], "hermes-agent", "sent by the project's HTTP client, not fetch");
  } finally {
    await rt.close();
    if (saved.key === undefined) delete process.env.FAL_KEY;
    else process.env.FAL_KEY = saved.key;
    if (saved.url === undefined) delete process.env.FAL_BASE_URL;
    else process.env.FAL_BASE_URL = saved.url;
  }
});

test("by default image_gen.provider is auto and the model is the provider's own", async () => {
  const rt = await openTestRuntime();
  try {
    assert.equal(rt.runtime.config.image_gen.provider, "auto");
    assert.equal(rt.runtime.config.image_gen.model, "");
    assert.ok(rt.runtime.registry.get("image_generate"), "registered whether or not a key is set");
  } finally {
    await rt.close();
  }
});
