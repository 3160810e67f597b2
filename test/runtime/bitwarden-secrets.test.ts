import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import {
  type BitwardenLoadOptions,
  type BitwardenNoticeLevel,
  loadBitwardenSecrets,
} from "../../src/runtime/bitwarden-secrets.js";
import { bitwardenCachePath } from "../../src/state/bitwarden-cache.js";
import { type BitwardenSettings, bitwardenSection } from "../../src/state/config-secrets.js";
import { validateConfig } from "../../src/state/config-validate.js";
import { redactSecrets } from "../../src/util/redact.js";
import { tempDir } from "../state/temp-dir.js";
import { createFakeBws, type FakeBws, type FakeBwsState } from "./fake-bws.js";

const TOKEN = "0.5c1b2e2a-6f1d-4e4c-9a51-b0b1a3d2c4e5.pUZ8s3cretT0kenMaterial:QmFzZTY0S2V5PT0=";
const PROJECT = "2ad2a4b1-6a6d-4b1e-9c3f-b2f1c0a2e0d4";
const OTHER_PROJECT = "9f0e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f";

const SECRETS: FakeBwsState["secrets"] = [
  { key: "GITHUB_TOKEN", value: "ghp_fromBitwardenValue123456", projectId: PROJECT },
  { key: "DATABASE_PASSWORD", value: "correct horse battery staple", projectId: OTHER_PROJECT },
];

function settings(overrides: Partial<BitwardenSettings> = {}): BitwardenSettings {
  return { ...bitwardenSection.parse({ enabled: true }), ...overrides };
}

interface Setup {
  fake: FakeBws;
  home: string;
  env: NodeJS.ProcessEnv;
  notices: Array<{ message: string; level: BitwardenNoticeLevel }>;
  load(overrides?: Partial<BitwardenLoadOptions>): ReturnType<typeof loadBitwardenSecrets>;
}

function setup(state: Partial<FakeBwsState> = {}, config: Partial<BitwardenSettings> = {}): Setup {
  const fake = createFakeBws({ token: TOKEN, secrets: SECRETS, ...state });
  const home = tempDir("hermes-bws-home-");
  const env: NodeJS.ProcessEnv = { PATH: fake.path, BWS_ACCESS_TOKEN: TOKEN };
  const notices: Setup["notices"] = [];
  return {
    fake,
    home,
    env,
    notices,
    load: (overrides = {}) =>
      loadBitwardenSecrets({
        home,
        env,
        settings: settings(config),
        notice: (message, level) => notices.push({ message, level }),
        ...overrides,
      }),
  };
}

function assertNoSecretIn(text: string): void {
  assert.ok(!text.includes(TOKEN), `the token stays out: ${text}`);
  assert.ok(!text.includes("pUZ8s3cretT0ken"), `no part of the token: ${text}`);
  for (const { value } of SECRETS) assert.ok(!text.includes(value), `no secret value: ${text}`);
}

test("puts every secret into the environment, with the token passed in BWS_ACCESS_TOKEN, never as an argument", async () => {
  const s = setup();
  const result = await s.load();
  assert.equal(result.source, "bws");
  assert.deepEqual(result.loaded.sort(), ["DATABASE_PASSWORD", "GITHUB_TOKEN"]);
  assert.equal(s.env.GITHUB_TOKEN, "ghp_fromBitwardenValue123456");
  assert.equal(s.env.DATABASE_PASSWORD, "correct horse battery staple");
  const [call, ...more] = s.fake.calls();
  assert.equal(more.length, 0);
  assert.deepEqual(call!.argv, ["secret", "list", "--output", "json", "--color", "no"]);
  assert.equal(call!.token, TOKEN);
  assert.deepEqual(s.notices, []);
});

test("the token can live in another variable named by access_token_env", async () => {
  const s = setup({}, { access_token_env: "MY_BWS_TOKEN" });
  delete s.env.BWS_ACCESS_TOKEN;
  s.env.MY_BWS_TOKEN = TOKEN;
  const result = await s.load();
  assert.equal(result.source, "bws");
  assert.equal(s.fake.calls()[0]!.token, TOKEN);
  assert.equal(s.env.GITHUB_TOKEN, "ghp_fromBitwardenValue123456");
});

test("override_existing true replaces a variable already set; false keeps it", async () => {
  const replacing = setup();
  replacing.env.GITHUB_TOKEN = "from-the-shell";
  const replaced = await replacing.load();
  assert.equal(replacing.env.GITHUB_TOKEN, "ghp_fromBitwardenValue123456");
  assert.deepEqual(replaced.kept, []);

  const keeping = setup({}, { override_existing: false });
  keeping.env.GITHUB_TOKEN = "from-the-shell";
  const kept = await keeping.load();
  assert.equal(keeping.env.GITHUB_TOKEN, "from-the-shell");
  assert.equal(keeping.env.DATABASE_PASSWORD, "correct horse battery staple");
  assert.deepEqual(kept.kept, ["GITHUB_TOKEN"]);
  assert.deepEqual(kept.loaded, ["DATABASE_PASSWORD"]);
});

test("a key that is no environment variable name is skipped with a notice naming it, never its value", async () => {
  const s = setup({
    secrets: [
      ...SECRETS,
      { key: "stripe-live-key", value: "sk_live_invalidNameValue99" },
      { key: "2FA_SEED", value: "JBSWY3DPEHPK3PXPseedvalue" },
    ],
  });
  const result = await s.load();
  assert.deepEqual(result.skipped, ["stripe-live-key", "2FA_SEED"]);
  assert.equal(s.env["stripe-live-key"], undefined);
  assert.equal(s.env.GITHUB_TOKEN, "ghp_fromBitwardenValue123456");
  assert.equal(s.notices.length, 1);
  const [{ message, level }] = s.notices as [Setup["notices"][number]];
  assert.equal(level, "warning");
  assert.match(message, /"stripe-live-key", "2FA_SEED"/);
  assert.ok(!message.includes("sk_live_invalidNameValue99") && !message.includes("JBSWY3DPEHPK3PX"));
});

test("a secret named like the token variable does not replace the token", async () => {
  const s = setup({ secrets: [...SECRETS, { key: "BWS_ACCESS_TOKEN", value: "0.another-token-value" }] });
  const result = await s.load();
  assert.equal(s.env.BWS_ACCESS_TOKEN, TOKEN);
  assert.deepEqual(result.skipped, ["BWS_ACCESS_TOKEN"]);
  assert.match(s.notices[0]!.message, /would replace the access token itself/);
});

test("project_id lists that project's secrets only", async () => {
  const s = setup({}, { project_id: PROJECT });
  const result = await s.load();
  assert.deepEqual(s.fake.calls()[0]!.argv, ["secret", "list", PROJECT, "--output", "json", "--color", "no"]);
  assert.deepEqual(result.loaded, ["GITHUB_TOKEN"]);
  assert.equal(s.env.DATABASE_PASSWORD, undefined);
});

test("server_url reaches bws as --server-url", async () => {
  const s = setup({}, { server_url: "https://vault.bitwarden.eu" });
  await s.load();
  const { argv } = s.fake.calls()[0]!;
  assert.deepEqual(argv.slice(-2), ["--server-url", "https://vault.bitwarden.eu"]);
});

test("a second start within cache_ttl_seconds reads the cache and does not run bws", async () => {
  const s = setup();
  const now = Date.now();
  await s.load({ now });
  const fresh: NodeJS.ProcessEnv = { PATH: s.fake.path, BWS_ACCESS_TOKEN: TOKEN };
  const again = await s.load({ env: fresh, now: now + 299_000 });
  assert.equal(again.source, "cache");
  assert.equal(fresh.GITHUB_TOKEN, "ghp_fromBitwardenValue123456");
  assert.equal(s.fake.calls().length, 1);
  const expired = await s.load({ env: { ...fresh }, now: now + 300_000 });
  assert.equal(expired.source, "bws");
  assert.equal(s.fake.calls().length, 2);
});

test("another token, project or server misses the cache", async () => {
  const s = setup();
  await s.load();
  const otherToken = `${TOKEN}x`;
  s.fake.setState({ token: otherToken, secrets: SECRETS });
  const withOtherToken = await s.load({ env: { PATH: s.fake.path, BWS_ACCESS_TOKEN: otherToken } });
  assert.equal(withOtherToken.source, "bws");
  assert.equal(s.fake.calls().length, 2);
  const env = { PATH: s.fake.path, BWS_ACCESS_TOKEN: otherToken };
  assert.equal((await s.load({ env, settings: settings({ project_id: PROJECT }) })).source, "bws");
  assert.equal((await s.load({ env, settings: settings({ server_url: "https://vault.bitwarden.eu" }) })).source, "bws");
  assert.equal(s.fake.calls().length, 4);
});

test("the cache file is 0600 and holds neither a value, a key name nor the token", async () => {
  const s = setup();
  await s.load();
  const path = bitwardenCachePath(s.home);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const content = readFileSync(path, "utf8");
  assertNoSecretIn(content);
  assert.ok(!content.includes("GITHUB_TOKEN") && !content.includes("DATABASE_PASSWORD"));
});

test("a cache file edited to look fresh is not trusted", async () => {
  const s = setup();
  const now = Date.now();
  await s.load({ now });
  const path = bitwardenCachePath(s.home);
  const file = JSON.parse(readFileSync(path, "utf8"));
  writeFileSync(path, JSON.stringify({ ...file, fetchedAt: now + 600_000 }));
  const again = await s.load({ env: { PATH: s.fake.path, BWS_ACCESS_TOKEN: TOKEN }, now: now + 700_000 });
  assert.equal(again.source, "bws");
});

test("cache_ttl_seconds 0 runs bws every time and leaves no cache file", async () => {
  const s = setup();
  await s.load();
  assert.ok(existsSync(bitwardenCachePath(s.home)));
  const noCache = settings({ cache_ttl_seconds: 0 });
  await s.load({ settings: noCache });
  await s.load({ settings: noCache });
  assert.equal(s.fake.calls().length, 3);
  assert.ok(!existsSync(bitwardenCachePath(s.home)));
});

test("loaded values are masked wherever text is redacted, whatever their shape", async () => {
  const s = setup();
  await s.load();
  const out = redactSecrets("connecting with correct horse battery staple now");
  assert.ok(!out.includes("correct horse battery staple"), out);
});

test("without bws on PATH: an important notice with how to install it, and nothing loaded", async () => {
  const s = setup();
  s.env.PATH = tempDir("hermes-empty-path-");
  const result = await s.load();
  assert.equal(result.source, "none");
  assert.equal(s.env.GITHUB_TOKEN, undefined);
  const [{ message, level }] = s.notices as [Setup["notices"][number]];
  assert.equal(level, "important");
  assert.match(message, /bws, Bitwarden's Secrets Manager CLI, is not on PATH/);
  assert.match(message, /cargo install bws --locked/);
  assert.match(message, /https:\/\/bitwarden\.com\/help\/secrets-manager-cli\//);
  assert.match(message, /auto_install is not supported: Hermes never downloads programs/);
  assert.match(message, /continuing without Bitwarden secrets/);
  assertNoSecretIn(message);
});

test("bws refusing the token: its report is shown without the token, colours or source locations", async () => {
  const s = setup();
  s.fake.setState({ token: "0.some-other-token", secrets: SECRETS });
  const result = await s.load();
  assert.equal(result.source, "none");
  const { message, level } = s.notices[0]!;
  assert.equal(level, "important");
  assert.match(message, /^bws secret list failed \(exit 1\): Error: 0: Failed to login with access token \*\*\*/);
  assert.match(message, /Check the access token in BWS_ACCESS_TOKEN/);
  assert.ok(!message.includes("\u001b") && !message.includes("Location") && !message.includes("main.rs"));
  assertNoSecretIn(message);
  assert.ok(!existsSync(bitwardenCachePath(s.home)), "a failure is not cached");
});

test("bws failing on the server side: exit code and its message", async () => {
  const s = setup({ mode: "fail" });
  await s.load();
  assert.match(
    s.notices[0]!.message,
    /failed \(exit 1\): Error: 0: Received error message from server: \[404 Not Found\]/,
  );
});

test("output that is not a JSON list of secrets: a notice that quotes none of it", async () => {
  for (const mode of ["garbage", "object"] as const) {
    const s = setup({ mode });
    const result = await s.load();
    assert.equal(result.source, "none");
    assert.match(s.notices[0]!.message, /bws printed something other than a JSON list of secrets \(\d+ bytes\)/);
    assertNoSecretIn(s.notices[0]!.message);
  }
});

test("bws that does not answer is stopped after the timeout", async () => {
  const s = setup({ mode: "hang" });
  const result = await s.load({ timeoutMs: 400 });
  assert.equal(result.source, "none");
  assert.match(s.notices[0]!.message, /bws did not answer within 0.4 s; continuing without Bitwarden secrets$/);
});

test("with the token variable unset bws is not run, and the notice says which variable", async () => {
  const s = setup();
  delete s.env.BWS_ACCESS_TOKEN;
  const result = await s.load();
  assert.equal(result.source, "none");
  assert.equal(s.fake.calls().length, 0);
  assert.match(s.notices[0]!.message, /secrets\.bitwarden is enabled but BWS_ACCESS_TOKEN is not set/);
});

test("config: secrets.bitwarden defaults match the original and bad values name the key", () => {
  const { config } = validateConfig({});
  assert.deepEqual(config.secrets.bitwarden, {
    enabled: false,
    access_token_env: "BWS_ACCESS_TOKEN",
    project_id: "",
    cache_ttl_seconds: 300,
    override_existing: true,
    auto_install: true,
    server_url: "",
  });
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [
      { access_token_env: "BWS-TOKEN" },
      /secrets\.bitwarden\.access_token_env must be the name of an environment variable/,
    ],
    [{ project_id: "my-project" }, /secrets\.bitwarden\.project_id must be a Bitwarden project id/],
    [{ server_url: "vault.example.com" }, /secrets\.bitwarden\.server_url must be an http\(s\) URL/],
    [{ cache_ttl_seconds: -1 }, /secrets\.bitwarden\.cache_ttl_seconds must be a whole number of at least 0/],
    [{ enabled: "yes please" }, /secrets\.bitwarden\.enabled must be true or false/],
  ];
  for (const [bitwarden, message] of bad) {
    assert.throws(() => validateConfig({ secrets: { bitwarden } }), message);
  }
});

test("in the process's own environment a second load in the same start repeats neither bws nor its notice", async () => {
  const s = setup({ mode: "fail" }, { cache_ttl_seconds: 0 });
  const saved = { PATH: process.env.PATH, BWS_ACCESS_TOKEN: process.env.BWS_ACCESS_TOKEN };
  process.env.PATH = s.fake.path;
  process.env.BWS_ACCESS_TOKEN = TOKEN;
  try {
    await s.load({ env: process.env });
    await s.load({ env: process.env });
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  assert.equal(s.fake.calls().length, 1);
  assert.equal(s.notices.length, 1);
});
