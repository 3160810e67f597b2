import assert from "node:assert/strict";
import { test } from "node:test";
import { CredentialPool } from "../../src/llm/credential-pool.js";
import { type CredentialRecord, newApiKeyRecord } from "../../src/util/credential-record.js";
import { startFakeProvider } from "../fake-provider/server.js";
import { createHarness } from "../helpers/agent-harness.js";

function record(id: string, key: string, priority: number): CredentialRecord {
  return newApiKeyRecord({ id, label: id, priority, source: "manual", accessToken: key });
}

test("retries a 429 with backoff, announces the wait, then succeeds", async () => {
  const h = await createHarness({
    script: [{ fault: { kind: "status", status: 429, message: "Rate limit reached" } }, { text: "made it" }],
  });
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "made it");
    assert.equal(h.fake.requests.length, 2);
    const status = h.events.find((e) => e.type === "status" && e.kind === "retry");
    assert.match(status && "message" in status ? status.message : "", /rate limited, retrying in \d+ s/);
  } finally {
    await h.close();
  }
});

test("gives up after the retry limit with an actionable message", async () => {
  const fault = { fault: { kind: "status" as const, status: 503, message: "Service unavailable" } };
  const h = await createHarness(
    { script: [fault, fault, fault, fault, fault] },
    { retry: { maxRetries: 2, baseMs: 1, capMs: 2 } },
  );
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(h.fake.requests.length, 3);
    assert.equal(result.completed, false);
    assert.match(result.error ?? "", /custom\/test-model/);
    assert.deepEqual(
      result.messages.map((m) => m.role),
      ["user"],
    );
  } finally {
    await h.close();
  }
});

test("a 500 four times moves to the fallback provider, and the primary is tried again next turn", async () => {
  const backup = await startFakeProvider({ script: [{ text: "from the fallback" }] });
  const fault = { fault: { kind: "status" as const, status: 500, message: "Internal server error" } };
  const h = await createHarness(
    { script: [fault, fault, fault, fault, { text: "primary is back" }] },
    { fallbackProviders: [{ provider: "custom", model: "backup-model", baseUrl: `${backup.url}/v1`, apiKey: "b" }] },
  );
  try {
    const first = await h.agent.runConversation("go");
    assert.equal(first.finalResponse, "from the fallback");
    assert.equal(first.model, "backup-model");
    assert.ok(h.events.some((e) => e.type === "status" && e.kind === "fallback"));
    const second = await h.agent.runConversation("again");
    assert.equal(second.finalResponse, "primary is back");
    assert.equal(second.model, "test-model");
  } finally {
    await h.close();
    await backup.close();
  }
});

test("a 429 with two keys rotates to the second key", async () => {
  const pool = new CredentialPool({
    provider: "custom",
    entries: [record("k1", "key-one", 0), record("k2", "key-two", 1)],
  });
  const h = await createHarness(
    {
      script: [
        { fault: { kind: "status", status: 429, message: "Rate limit reached for key" } },
        { text: "second key works" },
      ],
    },
    { credentialPool: pool, apiKey: undefined },
  );
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "second key works");
    assert.equal(h.fake.requests[0]!.headers.authorization, "Bearer key-one");
    assert.equal(h.fake.requests[1]!.headers.authorization, "Bearer key-two");
    assert.equal(pool.entries().find((e) => e.id === "k1")?.lastStatus, "exhausted");
  } finally {
    await h.close();
  }
});

test("a 401 with a terminal reason marks the key dead and uses the next one", async () => {
  const pool = new CredentialPool({
    provider: "custom",
    entries: [record("k1", "key-one", 0), record("k2", "key-two", 1)],
  });
  const h = await createHarness(
    {
      script: [
        {
          fault: {
            kind: "status",
            status: 401,
            body: {
              error: {
                message: "Your token was invalidated",
                type: "invalid_request_error",
                code: "token_invalidated",
              },
            },
          },
        },
        { text: "ok with key two" },
      ],
    },
    { credentialPool: pool, apiKey: undefined },
  );
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "ok with key two");
    assert.equal(pool.entries().find((e) => e.id === "k1")?.lastStatus, "dead");
  } finally {
    await h.close();
  }
});

test("a fallback's 429 never marks the primary's keys", async () => {
  const pool = new CredentialPool({ provider: "custom", entries: [record("p1", "primary-key", 0)] });
  const backup = await startFakeProvider({
    script: [{ fault: { kind: "status", status: 429, message: "Rate limit reached" } }, { text: "backup ok" }],
  });
  const h = await createHarness(
    { script: [{ fault: { kind: "status", status: 402, message: "Insufficient credits" } }] },
    {
      credentialPool: pool,
      apiKey: undefined,
      fallbackProviders: [{ provider: "custom", model: "b", baseUrl: `${backup.url}/v1`, apiKey: "b" }],
    },
  );
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "backup ok");
    const primary = pool.entries()[0]!;
    assert.notEqual(primary.lastErrorCode, 429);
  } finally {
    await h.close();
    await backup.close();
  }
});

test("a disconnect mid-stream is retried without delivering the same text twice", async () => {
  const h = await createHarness({
    script: [
      { text: "The quick brown fox jumps over the lazy dog.", fault: { kind: "disconnect", afterChunks: 3 } },
      { text: "The quick brown fox jumps over the lazy dog." },
    ],
  });
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "The quick brown fox jumps over the lazy dog.");
    const streamed = h.events
      .filter((e) => e.type === "text_delta")
      .map((e) => ("text" in e ? e.text : ""))
      .join("");
    assert.equal(streamed, "The quick brown fox jumps over the lazy dog.");
  } finally {
    await h.close();
  }
});

test("a refused connection is retried once, then the user is told nothing is listening", async () => {
  const { createServer } = await import("node:net");
  const closedPort = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
  const h = await createHarness(
    {},
    { baseUrl: `http://127.0.0.1:${closedPort}/v1`, retry: { maxRetries: 3, baseMs: 5, capMs: 10 } },
  );
  try {
    const result = await h.agent.runConversation("hello?");
    assert.equal(result.completed, false);
    assert.match(result.error ?? "", /nothing is listening/);
    const retries = h.events.filter((e) => e.type === "status" && e.kind === "retry");
    assert.equal(retries.length, 1);
    assert.match(retries[0] && "message" in retries[0] ? retries[0].message : "", /^connection refused, retrying/);
  } finally {
    await h.close();
  }
});
