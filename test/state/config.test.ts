import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError, getConfigValue, loadConfig, validateConfig } from "../../src/state/config.js";
import { DEFAULT_CONFIG } from "../../src/state/config-defaults.js";
import { configSchema } from "../../src/state/config-schema.js";
import { tempDir } from "./temp-dir.js";

function homeWith(yaml: string): string {
  const home = tempDir();
  writeFileSync(join(home, "config.yaml"), yaml);
  return home;
}

test("a missing config.yaml yields the defaults, with the original's key names and values", () => {
  const { config, warnings, path } = loadConfig({ home: tempDir() });
  assert.deepEqual(warnings, []);
  assert.match(path, /config\.yaml$/);
  assert.deepEqual(config, DEFAULT_CONFIG);
  assert.equal(config.agent.max_turns, 90);
  assert.equal(config.compression.enabled, true);
  assert.equal(config.compression.threshold, 0.5);
  assert.equal(config.compression.protect_last_n, 20);
  assert.equal(config.delegation.max_iterations, 50);
  assert.equal(config.delegation.max_concurrent_children, 3);
  assert.equal(config.delegation.max_spawn_depth, 1);
  assert.equal(config.auxiliary.compression.provider, "auto");
  assert.equal(config.auxiliary.session_search.provider, "auto");
  assert.equal(config.prompt_caching.cache_ttl, "5m");
  assert.equal(config.tool_loop_guardrails.warnings_enabled, true);
  assert.equal(config.tool_loop_guardrails.hard_stop_enabled, false);
  assert.deepEqual(config.tool_loop_guardrails.warn_after, {
    exact_failure: 2,
    same_tool_failure: 3,
    idempotent_no_progress: 2,
  });
  assert.deepEqual(config.tool_loop_guardrails.hard_stop_after, {
    exact_failure: 5,
    same_tool_failure: 8,
    idempotent_no_progress: 5,
  });
  assert.equal(config.memory.memory_char_limit, 2200);
  assert.equal(config.memory.user_char_limit, 1375);
  assert.equal(config.terminal.timeout, 180);
  assert.equal(config.approvals.mode, "manual");
  assert.deepEqual(config.fallback_providers, []);
  assert.deepEqual(config.mcp_servers, {});
  assert.equal(config.model.provider, "auto");
});

test("DEFAULT_CONFIG is frozen so no caller can change the defaults for everyone", () => {
  assert.throws(() => {
    (DEFAULT_CONFIG.compression as { threshold: number }).threshold = 0.9;
  });
  assert.deepEqual(configSchema.parse({}), DEFAULT_CONFIG);
});

test("user values are deep-merged over the defaults: siblings keep their defaults", () => {
  const home = homeWith(
    [
      "compression:",
      "  threshold: 0.7",
      "auxiliary:",
      "  compression:",
      "    model: google/gemini-3-flash-preview",
      "tool_loop_guardrails:",
      "  warn_after:",
      "    exact_failure: 4",
      "memory:",
      "fallback_providers:",
      "  - provider: openrouter",
      "    model: anthropic/claude-sonnet-4",
      "mcp_servers:",
      "  files:",
      "    command: npx",
      "    args: [-y, '@modelcontextprotocol/server-filesystem', /tmp]",
      "credential_pool_strategies:",
      "  openrouter: round_robin",
    ].join("\n"),
  );
  const { config, warnings } = loadConfig({ home });
  assert.deepEqual(warnings, []);
  assert.equal(config.compression.threshold, 0.7);
  assert.equal(config.compression.enabled, true);
  assert.equal(config.compression.protect_last_n, 20);
  assert.equal(config.auxiliary.compression.model, "google/gemini-3-flash-preview");
  assert.equal(config.auxiliary.compression.provider, "auto");
  assert.equal(config.auxiliary.vision.provider, "auto");
  assert.equal(config.tool_loop_guardrails.warn_after.exact_failure, 4);
  assert.equal(config.tool_loop_guardrails.warn_after.same_tool_failure, 3);
  assert.equal(config.memory.memory_char_limit, 2200, "an empty section (null) keeps its defaults");
  assert.deepEqual(config.fallback_providers, [{ provider: "openrouter", model: "anthropic/claude-sonnet-4" }]);
  assert.equal(config.mcp_servers.files?.command, "npx");
  assert.equal(config.mcp_servers.files?.enabled, true);
  assert.equal(config.credential_pool_strategies.openrouter, "round_robin");
});

test("`model: some-id` is shorthand for model.default", () => {
  const { config } = loadConfig({ home: homeWith("model: openai/gpt-4o\n") });
  assert.equal(config.model.default, "openai/gpt-4o");
  assert.equal(config.model.provider, "auto");
});

test("a bad value raises ConfigError naming the key path, the accepted values and what was given", () => {
  const home = homeWith("compression:\n  threshold: high\n");
  assert.throws(
    () => loadConfig({ home }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(
        error.message,
        `${join(home, "config.yaml")}: compression.threshold must be a number between 0 and 1 (got "high")`,
      );
      assert.deepEqual(
        error.issues.map((i) => i.path),
        ["compression.threshold"],
      );
      return true;
    },
  );
});

test("enum, list-item and range errors each name their path and accepted values", () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ approvals: { mode: "yolo" } }, /approvals\.mode must be one of "manual", "smart", "off" \(got "yolo"\)/],
    [{ prompt_caching: { cache_ttl: "2h" } }, /prompt_caching\.cache_ttl must be one of "5m", "1h"/],
    [
      { fallback_providers: [{ provider: "openrouter" }] },
      /fallback_providers\[0\]\.model must be a non-empty string \(got nothing\)/,
    ],
    [{ agent: { max_turns: 0 } }, /agent\.max_turns must be a whole number of at least 1 \(got 0\)/],
    [
      { delegation: { max_spawn_depth: 5 } },
      /delegation\.max_spawn_depth must be a whole number between 1 and 3 \(got 5\)/,
    ],
    [
      { credential_pool_strategies: { openrouter: "fastest" } },
      /credential_pool_strategies\.openrouter must be one of "fill_first"/,
    ],
    [
      { mcp_servers: { both: { command: "x", url: "http://127.0.0.1" } } },
      /mcp_servers\.both must be a server with exactly one of/,
    ],
    [{ compression: true }, /compression must be a mapping of settings \(got true\)/],
    [{ toolsets: "web" }, /toolsets must be a list of strings \(got "web"\)/],
  ];
  for (const [raw, pattern] of cases) {
    assert.throws(() => validateConfig(raw), pattern, JSON.stringify(raw));
  }
});

test("every invalid key is reported, one line each", () => {
  assert.throws(
    () => validateConfig({ compression: { threshold: 2 }, terminal: { timeout: "soon" } }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.issues.length, 2);
      assert.equal(error.message.split("\n").length, 2);
      return true;
    },
  );
});

test("unknown keys are returned as warnings (with a likely fix), not thrown", () => {
  const home = homeWith(
    "compresion:\n  enabled: false\ncompression:\n  treshold: 0.4\nmcp_servers:\n  x:\n    command: a\n    colour: red\n",
  );
  const { config, warnings } = loadConfig({ home });
  assert.equal(config.compression.threshold, 0.5);
  assert.equal(warnings.length, 3);
  assert.match(warnings[0]!, /unknown key "compresion".*did you mean "compression"/);
  assert.match(warnings[1]!, /unknown key "compression\.treshold".*did you mean "threshold"/);
  assert.match(warnings[2]!, /unknown key "mcp_servers\.x\.colour"/);
});

test("YAML syntax errors and non-mapping files are reported with a clear ConfigError", () => {
  assert.throws(() => loadConfig({ home: homeWith("a: [1\n") }), /config\.yaml: YAML syntax error at line \d+/);
  assert.throws(() => loadConfig({ home: homeWith("- a\n- b\n") }), /config\.yaml: the file must be a mapping/);
  assert.deepEqual(loadConfig({ home: homeWith("# only a comment\n") }).config, DEFAULT_CONFIG);
});

test("getConfigValue reads dotted paths, including list indexes", () => {
  const { config } = validateConfig({ fallback_providers: [{ provider: "a", model: "m" }] });
  assert.equal(getConfigValue(config, "compression.threshold"), 0.5);
  assert.equal(getConfigValue(config, "fallback_providers.0.model"), "m");
  assert.deepEqual(getConfigValue(config, "prompt_caching"), { enabled: true, cache_ttl: "5m" });
  assert.equal(getConfigValue(config, "compression.nope"), undefined);
  assert.throws(() => getConfigValue(config, "a..b"), /not a valid key path/);
});

test("a YAML syntax error names the file once, by its full path, with the line and column once", () => {
  const home = homeWith("model: [\n");
  assert.throws(
    () => loadConfig({ home }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      const path = join(home, "config.yaml");
      assert.ok(error.message.startsWith(`${path}: YAML syntax error at line 2, column 1: `), error.message);
      assert.equal(error.message.split("config.yaml").length, 2, "the file is named once");
      assert.equal(error.message.match(/line \d+, column \d+/g)?.length, 1, "the position is given once");
      return true;
    },
  );
});

test("platform sections take channel lists as the original's comma strings or as lists, and refuse other shapes", () => {
  const { config } = loadConfig({
    home: homeWith(
      'discord:\n  free_response_channels: "111, 222"\n  require_mention: false\nslack:\n  allowed_channels: [C1, 42]\ntelegram:\n  allowed_chats: -100123\n',
    ),
  });
  assert.deepEqual(config.discord.free_response_channels, ["111", "222"]);
  assert.equal(config.discord.require_mention, false);
  assert.equal(config.discord.auto_thread, true);
  assert.deepEqual(config.slack.allowed_channels, ["C1", "42"]);
  assert.deepEqual(config.telegram.allowed_chats, ["-100123"]);
  assert.throws(
    () => loadConfig({ home: homeWith("discord:\n  allowed_channels: {a: 1}\n") }),
    /discord\.allowed_channels.*list of ids or a comma-separated string/s,
  );
});
