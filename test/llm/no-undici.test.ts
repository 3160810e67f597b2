import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
const PROVIDERS = join(ROOT, "dist", "llm", "providers.js");
const ERRORS = join(ROOT, "dist", "llm", "errors.js");

interface ChildReport {
  text: string;
  /** The classified failure, when the stream failed. */
  reason?: string;
  undici: string[];
  trace: string;
}

type Mode = "reply" | "touch-fetch-globals";

/**
 * Streams one chat-completions reply in a fresh process built from `dist/` and reports which
 * node-internal modules it loaded. The import-trace hook only sees modules that go through
 * resolution (ours, packages, `node:` builtins), never node's internals such as the bundled
 * undici, so the child prints `process.moduleLoadList` for those.
 */
async function streamInChild(baseUrl: string, mode: Mode): Promise<ChildReport> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-no-undici-"));
  const traceFile = join(dir, "imports.txt");
  const script = `
    import { createTransport } from ${JSON.stringify(PROVIDERS)};
    import { classifyApiError } from ${JSON.stringify(ERRORS)};
    const transport = await createTransport({ provider: "custom", apiMode: "chat_completions", baseUrl: ${JSON.stringify(baseUrl)}, apiKey: "k", model: "m" });
    let text = "";
    let reason;
    const request = { model: "m", messages: [{ role: "user", content: "hi" }] };
    try {
      for await (const event of transport.stream(request, new AbortController().signal)) {
        if (event.type === "text_delta") text += event.text;
      }
    } catch (error) {
      reason = classifyApiError(error).reason;
    }
    if (${JSON.stringify(mode)} === "touch-fetch-globals") void globalThis.Response;
    const undici = process.moduleLoadList.filter((name) => name.includes("undici"));
    console.log(JSON.stringify({ text, reason, undici }));
  `;
  try {
    const child = spawn(
      process.execPath,
      ["--import", join(ROOT, "test", "helpers", "import-trace.mjs"), "--input-type=module", "-e", script],
      { cwd: ROOT, env: { ...process.env, IMPORT_TRACE_FILE: traceFile }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (part: Buffer) => {
      stdout += part.toString();
    });
    child.stderr.on("data", (part: Buffer) => {
      stderr += part.toString();
    });
    const [code] = await once(child, "exit");
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Omit<ChildReport, "trace">;
    return { ...report, trace: readFileSync(traceFile, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the one-shot transport path", () => {
  let fake: FakeProvider;
  before(async () => {
    fake = await startFakeProvider({ fallback: { text: "hello there" } });
  });
  after(() => fake.close());

  test("streams a chat-completions reply without loading undici", async () => {
    fake.setScript([{ text: "hello there" }]);
    const report = await streamInChild(`${fake.url}/v1`, "reply");
    assert.equal(report.text, "hello there");
    assert.match(report.trace, /dist\/llm\/transports\/chat-completions\.js/);
    assert.doesNotMatch(report.trace, /undici/);
    assert.deepEqual(report.undici, []);
  });

  test("an error response is read and classified without loading undici", async () => {
    fake.setScript([{ fault: { kind: "status", status: 429, message: "slow down", headers: { "retry-after": "7" } } }]);
    const report = await streamInChild(`${fake.url}/v1`, "reply");
    assert.equal(report.reason, "rate_limit");
    assert.deepEqual(report.undici, []);
  });

  test("the check sees undici once a fetch global is touched", async () => {
    fake.setScript([{ text: "hello there" }]);
    const report = await streamInChild(`${fake.url}/v1`, "touch-fetch-globals");
    assert.ok(
      report.undici.some((name) => name.includes("internal/deps/undici")),
      report.undici.join(", "),
    );
  });
});
