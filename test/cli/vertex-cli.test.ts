/** `hermes chat -q` on Google Vertex AI: no API key, a token minted from Google credentials. */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { type FakeGoogleOAuth, startFakeGoogleOAuth } from "../fakes/google-oauth.js";
import { runNode } from "../helpers/run-node.js";

let google: FakeGoogleOAuth;
let api: FakeProvider;
before(async () => {
  google = await startFakeGoogleOAuth();
  api = await startFakeProvider({ fallback: (req) => ({ text: `vertex answered for ${req.body.model}` }) });
});
after(async () => {
  await google.close();
  await api.close();
});

function env(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: home, HOME: home, GCE_METADATA_HOST: "127.0.0.1:9" };
  for (const name of [
    "VERTEX_CREDENTIALS_PATH",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "VERTEX_PROJECT_ID",
    "CLOUDSDK_CONFIG",
  ]) {
    delete base[name];
  }
  return { ...base, ...extra };
}

test("hermes chat -q --provider vertex answers with a service-account key and no API key", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-vertex-cli-"));
  const key = join(home, "key.json");
  writeFileSync(key, JSON.stringify(google.serviceAccount("proj-cli")));
  const run = await runNode(
    [
      "dist/cli/main.js",
      "chat",
      "-q",
      "hi",
      "--provider",
      "vertex",
      "--base-url",
      `${api.url}/v1`,
      "--model",
      "gemini-2.5-flash",
    ],
    { env: env(home, { VERTEX_CREDENTIALS_PATH: key }) },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /vertex answered for google\/gemini-2\.5-flash/);
  assert.match(api.requests.at(-1)?.headers.authorization ?? "", /^Bearer ya29\./);
});

test("with no Google credentials anywhere the run stops at once, saying where credentials would come from", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-vertex-cli-"));
  writeFileSync(join(home, "config.yaml"), "vertex:\n  project_id: my-proj\n  region: europe-west4\n");
  const started = Date.now();
  const run = await runNode(
    ["dist/cli/main.js", "chat", "-q", "hi", "--provider", "vertex", "--model", "gemini-2.5-flash"],
    {
      env: env(home, {}),
    },
  );
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /no Google credentials found: set VERTEX_CREDENTIALS_PATH/);
  assert.ok(Date.now() - started < 15_000, "not retried with backoff: it cannot succeed");
});

test("hermes doctor names the Google credentials it found and checks that Google issues a token for them", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-vertex-cli-"));
  const key = join(home, "key.json");
  writeFileSync(key, JSON.stringify(google.serviceAccount("proj-doc")));
  writeFileSync(join(home, "config.yaml"), "model:\n  provider: vertex\n  default: gemini-2.5-flash\n");
  const run = await runNode(["dist/cli/main.js", "doctor"], { env: env(home, { VERTEX_CREDENTIALS_PATH: key }) });
  assert.match(
    run.stdout,
    new RegExp(`✓ credentials service account from ${key.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`),
  );
  assert.match(run.stdout, /✓ reachable +Google issued an access token/);
  assert.doesNotMatch(run.stdout, /api key/, "Vertex has no API key to ask for");
});
