import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { LlmError } from "../../src/llm/errors.js";
import { createTransport } from "../../src/llm/providers.js";
import type { LlmEvent } from "../../src/llm/types.js";
import { findGoogleCredentials } from "../../src/llm/vertex/credentials.js";
import { setVertexDefaults } from "../../src/llm/vertex/defaults.js";
import { GoogleTokenSource } from "../../src/llm/vertex/token-source.js";
import { vertexBaseUrl, vertexEndpoint } from "../../src/llm/vertex/transport.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, RecordedRequest } from "../fake-provider/types.js";
import { type FakeGoogleOAuth, SCOPE, startFakeGoogleOAuth } from "../fakes/google-oauth.js";
import { tempDir } from "../state/temp-dir.js";

let google: FakeGoogleOAuth;
let api: FakeProvider;

before(async () => {
  google = await startFakeGoogleOAuth();
  // The API accepts only the newest token Google handed out, as Vertex accepts only live ones.
  api = await startFakeProvider({
    fallback: (req) =>
      google.isCurrent(bearerOf(req))
        ? { text: `hello from ${req.body.model}` }
        : { fault: { kind: "status", status: 401 } },
  });
});
after(async () => {
  await google.close();
  await api.close();
});

function bearerOf(req: RecordedRequest): string {
  return (req.headers.authorization ?? "").replace(/^Bearer /, "");
}

function credentialsFile(contents: unknown): string {
  const path = join(tempDir("hermes-vertex-"), "key.json");
  writeFileSync(path, JSON.stringify(contents));
  return path;
}

/** `baseUrl` null: none, so the transport computes Vertex's own endpoint. */
async function ask(env: Record<string, string | undefined>, baseUrl: string | null = `${api.url}/v1`) {
  const transport = await createTransport({
    provider: "vertex",
    model: "gemini-2.5-flash",
    env,
    ...(baseUrl ? { baseUrl } : {}),
  });
  let text = "";
  const events: LlmEvent[] = [];
  for await (const event of transport.stream(
    { model: "gemini-2.5-flash", messages: [{ role: "user", content: "hi" }] },
    new AbortController().signal,
  )) {
    events.push(event);
    if (event.type === "text_delta") text += event.text;
  }
  return { text, events, transport };
}

/** An environment with no Google settings but these (HOME points at an empty directory). */
function envWith(extra: Record<string, string>): Record<string, string | undefined> {
  return { HOME: tempDir("hermes-vertex-home-"), GCE_METADATA_HOST: "127.0.0.1:9", ...extra };
}

test("a service-account key signs a JWT for a cloud-platform token; requests carry it, with the Gemini model named by publisher", async () => {
  google.grants.length = 0;
  const env = envWith({ VERTEX_CREDENTIALS_PATH: credentialsFile(google.serviceAccount("proj-1")) });
  const { text } = await ask(env);
  assert.equal(text, "hello from google/gemini-2.5-flash");
  assert.equal(google.grants.length, 1);
  const claims = google.grants[0]!.claims!;
  assert.equal(claims.iss, "hermes-test@example-project.iam.gserviceaccount.com");
  assert.equal(claims.scope, SCOPE);
  assert.equal((claims.exp as number) - (claims.iat as number), 3600);
  assert.equal(bearerOf(api.requests.at(-1)!), google.grants[0]!.token);
});

test("a token is reused while it lives, and replaced once it is within five minutes of expiring", async () => {
  google.grants.length = 0;
  const env = envWith({ GOOGLE_APPLICATION_CREDENTIALS: credentialsFile(google.serviceAccount("proj-1")) });
  const transport = await createTransport({ provider: "vertex", model: "m", env, baseUrl: `${api.url}/v1` });
  const once = async () => {
    for await (const _ of transport.stream(
      { model: "m", messages: [{ role: "user", content: "x" }] },
      new AbortController().signal,
    )) {
      // drain
    }
  };
  await once();
  await once();
  assert.equal(google.grants.length, 1, "one token for both requests");
  google.expiresIn = 120;
  try {
    const short = await createTransport({ provider: "vertex", model: "m", env, baseUrl: `${api.url}/v1` });
    for (let i = 0; i < 2; i++) {
      for await (const _ of short.stream(
        { model: "m", messages: [{ role: "user", content: "x" }] },
        new AbortController().signal,
      )) {
        // drain
      }
    }
    assert.equal(google.grants.length, 3, "a token with two minutes left is never used");
  } finally {
    google.expiresIn = 3600;
  }
});

test("a 401 from Vertex (a token revoked early) is answered with one retry on a new token", async () => {
  google.grants.length = 0;
  const env = envWith({ VERTEX_CREDENTIALS_PATH: credentialsFile(google.serviceAccount("proj-1")) });
  const transport = await createTransport({ provider: "vertex", model: "m", env, baseUrl: `${api.url}/v1` });
  const run = async () => {
    let text = "";
    for await (const event of transport.stream(
      { model: "m", messages: [{ role: "user", content: "x" }] },
      new AbortController().signal,
    )) {
      if (event.type === "text_delta") text += event.text;
    }
    return text;
  };
  assert.equal(await run(), "hello from google/m");
  // Another client minted a newer token: the one this transport holds is no longer accepted.
  google.grants.push({ kind: "jwt-bearer", token: "ya29.someone-elses-newer-token-0000" });
  const before = api.requests.length;
  assert.equal(await run(), "hello from google/m");
  assert.equal(api.requests.length - before, 2, "the refused request and its retry");
});

test("application default credentials (an authorized user) and the metadata server are used when no file is named", async () => {
  google.grants.length = 0;
  const gcloud = tempDir("hermes-gcloud-");
  mkdirSync(gcloud, { recursive: true });
  writeFileSync(
    join(gcloud, "application_default_credentials.json"),
    JSON.stringify({
      type: "authorized_user",
      client_id: "client.apps.googleusercontent.com",
      client_secret: "secret",
      refresh_token: "1//refresh-token-of-the-test-user-0123456789",
      token_uri: `${google.url}/token`,
      quota_project_id: "quota-proj",
    }),
  );
  assert.equal((await ask(envWith({ CLOUDSDK_CONFIG: gcloud }))).text, "hello from google/gemini-2.5-flash");
  assert.equal(google.grants.at(-1)?.kind, "refresh_token");

  assert.equal(
    (await ask(envWith({ GCE_METADATA_HOST: google.host, VERTEX_PROJECT_ID: "p" }))).text,
    "hello from google/gemini-2.5-flash",
  );
  assert.equal(google.grants.at(-1)?.kind, "metadata");
});

test("refused credentials fail at once with what to check, naming the file but never its key", async () => {
  const path = credentialsFile(google.serviceAccount("proj-1"));
  google.refuseWith = "invalid_grant";
  google.grants.length = 0;
  try {
    await assert.rejects(ask(envWith({ VERTEX_CREDENTIALS_PATH: path })), (error) => {
      assert.ok(error instanceof LlmError);
      assert.equal(error.status, 401, "an auth failure: not retried by the agent");
      assert.match(error.message, /refused an access token/);
      assert.ok(error.message.includes(path), error.message);
      assert.match(error.message, /invalid_grant/);
      assert.doesNotMatch(error.message, /PRIVATE KEY/);
      return true;
    });
  } finally {
    google.refuseWith = undefined;
  }
});

test("a missing or malformed credentials file, and a missing project, are reported with the fix", async () => {
  await assert.rejects(
    ask(envWith({ VERTEX_CREDENTIALS_PATH: "/nonexistent/key.json" })),
    /cannot read the Google credentials file \/nonexistent\/key\.json \(VERTEX_CREDENTIALS_PATH\)/,
  );
  await assert.rejects(
    ask(envWith({ VERTEX_CREDENTIALS_PATH: credentialsFile({ type: "external_account" }) })),
    /"external_account"; a service-account key/,
  );
  await assert.rejects(
    ask(envWith({ VERTEX_CREDENTIALS_PATH: credentialsFile(google.serviceAccount()) }), null),
    /no Google Cloud project for Vertex AI .*vertex\.project_id/,
  );
});

test("the endpoint is global or regional, and the project comes from the environment, config.yaml or the key", () => {
  assert.equal(
    vertexBaseUrl("proj", "global"),
    "https://aiplatform.googleapis.com/v1/projects/proj/locations/global/endpoints/openapi",
  );
  assert.equal(
    vertexBaseUrl("proj", "europe-west4"),
    "https://europe-west4-aiplatform.googleapis.com/v1/projects/proj/locations/europe-west4/endpoints/openapi",
  );
});

test("the project and region come from the environment, then config.yaml, then the key; an explicit base URL wins", () => {
  const key = {
    type: "service_account" as const,
    clientEmail: "a@b",
    privateKey: "k",
    tokenUri: "u",
    source: "s",
    projectId: "key-proj",
  };
  const baseOf = (env: Record<string, string>, explicit?: string) => {
    const endpoint = vertexEndpoint(env, key, explicit);
    assert.ok("baseUrl" in endpoint, JSON.stringify(endpoint));
    return endpoint.baseUrl;
  };
  assert.equal(baseOf({}), vertexBaseUrl("key-proj", "global"), "the key's project, the global endpoint");
  setVertexDefaults({ projectId: "config-proj", region: "us-central1" });
  try {
    assert.equal(baseOf({}), vertexBaseUrl("config-proj", "us-central1"));
    assert.equal(
      baseOf({ VERTEX_PROJECT_ID: "env-proj", VERTEX_REGION: "asia-east1" }),
      vertexBaseUrl("env-proj", "asia-east1"),
    );
    assert.equal(baseOf({}, "https://proxy.example/v1"), "https://proxy.example/v1");
  } finally {
    setVertexDefaults({});
  }
  const { projectId: _, ...keyWithoutProject } = key;
  assert.deepEqual(vertexEndpoint({ GOOGLE_CLOUD_PROJECT: "gc-proj" }, keyWithoutProject, undefined), {
    baseUrl: vertexBaseUrl("gc-proj", "global"),
  });
  assert.ok("problem" in vertexEndpoint({}, keyWithoutProject, undefined));
});

test("callers asking at once share one token request; one that gives up does not cancel it for the others", async () => {
  google.grants.length = 0;
  const credentials = findGoogleCredentials(
    envWith({ VERTEX_CREDENTIALS_PATH: credentialsFile(google.serviceAccount("p")) }),
  );
  const tokens = new GoogleTokenSource(credentials, {});
  const impatient = new AbortController();
  const first = tokens.token(impatient.signal);
  const second = tokens.token(new AbortController().signal);
  impatient.abort(new Error("the turn was stopped"));
  await assert.rejects(first, /the turn was stopped/);
  assert.match(await second, /^ya29\./);
  assert.equal(google.grants.length, 1, "one request served both");
});
