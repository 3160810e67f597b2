import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveGatewaySettings } from "../../src/gateway/settings.js";
import { DEFAULT_CONFIG } from "../../src/state/config-defaults.js";
import { configSchema } from "../../src/state/config-schema.js";
import { configuredHomeChannel } from "../../src/state/home-channel.js";

test("mail allowlists match addresses whatever their case; other platforms' ids stay exact", () => {
  const settings = resolveGatewaySettings(DEFAULT_CONFIG, {
    EMAIL_ALLOWED_USERS: "Alice@Example.TEST, bob@example.test",
    SLACK_ALLOWED_USERS: "U0Alice",
  });
  assert.deepEqual([...settings.access("email").allowedUsers], ["alice@example.test", "bob@example.test"]);
  assert.deepEqual([...settings.access("slack").allowedUsers], ["U0Alice"]);
});

test("tool progress is off by default in mail, where each line would be a message of its own", () => {
  const settings = resolveGatewaySettings(DEFAULT_CONFIG, {});
  assert.equal(settings.display("email").toolProgress, "off");
  assert.equal(settings.display("telegram").toolProgress, DEFAULT_CONFIG.display.tool_progress);
});

test("display.tool_progress_overrides sets a platform's tool progress; display.platforms.<name> still wins", () => {
  const config = configSchema.parse({
    display: {
      tool_progress: "all",
      tool_progress_overrides: { signal: "off", email: "all", telegram: "verbose" },
      platforms: { telegram: { tool_progress: "new" } },
    },
  });
  const settings = resolveGatewaySettings(config, {});
  assert.equal(settings.display("signal").toolProgress, "off");
  assert.equal(settings.display("email").toolProgress, "all", "the override beats the mail default");
  assert.equal(settings.display("telegram").toolProgress, "new");
  assert.equal(settings.display("discord").toolProgress, "all");
  assert.throws(() => configSchema.parse({ display: { tool_progress_overrides: { signal: "loud" } } }));
});

test("a home channel comes from config first, then <PLATFORM>_HOME_CHANNEL (EMAIL_HOME_ADDRESS for mail)", () => {
  const env = { TELEGRAM_HOME_CHANNEL: "-100200", EMAIL_HOME_ADDRESS: "me@example.test" };
  assert.equal(configuredHomeChannel(DEFAULT_CONFIG, "telegram", env), "-100200");
  assert.equal(configuredHomeChannel(DEFAULT_CONFIG, "email", env), "me@example.test");
  assert.equal(configuredHomeChannel(DEFAULT_CONFIG, "discord", env), undefined);
  const config = {
    ...DEFAULT_CONFIG,
    platforms: { telegram: { home_channel: "42" } },
  } as unknown as typeof DEFAULT_CONFIG;
  assert.equal(configuredHomeChannel(config, "telegram", env), "42");
});
