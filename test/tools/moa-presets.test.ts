import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { validateConfig } from "../../src/state/config-validate.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, ScriptStep } from "../fake-provider/types.js";
import { answerByModel, callMoa, fakeEnv, modelOf, OPENROUTER_KEY, presetConfig, toolOptions } from "./moa-harness.js";

let fake: FakeProvider;
let other: FakeProvider;

before(async () => {
  fake = await startFakeProvider();
  other = await startFakeProvider();
});
after(async () => {
  await fake.close();
  await other.close();
});

function answerWith(step: ScriptStep, server: FakeProvider = fake) {
  server.requests.length = 0;
  server.setScript(Array.from({ length: 20 }, () => step));
}

const twoPresets = (moa: Record<string, unknown>) => ({
  moa: {
    ...moa,
    presets: {
      default: { reference_models: [{ provider: "openrouter", model: "ref-default" }], aggregator: { model: "agg" } },
      quick: {
        reference_models: [{ provider: "openrouter", model: "ref-quick" }],
        aggregator: { model: "agg" },
        reference_temperature: 1.1,
        aggregator_temperature: 0,
        max_tokens: 300,
      },
      off: { enabled: false },
    },
  },
});

const referenceModels = () => fake.requests.map(modelOf).filter((m) => m !== "agg");

test("active_preset wins over default_preset, and the call's preset over both", async () => {
  answerWith(answerByModel());
  const active = toolOptions(twoPresets({ active_preset: "quick" }), fakeEnv(fake.url)).options;
  const result = await callMoa(active, { prompt: "q" });
  assert.equal(result.preset, "quick");
  assert.deepEqual(referenceModels(), ["ref-quick"]);
  const reference = fake.requests.find((r) => modelOf(r) === "ref-quick")!;
  assert.equal(reference.body.temperature, 1.1);
  assert.equal(reference.body.max_tokens, 300);
  assert.equal(fake.requests.find((r) => modelOf(r) === "agg")!.body.temperature, 0);

  answerWith(answerByModel());
  const byDefault = toolOptions(twoPresets({ default_preset: "quick" }), fakeEnv(fake.url)).options;
  assert.equal((await callMoa(byDefault, { prompt: "q" })).preset, "quick");

  answerWith(answerByModel());
  assert.equal((await callMoa(active, { prompt: "q", preset: "default" })).preset, "default");
  assert.deepEqual(referenceModels(), ["ref-default"]);
});

test("an unknown or disabled preset is an error that says what exists and how to turn it on", async () => {
  answerWith(answerByModel());
  const { options } = toolOptions(twoPresets({}), fakeEnv(fake.url));
  const unknown = await callMoa(options, { prompt: "q", preset: "nope" });
  assert.equal(unknown.error, 'unknown preset "nope"; the presets under moa.presets are: default, quick, off');
  const disabled = await callMoa(options, { prompt: "q", preset: "off" });
  assert.match(disabled.error ?? "", /preset "off" is disabled \(moa\.presets\.off\.enabled: false\)/);
  assert.match(disabled.error ?? "", /hermes config set moa\.presets\.off\.enabled true/);
  assert.match(disabled.error ?? "", /pass preset: default or quick/);
  assert.equal(fake.requests.length, 0);
});

test("a reference without credentials is left out and says what to set; the others still run", async () => {
  answerWith(answerByModel());
  // No DEEPSEEK_BASE_URL: the real endpoint, which needs a key that is not there.
  const env = fakeEnv(fake.url, { DEEPSEEK_API_KEY: undefined, DEEPSEEK_BASE_URL: undefined });
  const result = await callMoa(toolOptions(presetConfig(), env).options, { prompt: "q" });
  assert.equal(result.success, true, result.error);
  assert.deepEqual(
    result.failed_models?.map((f) => f.model),
    ["deepseek:ref-b"],
  );
  const why = result.failed_models?.[0]?.error ?? "";
  assert.match(why, /no API key for DeepSeek \(deepseek\): set DEEPSEEK_API_KEY/);
  assert.match(why, /hermes auth add deepseek/);
  assert.match(why, /auxiliary\.moa_reference\.api_key/);
  assert.deepEqual(referenceModels(), ["ref-a"]);
});

test("an aggregator without credentials, or no reachable reference, fails before any request", async () => {
  answerWith(answerByModel());
  const noOpenRouter = fakeEnv(fake.url, { OPENROUTER_API_KEY: undefined, OPENROUTER_BASE_URL: undefined });
  const noAggregator = await callMoa(toolOptions(presetConfig(), noOpenRouter).options, { prompt: "q" });
  assert.match(
    noAggregator.error ?? "",
    /^preset "default" cannot run:\n- aggregator openrouter:agg: no API key for OpenRouter/,
  );
  assert.match(noAggregator.error ?? "", /set OPENROUTER_API_KEY/);

  const noReference = await callMoa(toolOptions(presetConfig(), {}).options, { prompt: "q" });
  assert.match(noReference.error ?? "", /\n- reference model openrouter:ref-a: no API key for OpenRouter/);
  assert.match(noReference.error ?? "", /\n- reference model deepseek:ref-b: no API key for DeepSeek/);
  assert.equal(fake.requests.length, 0);
});

test("the tool is available only while a reference model of the configured preset has credentials", () => {
  const env = { DEEPSEEK_API_KEY: undefined };
  const without = toolOptions(presetConfig(), env).options.backend!;
  assert.equal(without.available(), false);
  assert.equal(toolOptions(presetConfig(), { DEEPSEEK_API_KEY: "sk-ds" }).options.backend!.available(), true);
  const disabled = presetConfig();
  (disabled.moa as { presets: { default: Record<string, unknown> } }).presets.default.enabled = false;
  assert.equal(toolOptions(disabled, { DEEPSEEK_API_KEY: "sk-ds" }).options.backend!.available(), false);
});

test("a key stored in auth.json counts as credentials and is the one sent", async () => {
  const stored = "sk-stored-deepseek-0000000000000001";
  const entry = { id: "d1", label: "d1", auth_type: "api_key", priority: 0, source: "manual", access_token: stored };
  const { home, options } = toolOptions(presetConfig(), fakeEnv(fake.url, { DEEPSEEK_API_KEY: undefined }));
  writeFileSync(join(home, "auth.json"), JSON.stringify({ version: 1, credential_pool: { deepseek: [entry] } }));
  const offline = toolOptions(presetConfig(), {}, home).options.backend!;
  assert.equal(offline.available(), true);

  answerWith(answerByModel());
  const result = await callMoa(options, { prompt: "q" });
  assert.equal(result.success, true, result.error);
  assert.equal(fake.requests.find((r) => modelOf(r) === "ref-b")!.headers.authorization, `Bearer ${stored}`);
});

test("auxiliary.moa_reference sends every reference to its endpoint with its key, model, extra_body and max_tokens", async () => {
  answerWith(answerByModel());
  answerWith((req) => ({ text: `override answer ${req.body.messages.length}` }), other);
  const raw = presetConfig({
    auxiliary: {
      moa_reference: {
        base_url: `${other.url}/v1`,
        api_key: "sk-override-0000000000000000000000",
        model: "shared-model",
        max_tokens: 77,
        extra_body: { top_k: 5 },
      },
    },
  });
  const result = await callMoa(toolOptions(raw, fakeEnv(fake.url)).options, { prompt: "q" });
  assert.equal(result.success, true, result.error);
  assert.deepEqual(result.models_used?.references, ["custom:shared-model", "custom:shared-model#2"]);
  assert.equal(other.requests.length, 2);
  for (const req of other.requests) {
    assert.equal(req.body.model, "shared-model");
    assert.equal(req.headers.authorization, "Bearer sk-override-0000000000000000000000");
    assert.equal(req.body.top_k, 5);
    assert.equal(req.body.max_tokens, 77);
  }
  assert.deepEqual(fake.requests.map(modelOf), ["agg"], "the aggregator keeps the preset's route");
  assert.equal(fake.requests[0]!.body.max_tokens, 4096);
  assert.equal(fake.requests[0]!.headers.authorization, `Bearer ${OPENROUTER_KEY}`);
});

test("auxiliary.moa_aggregator.timeout bounds the aggregator's request", async () => {
  answerWith(answerByModel({ agg: { text: "never", fault: { kind: "stall", afterChunks: 0 } } }));
  const raw = presetConfig({ auxiliary: { moa_aggregator: { timeout: 0.2 } } });
  const result = await callMoa(toolOptions(raw, fakeEnv(fake.url)).options, { prompt: "q" });
  assert.equal(result.success, false);
  assert.equal(
    result.error,
    "the aggregator openrouter:agg failed: no answer within 0.2s (auxiliary.moa_aggregator.timeout)",
  );
});

test("save_traces writes one owner-only JSON file per run, with secrets masked", async () => {
  answerWith(answerByModel({ "ref-a": { text: `the key is ${OPENROUTER_KEY}` } }));
  const raw = presetConfig();
  Object.assign(raw.moa as object, { save_traces: true, trace_dir: "traces" });
  const { home, options } = toolOptions(raw, fakeEnv(fake.url));
  const result = await callMoa(options, { prompt: `use OPENROUTER_API_KEY=${OPENROUTER_KEY} to call it` });
  assert.equal(result.success, true, result.error);
  const files = readdirSync(join(home, "traces"));
  assert.equal(files.length, 1);
  const path = join(home, "traces", files[0]!);
  assert.equal(result.trace_file, path);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const text = readFileSync(path, "utf8");
  assert.ok(!text.includes(OPENROUTER_KEY), "the key is masked wherever it appears");
  const trace = JSON.parse(text);
  assert.equal(trace.success, true);
  assert.equal(trace.preset, "default");
  assert.match(trace.prompt, /^use OPENROUTER_API_KEY=/);
  assert.deepEqual(
    trace.references.map((r: { model: string; temperature: number }) => [r.model, r.temperature]),
    [
      ["openrouter:ref-a", 0.6],
      ["deepseek:ref-b", 0.6],
    ],
  );
  assert.equal(trace.aggregator.answer, "merged");

  const defaultDir = toolOptions({ moa: { save_traces: true } }, {}).options.traceDir;
  assert.match(defaultDir ?? "", /moa_traces$/);
  assert.equal(toolOptions(presetConfig(), {}).options.traceDir, undefined, "no traces unless asked");
});

test("the moa section is validated with the key path and what it accepts", () => {
  const bad: Array<[unknown, RegExp]> = [
    [{ moa: { active_preset: "nope" } }, /moa must be settings whose default_preset and active_preset/],
    [
      { moa: { presets: { x: { reference_models: [] } } } },
      /moa\.presets\.x\.reference_models must be a list of at least one/,
    ],
    [
      { moa: { presets: { x: { reference_models: [{ provider: "a" }] } } } },
      /reference_models\[0\]\.model must be a non-empty string/,
    ],
    [
      { moa: { presets: { x: { aggregator_temperature: 5 } } } },
      /aggregator_temperature must be a number between 0 and 2/,
    ],
    [
      { moa: { presets: { x: { max_tokens: 0 } } } },
      /moa\.presets\.x\.max_tokens must be a whole number of at least 1/,
    ],
    [{ moa: { save_traces: "yes" } }, /moa\.save_traces must be true or false/],
    [{ auxiliary: { moa_reference: { timeout: -1 } } }, /auxiliary\.moa_reference\.timeout must be a number between 0/],
  ];
  for (const [raw, message] of bad) assert.throws(() => validateConfig(raw), message);

  const { config, notActedOn } = validateConfig({
    moa: { active_preset: "mine", trace_dir: "/tmp/x", presets: { mine: { max_tokens: 10 } } },
    auxiliary: { moa_reference: { provider: "auto" }, moa_aggregator: { extra_body: {} } },
  });
  assert.deepEqual(notActedOn, [], "every moa and auxiliary.moa_* key is acted on");
  assert.deepEqual(Object.keys(config.moa.presets), ["default", "mine"], "a preset of your own joins the default one");
  assert.equal(config.moa.presets.mine!.reference_temperature, 0.6);
  assert.equal(config.moa.presets.default!.aggregator.model, "anthropic/claude-opus-4.8");
  assert.equal(config.auxiliary.moa_reference.timeout, 900);
  assert.equal(config.auxiliary.moa_aggregator.timeout, 900);
});
