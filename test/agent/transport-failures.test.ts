/**
 * Failures that retrying cannot fix end at once with their own words; the ones that can are
 * retried. Each case is a real server (or none) on loopback, or an unresolvable host name.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { createHarness } from "../helpers/agent-harness.js";

const FAST_RETRIES = { maxRetries: 3, baseMs: 5, capMs: 10 };

async function serve(
  handler: Parameters<typeof createServer>[1],
): Promise<{ url: string; hits: () => number; server: Server }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    handler?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits: () => hits, server };
}

const retriesOf = (events: Array<{ type: string; kind?: string }>) =>
  events.filter((e) => e.type === "status" && e.kind === "retry").length;

test("a 404 from the endpoint is not retried and names the URL tried and the /v1 hint", async () => {
  const site = await serve((_req, res) => {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("Not Found");
  });
  const h = await createHarness({}, { baseUrl: site.url, retry: FAST_RETRIES });
  try {
    const result = await h.agent.runConversation("hello?");
    assert.equal(result.completed, false);
    assert.match(result.error ?? "", new RegExp(`${site.url}/chat/completions answered 404 Not Found`));
    assert.match(result.error ?? "", /usually need it to end in \/v1/);
    assert.equal(site.hits(), 1);
    assert.equal(retriesOf(h.events), 0);
  } finally {
    await h.close();
    site.server.close();
  }
});

test("a 404 that names the model is a model problem, not a URL problem", async () => {
  const h = await createHarness(
    { script: [{ fault: { kind: "status", status: 404, message: "The model `nope` does not exist" } }] },
    { retry: FAST_RETRIES },
  );
  try {
    const result = await h.agent.runConversation("hello?");
    assert.equal(result.completed, false);
    assert.doesNotMatch(result.error ?? "", /end in \/v1/);
    assert.match(result.error ?? "", /does not know this model/);
  } finally {
    await h.close();
  }
});

test("a host name that does not resolve is named as a DNS failure and not retried", async () => {
  const h = await createHarness({}, { baseUrl: "http://no-such-model-host.invalid/v1", retry: FAST_RETRIES });
  try {
    const result = await h.agent.runConversation("hello?");
    assert.equal(result.completed, false);
    assert.match(result.error ?? "", /no-such-model-host\.invalid could not be resolved \(DNS lookup failed\)/);
    assert.doesNotMatch(result.error ?? "", /timeout|stopped answering/);
    assert.equal(retriesOf(h.events), 0);
  } finally {
    await h.close();
  }
});

test("an HTML page with status 200 is called a web page, not the API, and not retried", async () => {
  const page = await serve((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><html><body>Please sign in</body></html>");
  });
  const h = await createHarness({}, { baseUrl: `${page.url}/v1`, retry: FAST_RETRIES });
  try {
    const result = await h.agent.runConversation("hello?");
    assert.equal(result.completed, false);
    assert.match(result.error ?? "", /answered with a web page \(HTTP 200, text\/html\), not the model API/);
    assert.equal(page.hits(), 1);
  } finally {
    await h.close();
    page.server.close();
  }
});

test("a server that accepts and never answers hits the first-byte timeout, is announced, and is retried", async () => {
  const silent = await serve(() => {
    // Never answers.
  });
  const h = await createHarness(
    {},
    { baseUrl: `${silent.url}/v1`, retry: { maxRetries: 1, baseMs: 5, capMs: 10 }, firstByteTimeoutMs: 300 },
  );
  try {
    const result = await h.agent.runConversation("hello?");
    assert.equal(result.completed, false);
    assert.match(
      result.error ?? "",
      /accepted the connection but sent nothing back in time \(No response from 127\.0\.0\.1:\d+ within 300 ms\.\)/,
    );
    assert.equal(silent.hits(), 2, "one retry");
    const waiting = h.events.find((e) => e.type === "status" && e.kind === "waiting");
    assert.match(
      waiting && "message" in waiting ? waiting.message : "",
      /waiting for custom\/test-model to start answering \(nothing after 100 ms; giving up after 300 ms\)/,
    );
  } finally {
    await h.close();
    silent.server.closeAllConnections();
    silent.server.close();
  }
});

test("a reply cut off mid-stream is retried and, when it keeps happening, named as a dropped connection", async () => {
  const cut = {
    text: "The quick brown fox jumps over the lazy dog.",
    fault: { kind: "disconnect" as const, afterChunks: 2 },
  };
  const h = await createHarness({ script: [cut, cut] }, { retry: { maxRetries: 1, baseMs: 5, capMs: 10 } });
  try {
    const result = await h.agent.runConversation("hello?");
    assert.equal(result.completed, false);
    assert.equal(h.fake.requests.length, 2);
    assert.match(result.error ?? "", /dropped in the middle of the reply/);
  } finally {
    await h.close();
  }
});

test("a retry-after of one second is waited for exactly once per 429, not stretched to the backoff", async () => {
  const arrivals: number[] = [];
  const limited = () => {
    arrivals.push(Date.now());
    return { fault: { kind: "status" as const, status: 429, message: "slow down", headers: { "retry-after": "1" } } };
  };
  const h = await createHarness(
    {
      script: [
        limited,
        limited,
        () => {
          arrivals.push(Date.now());
          return { text: "done" };
        },
      ],
    },
    { retry: { maxRetries: 3, baseMs: 5000, capMs: 120_000 } },
  );
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "done");
    assert.equal(arrivals.length, 3);
    for (const gap of [arrivals[1]! - arrivals[0]!, arrivals[2]! - arrivals[1]!]) {
      // The default backoff starts at 5 s; the server asked for 1 s.
      assert.ok(gap >= 950 && gap < 2500, `waited ${gap} ms`);
    }
  } finally {
    await h.close();
  }
});

test("a rate limit that lifts only in an hour is not waited out, and says when it lifts", async () => {
  const h = await createHarness(
    {
      script: [
        { fault: { kind: "status", status: 429, message: "free-models-per-day", headers: { "retry-after": "3600" } } },
      ],
    },
    { retry: { maxRetries: 3, baseMs: 5000, capMs: 120_000 } },
  );
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.completed, false);
    assert.equal(h.fake.requests.length, 1);
    assert.match(result.error ?? "", /says the limit lifts in 60 min/);
  } finally {
    await h.close();
  }
});

test("a reply larger than the cap is cut with a note before it reaches the history", async () => {
  const huge = "é".repeat(3000);
  const h = await createHarness({ script: [{ text: huge }] }, { maxReplyBytes: 1024 });
  try {
    const result = await h.agent.runConversation("go");
    const stored = String(result.messages.at(-1)?.content);
    assert.match(stored, /\n\n\[reply cut at 1 KB: the model sent 6 KB\]$/);
    const kept = stored.slice(0, stored.indexOf("\n\n["));
    assert.equal(kept, "é".repeat(512), "cut on a character boundary at 1024 bytes");
    assert.equal(result.finalResponse, stored);
  } finally {
    await h.close();
  }
});
