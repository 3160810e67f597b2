import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { stringify } from "yaml";
import { registerConfigCommands } from "../../src/cli/commands/config.js";
import { loadConfigAsync } from "../../src/state/config-load.js";
import { RENAMED_KEYS } from "../../src/state/config-original.js";
import { configSchema } from "../../src/state/config-schema.js";
import { schemaAt } from "../../src/state/config-walk.js";
import { ORIGINAL_CONFIG_DEFAULTS } from "../../src/state/original-config-keys.js";
import { run, tempHome } from "../cli/commands/state-command-harness.js";

/** A config.yaml value from dotted keys and their values. */
function nested(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    const parts = key.split(".");
    let current = root;
    for (const part of parts.slice(0, -1)) {
      current[part] ??= {};
      current = current[part] as Record<string, unknown>;
    }
    current[parts.at(-1)!] = value;
  }
  return root;
}

function homeWith(config: unknown): string {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), typeof config === "string" ? config : stringify(config));
  return home;
}

const check = (home: string, ...flags: string[]) => run(registerConfigCommands, home, ["config", "check", ...flags]);

/** Where we read an original key: under our name when it was renamed. */
function ourPath(key: string): string[] {
  for (const [from, to] of Object.entries(RENAMED_KEYS)) {
    if (key === from || key.startsWith(`${from}.`)) return (to + key.slice(from.length)).split(".");
  }
  return key.split(".");
}

test("the key list holds every key of the original's config.yaml", () => {
  assert.equal(ORIGINAL_CONFIG_DEFAULTS.length, 515);
  assert.equal(new Set(ORIGINAL_CONFIG_DEFAULTS.map(([key]) => key)).size, 515);
});

test("a config.yaml with all of the original's keys at their defaults passes check without a warning", async () => {
  const home = homeWith(nested(ORIGINAL_CONFIG_DEFAULTS));
  const result = await check(home);
  assert.equal(result.err, "");
  assert.equal(result.exitCode, undefined);
  assert.match(result.out, /config\.yaml: OK\n$/);
  const loaded = await loadConfigAsync({ home });
  assert.deepEqual(loaded.warnings, []);
});

test("check --unsupported lists exactly the original's keys that nothing acts on, with a count", async () => {
  const home = homeWith(nested(ORIGINAL_CONFIG_DEFAULTS));
  const result = await check(home, "--unsupported");
  assert.equal(result.err, "");
  const lines = result.out.trimEnd().split("\n");
  assert.match(lines[0]!, /config\.yaml: OK$/);
  const listed = lines.slice(1, -1);
  const expected = ORIGINAL_CONFIG_DEFAULTS.map(([key]) => key).filter(
    (key) => schemaAt(configSchema, ourPath(key)) === undefined,
  );
  assert.deepEqual([...listed].sort(), [...expected].sort());
  assert.equal(lines.at(-1), `${expected.length} keys of the original's config.yaml accepted but not acted on`);
  for (const key of ["browser.engine", "honcho"]) {
    assert.ok(listed.includes(key), `${key} is listed`);
  }
  for (const key of [
    "agent.api_max_retries",
    "agent.disabled_toolsets",
    "timezone",
    "providers",
    "streaming.enabled",
    "auxiliary.compression.api_key",
    "auxiliary.approval.timeout",
    "auxiliary.title_generation.extra_body",
    "auxiliary.title_generation.language",
    "auxiliary.background_review.model",
    "auxiliary.vision.download_timeout",
    "agent.image_input_mode",
  ]) {
    assert.ok(!listed.includes(key), `${key} is acted on`);
  }
  assert.ok(!listed.includes("auxiliary.title_generation.model"), "renamed keys are acted on");
});

test("--unsupported lists only what the file sets", async () => {
  const home = homeWith("model: some/model\nbrowser:\n  engine: auto\nagent:\n  max_turns: 10\n");
  const result = await check(home, "--unsupported");
  assert.equal(
    result.out.split("\n").slice(1).join("\n"),
    "browser.engine\n1 key of the original's config.yaml accepted but not acted on\n",
  );
});

test("a key neither the original nor we know still warns, with a suggestion", async () => {
  const home = homeWith({
    compresion: { threshold: 0.6 },
    browser: { enigne: "auto" },
    agent: { api_max_retry: 2 },
  });
  const result = await check(home, "--unsupported");
  assert.match(result.err, /unknown key "compresion" is ignored \(did you mean "compression"\?\)/);
  assert.match(result.err, /unknown key "browser\.enigne" is ignored \(did you mean "engine"\?\)/);
  assert.match(result.err, /unknown key "agent\.api_max_retry" is ignored \(did you mean "api_max_retries"\?\)/);
  assert.match(result.out, /OK \(3 warnings\)/);
  assert.match(result.out, /^0 keys of the original's config\.yaml accepted but not acted on$/m);
});

test("a key the original renamed is read under our name", async () => {
  const home = homeWith({
    auxiliary: {
      title_generation: { provider: "openrouter", model: "title-model", language: "de", timeout: 12 },
      background_review: { model: "review-model", api_key: "rk", extra_body: { think: false } },
      vision: { download_timeout: 5 },
    },
    security: { allow_private_urls: true },
  });
  const { config, warnings, notActedOn } = await loadConfigAsync({ home });
  assert.deepEqual(warnings, []);
  assert.equal(config.auxiliary.title.model, "title-model");
  assert.equal(config.auxiliary.title.provider, "openrouter");
  assert.equal(config.auxiliary.title.language, "de");
  assert.equal(config.auxiliary.title.timeout, 12);
  assert.equal(config.auxiliary.review.model, "review-model");
  assert.equal(config.auxiliary.review.api_key, "rk");
  assert.deepEqual(config.auxiliary.review.extra_body, { think: false });
  assert.equal(config.web.allow_private_urls, true);
  assert.equal(config.auxiliary.vision.download_timeout, 5);
  assert.deepEqual(notActedOn, []);
});

test("the original's gateway limits set ours; null, its 'no limit', leaves ours at its default", async () => {
  const set = await loadConfigAsync({ home: homeWith({ max_concurrent_sessions: 4, max_live_sessions: 16 }) });
  assert.equal(set.config.gateway.max_concurrent_runs, 4);
  assert.equal(set.config.gateway.agent_cache.max_agents, 16);
  assert.deepEqual(set.notActedOn, []);
  const unset = await loadConfigAsync({ home: homeWith({ max_concurrent_sessions: null }) });
  assert.equal(unset.config.gateway.max_concurrent_runs, 10);
  assert.deepEqual(unset.warnings, []);
});

test("when both names are set ours wins, key by key, and a warning names both", async () => {
  const home = homeWith({
    auxiliary: { title_generation: { model: "theirs", provider: "openrouter" }, title: { model: "ours" } },
  });
  const { config, warnings } = await loadConfigAsync({ home });
  assert.equal(config.auxiliary.title.model, "ours");
  assert.equal(config.auxiliary.title.provider, "openrouter");
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0]!,
    /both "auxiliary\.title_generation" \(the original's name\) and "auxiliary\.title" are set; "auxiliary\.title" is used/,
  );
});

test("a renamed key's bad value is reported under our name", async () => {
  const home = homeWith({ security: { allow_private_urls: "sometimes" } });
  await assert.rejects(loadConfigAsync({ home }), /web\.allow_private_urls must be true or false \(got "sometimes"\)/);
});

test('the original\'s empty model ("") means no model was chosen', async () => {
  const { config } = await loadConfigAsync({ home: homeWith('model: ""\n') });
  assert.equal(config.model.default, "anthropic/claude-opus-4.6");
});

test("a bad timezone is an error naming the accepted form", async () => {
  await assert.rejects(
    loadConfigAsync({ home: homeWith("timezone: Mars/Olympus\n") }),
    /timezone must be an IANA time zone name such as "Europe\/Berlin"/,
  );
});

test("providers and custom_providers entries are validated; the original's extra entry fields are accepted", async () => {
  const home = homeWith({
    providers: { lab: { base_url: "http://127.0.0.1:9/v1", rate_limit_delay: 1, modells: ["x"] } },
    custom_providers: [{ name: "box", base_url: "http://127.0.0.1:8/v1", models: { m1: { context_length: 1000 } } }],
  });
  const { config, warnings, notActedOn } = await loadConfigAsync({ home });
  assert.deepEqual(config.custom_providers[0]!.models, ["m1"]);
  assert.deepEqual(notActedOn, ["providers.lab.rate_limit_delay"]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /unknown key "providers\.lab\.modells" is ignored \(did you mean "models"\?\)/);
  await assert.rejects(
    loadConfigAsync({ home: homeWith({ providers: { lab: { base_url: "127.0.0.1:9" } } }) }),
    /providers\.lab\.base_url must be an http\(s\) URL/,
  );
  await assert.rejects(
    loadConfigAsync({ home: homeWith({ custom_providers: [{ base_url: "http://127.0.0.1:9/v1" }] }) }),
    /custom_providers\[0\] must be an entry with a name/,
  );
});

test("check reports an unknown name in agent.disabled_toolsets like one in toolsets", async () => {
  const result = await check(homeWith({ agent: { disabled_toolsets: ["fiel"] } }));
  assert.equal(result.exitCode, 1);
  assert.match(result.err, /agent\.disabled_toolsets in .*config\.yaml/);
  assert.match(result.err, /fiel/);
});

test("every auxiliary setting both agents have starts from the original's default", async () => {
  const { config } = await loadConfigAsync({ home: homeWith({}) });
  const ours = config.auxiliary as unknown as Record<string, Record<string, unknown>>;
  let compared = 0;
  for (const [key, value] of ORIGINAL_CONFIG_DEFAULTS) {
    const match = /^auxiliary\.([a-z_]+)\.([a-z_]+)$/.exec(key);
    if (!match) continue;
    const task = (RENAMED_KEYS[`auxiliary.${match[1]}`] ?? `auxiliary.${match[1]}`).split(".")[1]!;
    const setting = ours[task]?.[match[2]!];
    if (setting === undefined) continue;
    assert.deepEqual(setting, value, key);
    compared++;
  }
  assert.ok(compared >= 40, `compared ${compared} settings`);
});
