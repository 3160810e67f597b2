import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { PROVIDERS } from "../../src/llm/providers.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { lastToolResults } from "../helpers/agent-harness.js";
import { type NodeRun, runNode } from "../helpers/run-node.js";
import { createFakeBws, type FakeBws } from "../runtime/fake-bws.js";
import { tempDir } from "../state/temp-dir.js";

const TOKEN = "0.7d3c2b1a-0f9e-4d8c-8b7a-6f5e4d3c2b1a.cliT0kenSecretPart:QmFzZTY0S2V5PT0=";
const PROVIDER_KEY = "sk-bitwarden-provider-key-0123456789";
const GREETING = "vault-greeting-1";

let fake: FakeProvider;
let bws: FakeBws;

before(async () => {
  fake = await startFakeProvider({});
  bws = createFakeBws({
    token: TOKEN,
    secrets: [
      { key: "OPENAI_API_KEY", value: PROVIDER_KEY },
      { key: "DEPLOY_GREETING", value: GREETING },
    ],
  });
});
after(async () => {
  await fake.close();
});

/** `hermes chat -q` from the source entry, the token in $HERMES_HOME/.env and the fake bws first on PATH. */
function hermesChat(config: string, extraArgs: string[]): Promise<NodeRun> {
  const home = tempDir("hermes-bws-cli-");
  writeFileSync(join(home, "config.yaml"), config);
  writeFileSync(join(home, ".env"), `BWS_ACCESS_TOKEN=${TOKEN}\n`, { mode: 0o600 });
  const env: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: home, PATH: bws.path };
  for (const spec of PROVIDERS) for (const name of spec.keyEnvVars) delete env[name];
  delete env.BWS_ACCESS_TOKEN;
  const args = ["chat", "-q", "check the environment", "--provider", "custom", "--base-url", `${fake.url}/v1`];
  return runNode(["--import", "tsx", "src/cli/main.ts", ...args, "--model", "m", "--yolo", ...extraArgs], { env });
}

test("hermes chat -q: the provider gets its key from Bitwarden and a command sees a secret, not the token", async () => {
  fake.setScript([
    {
      toolCalls: [
        {
          name: "terminal",
          arguments: {
            command: `[ "$DEPLOY_GREETING" = ${GREETING} ] && echo greeting-seen; [ -z "$BWS_ACCESS_TOKEN" ] && echo token-withheld; echo "$DEPLOY_GREETING"`,
          },
        },
      ],
    },
    { text: "done" },
  ]);
  const before = fake.requests.length;
  const run = await hermesChat("secrets:\n  bitwarden:\n    enabled: true\n", []);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "done\n");
  const requests = fake.requests.slice(before).filter((r) => r.path.endsWith("/chat/completions"));
  assert.equal(requests.length, 2);
  assert.equal(requests[0]!.headers.authorization, `Bearer ${PROVIDER_KEY}`);
  const output = JSON.parse(lastToolResults(requests[1]!)[0]!).output as string;
  assert.match(output, /greeting-seen\ntoken-withheld\n/);
  assert.ok(!output.includes(GREETING), `the secret's value is masked in what the model reads: ${output}`);
  assert.equal(bws.calls().length, 1);
  assert.ok(!run.stderr.includes(TOKEN) && !run.stderr.includes(PROVIDER_KEY));
});

test("hermes chat -q with secrets.bitwarden off never runs bws", async () => {
  fake.setScript([{ text: "plain" }]);
  const calls = bws.calls().length;
  const run = await hermesChat("model:\n  default: m\n", ["--api-key", "k"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "plain\n");
  assert.equal(bws.calls().length, calls);
});

test("hermes gateway run: the API server's key comes from Bitwarden, fetched once for the whole start", async () => {
  const serverKey = "api-server-key-from-bitwarden-42";
  const gatewayBws = createFakeBws({ token: TOKEN, secrets: [{ key: "API_SERVER_KEY", value: serverKey }] });
  fake.setScript([{ text: "from the gateway" }]);
  const home = tempDir("hermes-bws-gateway-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: ${fake.url}/v1\n` +
      "secrets:\n  bitwarden:\n    enabled: true\n    cache_ttl_seconds: 0\n",
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HERMES_HOME: home,
    PATH: gatewayBws.path,
    BWS_ACCESS_TOKEN: TOKEN,
    API_SERVER_ENABLED: "true",
    API_SERVER_PORT: "0",
    OPENAI_API_KEY: "k",
  };
  delete env.API_SERVER_KEY;
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "gateway", "run"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (d) => {
      stderr += d;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
  });
  try {
    const client = new OpenAI({ apiKey: serverKey, baseURL: `${url}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(reply.choices[0]?.message.content, "from the gateway");
    assert.equal(gatewayBws.calls().length, 1, "the runtime reuses what the gateway loaded");
  } finally {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    assert.equal(await exited, 0, stderr);
  }
  assert.ok(!stderr.includes(serverKey) && !stderr.includes(TOKEN));
});
