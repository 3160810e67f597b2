import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { configSchema } from "../../src/state/config-schema.js";
import { registerXSearchTools, type XSearchToolOptions } from "../../src/tools/builtin/x-search.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { resolveToolset } from "../../src/tools/toolsets.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { callTool, makeContext, tempDir } from "./tool-harness.js";

const KEY = "xai-secret-key-0123456789abcdef";

// ---- xAI's Responses endpoint, as documented for the x_search tool ----

interface Posted {
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

type Reply =
  | { status: number; body: unknown; headers?: Record<string, string> }
  | "hold"
  | { stream: number }
  | ((res: ServerResponse) => void);

let posts: Posted[] = [];
let replies: Reply[] = [];
let onPost: (() => void) | undefined;
const held: ServerResponse[] = [];

const api = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    posts.push({
      url: req.url ?? "",
      headers: req.headers,
      body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>,
    });
    const reply = replies.shift() ?? { status: 500, body: { code: "internal", error: "no reply scripted" } };
    onPost?.();
    if (reply === "hold") {
      held.push(res);
      return;
    }
    if (typeof reply === "function") return reply(res);
    if ("stream" in reply) {
      // No content-length: only counting the bytes as they come can stop it.
      res.writeHead(200, { "content-type": "application/json" });
      const block = Buffer.alloc(1024, 0x20);
      for (let i = 0; i < reply.stream / block.length; i++) res.write(block);
      return res.end();
    }
    res
      .writeHead(reply.status, { "content-type": "application/json", ...reply.headers })
      .end(JSON.stringify(reply.body));
  });
});

let base = "";

before(async () => {
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(api.address() as AddressInfo).port}/v1`;
});

after(async () => {
  for (const res of held) res.destroy();
  api.closeAllConnections();
  await new Promise<void>((resolve) => api.close(() => resolve()));
});

function reset(...next: Reply[]): void {
  posts = [];
  replies = next;
  onPost = undefined;
}

/** A completed Responses reply: a reasoning item, then the assistant message with its citations. */
function answered(text: string, cited: string[] = [], listed: string[] = []): Reply {
  return {
    status: 200,
    body: {
      id: "resp_0001",
      object: "response",
      status: "completed",
      model: "grok-4.20-reasoning",
      output: [
        { type: "reasoning", id: "rs_1", summary: [], status: "completed" },
        {
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "completed",
          content: [
            {
              type: "output_text",
              text,
              logprobs: [],
              annotations: cited.map((url, i) => ({
                type: "url_citation",
                url,
                title: String(i + 1),
                start_index: 0,
                end_index: 1,
              })),
            },
          ],
        },
      ],
      citations: listed,
      usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 },
    },
  };
}

function tool(
  options: XSearchToolOptions = {},
  env: Record<string, string> = { XAI_API_KEY: KEY, XAI_BASE_URL: base },
) {
  const registry = new ToolRegistry();
  registerXSearchTools(registry, { env: () => env, retryBaseMs: 1, ...options });
  return registry;
}

function search(registry: ToolRegistry, args: Record<string, unknown>, signal?: AbortSignal) {
  return callTool(registry, "x_search", args, makeContext(tempDir("x-search"), signal ? { signal } : {}));
}

test("sends the documented Responses request: model from config, the x_search tool with its filters, the key as a bearer", async () => {
  reset(answered("People like it."));
  const registry = tool({ settings: { model: "grok-test-model" } });
  const result = await search(registry, {
    query: "  what do people say about the launch  ",
    allowed_x_handles: ["@xai", "grok", "xai"],
    from_date: "2025-01-01",
    to_date: "2025-02-01",
    enable_image_understanding: true,
  });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(posts.length, 1);
  const [post] = posts;
  assert.equal(post!.url, "/v1/responses");
  assert.equal(post!.headers.authorization, `Bearer ${KEY}`);
  assert.match(String(post!.headers["content-type"]), /^application\/json/);
  assert.deepEqual(post!.body, {
    model: "grok-test-model",
    input: [{ role: "user", content: "what do people say about the launch" }],
    tools: [
      {
        type: "x_search",
        allowed_x_handles: ["xai", "grok"],
        from_date: "2025-01-01",
        to_date: "2025-02-01",
        enable_image_understanding: true,
      },
    ],
    store: false,
  });
  assert.equal(result.model, "grok-test-model");
});

test("returns the answer and the cited URLs, cited ones first, each once, web links only", async () => {
  const first = "https://x.com/someone/status/1";
  const second = "https://x.com/other/status/2";
  reset(
    answered(
      "The launch went well [1][2].",
      [first, second, first],
      [second, "javascript:alert(1)", "https://x.com/third/status/3"],
    ),
  );
  const result = await search(tool(), { query: "launch" });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.answer, "The launch went well [1][2].");
  assert.deepEqual(result.citations, [first, second, "https://x.com/third/status/3"]);
  assert.equal(result.warning, undefined);
  assert.deepEqual(posts[0]!.body.tools, [{ type: "x_search" }], "no filters: the bare tool");
});

test("a filtered search that cites nothing is flagged as possibly unsourced", async () => {
  reset(answered("Nothing specific was found, but generally..."));
  const result = await search(tool(), { query: "news", excluded_x_handles: ["spam_bot"] });
  assert.equal(result.success, true);
  assert.deepEqual(result.citations, []);
  assert.match(String(result.warning), /may come from the model's own knowledge/);
});

test("max_chars caps the answer and says so", async () => {
  reset(answered("a".repeat(1000)));
  const result = await search(tool(), { query: "long", max_chars: 200 });
  assert.equal(result.truncated, true);
  assert.match(String(result.answer), /^a{200}\n\n\[\.\.\. 800 more characters not shown \.\.\.\]$/);
});

test("bad filters are refused with what to fix, before any request", async () => {
  reset();
  const registry = tool({ settings: { retries: 0 } });
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ allowed_x_handles: ["a"], excluded_x_handles: ["b"] }, /allowed_x_handles or excluded_x_handles, not both/],
    [{ allowed_x_handles: ["not a handle!"] }, /"not a handle!" is not an X handle/],
    [{ from_date: "01-02-2025" }, /from_date must be a date written YYYY-MM-DD/],
    [{ to_date: "2025-02-30" }, /to_date must be a date written YYYY-MM-DD/],
    [{ from_date: "2025-03-01", to_date: "2025-02-01" }, /from_date \(2025-03-01\) is after to_date \(2025-02-01\)/],
    [{ from_date: "2999-01-01" }, /from_date \(2999-01-01\) is in the future/],
  ];
  for (const [filters, message] of cases) {
    const result = await search(registry, { query: "q", ...filters });
    assert.equal(result.success, false, JSON.stringify(filters));
    assert.match(String(result.error), message);
  }
  const future = await search(registry, { query: "q", from_date: "2020-01-01", to_date: "2999-01-01" });
  assert.equal(future.success, false, "the scripted 500 answers: the range itself was accepted");
  assert.equal(posts.length, 1, "only the valid range reached xAI");
});

test("retries a 429, honouring retry-after, then succeeds", { timeout: 20_000 }, async () => {
  reset(
    { status: 429, headers: { "retry-after": "0" }, body: { code: "rate_limited", error: "slow down" } },
    answered("Found it.", ["https://x.com/a/status/1"]),
  );
  // Without the server's retry-after the first retry would wait a minute.
  const result = await search(tool({ retryBaseMs: 60_000 }), { query: "q" });
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(result.answer, "Found it.");
  assert.equal(posts.length, 2);
});

test("three 500s with retries=2 end in a clear error after 3 attempts", async () => {
  const failing: Reply = { status: 500, body: { code: "internal_error", error: "upstream exploded" } };
  reset(failing, failing, failing, answered("too late"));
  const result = await search(tool({ settings: { retries: 2 } }), { query: "q" });
  assert.equal(result.success, false);
  assert.equal(posts.length, 3);
  assert.match(String(result.error), /after 3 attempts, the last: HTTP 500: internal_error: upstream exploded/);
  assert.match(String(result.error), /try again later/);
});

test("401 is not retried, points at XAI_API_KEY, and never shows the key", async () => {
  reset({ status: 401, body: { code: "unauthorized", error: `Incorrect API key provided: ${KEY}` } }, answered("no"));
  const result = await search(tool({ settings: { retries: 2 } }), { query: "q" });
  assert.equal(result.success, false);
  assert.equal(posts.length, 1);
  assert.match(String(result.error), /xAI refused the API key \(HTTP 401\).*Check XAI_API_KEY in ~\/\.hermes\/\.env/);
  assert.doesNotMatch(JSON.stringify(result), new RegExp(KEY));
});

test("400 and 403 are not retried and say what to check", async () => {
  reset({ status: 400, body: { code: "invalid_argument", error: "Model not found: grok-x" } });
  const bad = await search(tool(), { query: "q" });
  assert.equal(posts.length, 1);
  assert.match(
    String(bad.error),
    /rejected the request \(HTTP 400\): invalid_argument: Model not found.*x_search\.model/,
  );
  reset({ status: 403, body: { error: { message: "team blocked" } } });
  const forbidden = await search(tool(), { query: "q" });
  assert.equal(posts.length, 1);
  assert.match(String(forbidden.error), /HTTP 403\): team blocked/);
});

test("a request the server holds times out after timeout_seconds, is retried, then reported", {
  timeout: 10_000,
}, async () => {
  reset("hold", "hold");
  const result = await search(tool({ settings: { timeoutSeconds: 0.2, retries: 1 } }), { query: "q" });
  assert.equal(result.success, false);
  assert.equal(posts.length, 2);
  assert.match(
    String(result.error),
    /after 2 attempts, the last: no answer within 0\.2 s\. .*x_search\.timeout_seconds/,
  );
});

test("interrupting the turn stops the search at once, without retrying", { timeout: 10_000 }, async () => {
  reset("hold", answered("never"));
  const controller = new AbortController();
  onPost = () => controller.abort();
  const result = await search(
    tool({ settings: { timeoutSeconds: 60, retries: 2 } }),
    { query: "q" },
    controller.signal,
  );
  assert.equal(result.success, false);
  assert.match(String(result.error), /interrupted/);
  assert.equal(posts.length, 1);
});

test("a reply larger than the cap is refused while it streams, and not retried", async () => {
  reset({ stream: 64 * 1024 }, answered("small"));
  const result = await search(tool({ maxReplyBytes: 8 * 1024 }), { query: "q" });
  assert.equal(result.success, false);
  assert.match(String(result.error), /more than 8192 bytes/);
  assert.equal(posts.length, 1);
});

test("a refused connection is retried, then reported with what to check", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const registry = tool(
    { settings: { retries: 1 } },
    { XAI_API_KEY: KEY, XAI_BASE_URL: `http://127.0.0.1:${port}/v1` },
  );
  const result = await search(registry, { query: "q" });
  assert.equal(result.success, false);
  assert.match(String(result.error), /after 2 attempts, the last: could not reach xAI.*XAI_BASE_URL/);
});

test("a reply without text is an error, not an empty answer", async () => {
  reset({ status: 200, body: { status: "incomplete", output: [{ type: "reasoning", summary: [] }] } });
  const result = await search(tool(), { query: "q" });
  assert.equal(result.success, false);
  assert.match(String(result.error), /without any text \(status incomplete\)/);
});

test("without XAI_API_KEY the tool is not offered, and a call says what to set", async () => {
  reset();
  const registry = tool({}, {});
  assert.equal(await registry.isAvailable("x_search"), false);
  const result = await search(registry, { query: "q" });
  assert.equal(result.success, false);
  assert.match(String(result.error), /set XAI_API_KEY in ~\/\.hermes\/\.env/);
  assert.equal(posts.length, 0);
  assert.equal(await tool().isAvailable("x_search"), true);
});

test("x_search is its own toolset, left out of the default platform sets, and its output is fenced", () => {
  assert.deepEqual(resolveToolset("x_search"), ["x_search"]);
  for (const platform of ["hermes-cli", "hermes-telegram", "hermes-api-server"]) {
    assert.ok(!resolveToolset(platform).includes("x_search"), platform);
  }
  const spec = tool().get("x_search");
  assert.equal(spec?.untrustedOutput, true);
  assert.match(spec?.description ?? "", /Returns an answer .* URLs of the posts it cites/);
});

test("x_search.* config keys: defaults, and bad values named with what is accepted", () => {
  assert.deepEqual(configSchema.parse({}).x_search, { model: "grok-4.20-reasoning", timeout_seconds: 180, retries: 2 });
  for (const [bad, message] of [
    [{ timeout_seconds: 0.5 }, /number between 1 and/],
    [{ retries: 11 }, /whole number between 0 and 10/],
    [{ retries: -1 }, /whole number between 0 and 10/],
    [{ model: "" }, /non-empty string/],
  ] as const) {
    const parsed = configSchema.safeParse({ x_search: bad });
    assert.equal(parsed.success, false, JSON.stringify(bad));
    if (!parsed.success) assert.match(parsed.error.issues.map((i) => i.message).join("; "), message);
  }
});

test("a runtime gives the tool x_search.* from config and its own HTTP client", async () => {
  reset(answered("From the runtime.", ["https://x.com/r/status/9"]));
  const saved = { key: process.env.XAI_API_KEY, base: process.env.XAI_BASE_URL };
  process.env.XAI_API_KEY = KEY;
  process.env.XAI_BASE_URL = base;
  const t = await openTestRuntime({
    config: "x_search:\n  model: grok-configured\n  timeout_seconds: 30\n  retries: 0\n",
  });
  try {
    const result = await callTool(t.runtime.registry, "x_search", { query: "q" }, makeContext(t.home));
    assert.equal(result.success, true, JSON.stringify(result));
    assert.deepEqual(result.citations, ["https://x.com/r/status/9"]);
    assert.equal(posts[0]!.body.model, "grok-configured");
  } finally {
    await t.close();
    for (const [name, value] of [
      ["XAI_API_KEY", saved.key],
      ["XAI_BASE_URL", saved.base],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});
