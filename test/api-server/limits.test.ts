import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createKeyRing, namespaceFor } from "../../src/api-server/auth.js";
import { assertUsableKeys, keyProblem, resolveApiServerSettings } from "../../src/api-server/settings.js";
import { DEFAULT_CONFIG } from "../../src/state/config-defaults.js";
import { gate, type Harness, KEY, modelRequests, OTHER_KEY, startHarness } from "./harness.js";

const chatBody = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: "hermes-agent", messages: [{ role: "user", content }], ...extra });

const modelCalls = (h: Harness) => modelRequests(h).length;

describe("authentication", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ settings: { keys: [KEY, OTHER_KEY] } });
  });
  after(() => h.close());

  test("the plain health checks need no key; everything else does", async () => {
    assert.equal((await h.request("/health", { key: null })).status, 200);
    assert.equal((await h.request("/v1/health", { key: null })).status, 200);
    for (const path of ["/health/detailed", "/v1/models", "/v1/capabilities", "/v1/toolsets", "/v1/skills"]) {
      assert.equal((await h.request(path, { key: null })).status, 401, path);
      assert.equal((await h.request(path)).status, 200, path);
      assert.equal((await h.request(path, { key: OTHER_KEY })).status, 200, path);
    }
  });

  test("a missing, wrong or malformed key is a 401 in OpenAI's shape", async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer wrong-key-0123456789abcdef" },
      { authorization: `Bearer ${KEY}x` },
      { authorization: KEY },
      { authorization: `Basic ${KEY}` },
    ];
    for (const headers of cases) {
      const response = await h.request("/v1/chat/completions", {
        key: null,
        method: "POST",
        headers,
        body: chatBody("x"),
      });
      assert.equal(response.status, 401);
      const body = (await response.json()) as { error: { type: string; code: string; message: string } };
      assert.equal(body.error.type, "invalid_request_error");
      assert.equal(body.error.code, "invalid_api_key");
    }
    assert.equal(modelCalls(h), 0, "no model call for an unauthenticated request");
  });

  test("keys are checked by digest: every key gets its own namespace, and near misses fail", () => {
    const ring = createKeyRing([KEY, OTHER_KEY]);
    assert.equal(ring.authenticate(`Bearer ${KEY}`), namespaceFor(KEY));
    assert.equal(ring.authenticate(`bearer ${OTHER_KEY}`), namespaceFor(OTHER_KEY));
    assert.notEqual(namespaceFor(KEY), namespaceFor(OTHER_KEY));
    assert.equal(ring.authenticate(`Bearer ${KEY.slice(0, -1)}`), undefined);
    assert.equal(ring.authenticate("Bearer "), undefined);
    assert.equal(ring.authenticate(undefined), undefined);
  });
});

describe("start-up settings", () => {
  test("the server refuses to start without a real key, and says how to make one", () => {
    const settings = (env: Record<string, string>) => resolveApiServerSettings(DEFAULT_CONFIG, env);
    assert.throws(() => assertUsableKeys(settings({})), /needs API_SERVER_KEY.*openssl rand/);
    assert.throws(() => assertUsableKeys(settings({ API_SERVER_KEY: "short" })), /shorter than 16/);
    assert.throws(() => assertUsableKeys(settings({ API_SERVER_KEY: "changeme-changeme-123" })), /placeholder/);
    assert.throws(() => assertUsableKeys(settings({ API_SERVER_KEY: "aaaaaaaaaaaaaaaaaaaa" })), /too few characters/);
    assert.throws(() => assertUsableKeys(settings({ API_SERVER_KEY: `${KEY},tiny` })), /key 2 of API_SERVER_KEY/);
    assert.doesNotThrow(() => assertUsableKeys(settings({ API_SERVER_KEY: KEY })));
    assert.equal(keyProblem(OTHER_KEY), undefined);
  });

  test("environment variables win over gateway.api_server in config.yaml", () => {
    const config = structuredClone(DEFAULT_CONFIG);
    config.gateway.api_server = { ...config.gateway.api_server, port: 9000, model_name: "from-config", key: OTHER_KEY };
    const fromConfig = resolveApiServerSettings(config, {});
    assert.deepEqual([fromConfig.port, fromConfig.modelName, fromConfig.keys], [9000, "from-config", [OTHER_KEY]]);
    const fromEnv = resolveApiServerSettings(config, {
      API_SERVER_PORT: "8650",
      API_SERVER_MODEL_NAME: "from-env",
      API_SERVER_KEY: KEY,
      API_SERVER_ENABLED: "true",
      API_SERVER_CORS_ORIGINS: "http://a.test, http://b.test",
    });
    assert.deepEqual(
      [fromEnv.port, fromEnv.modelName, fromEnv.keys, fromEnv.enabled, fromEnv.corsOrigins],
      [8650, "from-env", [KEY], true, ["http://a.test", "http://b.test"]],
    );
    assert.equal(fromConfig.host, "127.0.0.1");
    assert.throws(() => resolveApiServerSettings(config, { API_SERVER_PORT: "http" }), /API_SERVER_PORT/);
  });
});

describe("CORS", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ settings: { corsOrigins: ["http://ui.test"] } });
  });
  after(() => h.close());

  test("a listed origin gets a preflight answer and exposed session headers; others get none", async () => {
    const preflight = await h.request("/v1/chat/completions", {
      key: null,
      method: "OPTIONS",
      headers: {
        origin: "http://ui.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,x-hermes-session-id",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "http://ui.test");
    assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /X-Hermes-Session-Id/i);

    const models = await h.request("/v1/models", { headers: { origin: "http://ui.test" } });
    assert.equal(models.headers.get("access-control-allow-origin"), "http://ui.test");
    assert.match(models.headers.get("access-control-expose-headers") ?? "", /X-Hermes-Session-Id/);

    const stranger = await h.request("/v1/models", { headers: { origin: "http://evil.test" } });
    assert.equal(stranger.headers.get("access-control-allow-origin"), null);
  });
});

describe("limits", () => {
  test("a body over the cap is a 413, and malformed JSON a 400, before any model call", async () => {
    const h = await startHarness({ settings: { maxBodyBytes: 2048 } });
    try {
      const big = await h.request("/v1/chat/completions", { method: "POST", body: chatBody("x".repeat(4096)) });
      assert.equal(big.status, 413);
      assert.equal(((await big.json()) as { error: { code: string } }).error.code, "request_too_large");
      // Without a declared length the body is cut off at the cap as it streams in.
      const chunked = await h.request("/v1/chat/completions", {
        method: "POST",
        body: new Blob([chatBody("y".repeat(4096))]).stream(),
        duplex: "half",
      } as RequestInit);
      assert.equal(chunked.status, 413);
      const broken = await h.request("/v1/chat/completions", { method: "POST", body: "{not json" });
      assert.equal(broken.status, 400);
      assert.match(((await broken.json()) as { error: { message: string } }).error.message, /not valid JSON/);
      assert.equal(modelCalls(h), 0);
    } finally {
      await h.close();
    }
  });

  test("runs beyond max_concurrent_runs get a 429 with retry-after, and a slot frees when a run ends", async () => {
    const slow = gate();
    const h = await startHarness({ settings: { maxConcurrentRuns: 1 }, provider: { script: [slow.step] } });
    try {
      const first = h.request("/v1/chat/completions", { method: "POST", body: chatBody("one") });
      await slow.arrived;
      const second = await h.request("/v1/chat/completions", { method: "POST", body: chatBody("two") });
      assert.equal(second.status, 429);
      assert.equal(second.headers.get("retry-after"), "1");
      const error = ((await second.json()) as { error: { type: string; code: string } }).error;
      assert.deepEqual([error.type, error.code], ["requests", "rate_limit_exceeded"]);
      slow.release();
      assert.equal((await first).status, 200);
      assert.equal((await h.request("/v1/chat/completions", { method: "POST", body: chatBody("three") })).status, 200);
    } finally {
      await h.close();
    }
  });

  test("a client that disconnects mid-stream interrupts its run and keeps what was completed", async () => {
    const h = await startHarness({
      provider: {
        script: [
          { toolCalls: [{ name: "todo", arguments: { todos: [{ id: "1", content: "step", status: "pending" }] } }] },
          { text: "partial answer that never ends", chunkDelayMs: 200 },
        ],
      },
    });
    try {
      const controller = new AbortController();
      const response = await h.request("/v1/chat/completions", {
        method: "POST",
        body: chatBody("long job", { stream: true }),
        signal: controller.signal,
      });
      const sessionId = response.headers.get("x-hermes-session-id")!;
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let seen = "";
      while (!seen.includes("partial")) {
        const { value, done } = await reader.read();
        assert.ok(!done, "the stream ended before the second reply began");
        seen += decoder.decode(value);
      }
      controller.abort();
      // The interrupted turn releases its slot; the store keeps every completed message.
      await eventually(async () => (await detailed(h)).runs.active === 0, "the run to end");
      const stored = await h.runtime.store.getMessages(sessionId);
      assert.deepEqual(
        stored.map((m) => m.role),
        ["user", "assistant", "tool"],
      );
    } finally {
      await h.close();
    }
  });
});

/** Polls an async condition (bounded): for effects that happen in the server after a socket closes. */
async function eventually(condition: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function detailed(h: Harness): Promise<{ runs: { active: number } }> {
  return (await (await h.request("/health/detailed")).json()) as { runs: { active: number } };
}
