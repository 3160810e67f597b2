import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  assertMinimumContext,
  ContextTooSmallError,
  contextWindowFor,
  isOllamaBaseUrl,
  ollamaContextBody,
  probeContextLength,
} from "../../src/llm/context-windows.js";
import { startFakeProvider } from "../fake-provider/server.js";
import { startServer } from "./transport-helpers.js";

describe("context window table", () => {
  test("knows common model families, ignoring vendor prefixes, dates and tags", () => {
    assert.equal(contextWindowFor("anthropic/claude-sonnet-4.5"), 200_000);
    assert.equal(contextWindowFor("claude-opus-4-6-20260101"), 200_000);
    assert.equal(contextWindowFor("gpt-4.1-mini"), 1_047_576);
    assert.equal(contextWindowFor("openai/gpt-4o"), 128_000);
    assert.equal(contextWindowFor("gpt-5.1-codex"), 400_000);
    assert.equal(contextWindowFor("google/gemini-2.5-pro"), 1_048_576);
    assert.equal(contextWindowFor("deepseek-chat"), 128_000);
    assert.equal(contextWindowFor("qwen3-coder-480b"), 262_144);
    assert.equal(contextWindowFor("llama3.1:8b"), 131_072);
    assert.equal(contextWindowFor("moonshotai/kimi-k2-0905"), 262_144);
    assert.equal(contextWindowFor("z-ai/glm-4.6"), 204_800);
    assert.equal(contextWindowFor("totally-unknown"), undefined);
  });
});

describe("probeContextLength", () => {
  test("reads context_length from /v1/models", async () => {
    const fake = await startFakeProvider({ models: [{ id: "local-model", contextLength: 32_768 }] });
    try {
      assert.equal(await probeContextLength({ baseUrl: `${fake.url}/v1`, model: "local-model" }), 32_768);
    } finally {
      await fake.close();
    }
  });

  test("reads vLLM's max_model_len", async () => {
    const server = await startServer((req, res) => {
      res.writeHead(req.url === "/v1/models" ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: [{ id: "Qwen/Qwen3-8B", max_model_len: 40_960 }] }));
    });
    try {
      assert.equal(await probeContextLength({ baseUrl: `${server.url}/v1`, model: "Qwen/Qwen3-8B" }), 40_960);
    } finally {
      await server.close();
    }
  });

  test("falls back to Ollama's /api/show model_info", async () => {
    let showBody = "";
    const server = await startServer((req, res, body) => {
      if (req.url === "/api/show") {
        showBody = body;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ model_info: { "general.architecture": "qwen3", "qwen3.context_length": 40_960 } }));
      } else {
        res.writeHead(404).end();
      }
    });
    try {
      assert.equal(await probeContextLength({ baseUrl: `${server.url}/v1`, model: "qwen3:8b" }), 40_960);
      assert.deepEqual(JSON.parse(showBody), { model: "qwen3:8b" });
    } finally {
      await server.close();
    }
  });

  test("falls back to LM Studio's /api/v0/models", async () => {
    const server = await startServer((req, res) => {
      if (req.url === "/api/v0/models") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ data: [{ id: "qwen2.5-7b-instruct", max_context_length: 32_768 }] }));
      } else {
        res.writeHead(404).end();
      }
    });
    try {
      assert.equal(await probeContextLength({ baseUrl: `${server.url}/v1`, model: "qwen2.5-7b-instruct" }), 32_768);
    } finally {
      await server.close();
    }
  });

  test("asks Ollama and LM Studio together: a server that answers only when both have asked still answers", async () => {
    const waiting: Array<() => void> = [];
    const server = await startServer((req, res) => {
      if (req.url === "/v1/models") {
        res.writeHead(404).end();
        return;
      }
      waiting.push(() => {
        if (req.url === "/api/v0/models") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ data: [{ id: "m", loaded_context_length: 65_536 }] }));
        } else {
          res.writeHead(404).end();
        }
      });
      if (waiting.length === 2) for (const answer of waiting) answer();
    });
    try {
      assert.equal(await probeContextLength({ baseUrl: `${server.url}/v1`, model: "m", timeoutMs: 5_000 }), 65_536);
    } finally {
      await server.close();
    }
  });

  test("cancels LM Studio's request once Ollama has answered", async () => {
    let cancel: (url: string) => void = () => {};
    const cancelled = new Promise<string>((resolve) => {
      cancel = resolve;
    });
    let lmStudioWaiting: () => void = () => {};
    const lmStudioAsked = new Promise<void>((resolve) => {
      lmStudioWaiting = resolve;
    });
    const server = await startServer((req, res) => {
      if (req.url === "/v1/models") {
        res.writeHead(404).end();
      } else if (req.url === "/api/show") {
        // Answer only once LM Studio's request is waiting, so the cancellation has something to cancel.
        void lmStudioAsked.then(() => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ model_info: { "qwen3.context_length": 131_072 } }));
        });
      } else {
        res.on("close", () => cancel(req.url ?? ""));
        lmStudioWaiting();
      }
    });
    try {
      assert.equal(await probeContextLength({ baseUrl: `${server.url}/v1`, model: "m", timeoutMs: 60_000 }), 131_072);
      let guard: NodeJS.Timeout | undefined;
      const tooLong = new Promise<never>((_, reject) => {
        guard = setTimeout(() => reject(new Error("LM Studio's request is still open after 10 s")), 10_000);
      });
      assert.equal(await Promise.race([cancelled, tooLong]).finally(() => clearTimeout(guard)), "/api/v0/models");
    } finally {
      await server.close();
    }
  });

  test("resolves undefined when nothing answers", async () => {
    const server = await startServer((_req, res) => res.writeHead(404).end());
    try {
      assert.equal(await probeContextLength({ baseUrl: server.url, model: "m" }), undefined);
    } finally {
      await server.close();
    }
  });
});

describe("ollama num_ctx and the minimum window", () => {
  test("sends options.num_ctx only to Ollama servers", () => {
    assert.ok(isOllamaBaseUrl("http://localhost:11434/v1"));
    assert.ok(isOllamaBaseUrl("http://ollama.internal:8080/v1"));
    assert.ok(!isOllamaBaseUrl("https://ollama.com/v1"));
    assert.deepEqual(ollamaContextBody("http://127.0.0.1:11434/v1", 65_536), { options: { num_ctx: 65_536 } });
    assert.equal(ollamaContextBody("http://localhost:1234/v1", 65_536), undefined);
  });

  test("rejects windows below 64k with an explanation, unless overridden", () => {
    assert.throws(
      () => assertMinimumContext(32_768, { model: "tiny" }),
      (e: unknown) => e instanceof ContextTooSmallError && /32,768/.test(e.message) && /64,000/.test(e.message),
    );
    assert.doesNotThrow(() => assertMinimumContext(64_000));
    assert.doesNotThrow(() => assertMinimumContext(32_768, { minimum: 16_000 }));
    assert.doesNotThrow(() => assertMinimumContext(8_192, { allowBelowMinimum: true }));
  });
});
