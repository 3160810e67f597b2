import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseAssignments, platformSetup } from "../../src/cli/platform-setup.js";
import { tempDir } from "../state/temp-dir.js";

function run(home: string, name: string | undefined, set: string[], env: Record<string, string> = {}) {
  const lines: string[] = [];
  const done = platformSetup(home, name, {
    set,
    check: false,
    interactive: false,
    env,
    out: (line) => lines.push(line),
  });
  return done.then((code) => ({ code, lines }));
}

test("gateway setup saves a platform's settings to .env, showing secrets as saved, never their values", async () => {
  const home = tempDir("hermes-psetup-");
  const result = await run(home, "telegram", ["TELEGRAM_BOT_TOKEN=123:secret-token", "telegram_allowed_users=42,43"]);
  assert.equal(result.code, 0);
  assert.deepEqual(result.lines, [".env: TELEGRAM_BOT_TOKEN saved", ".env: TELEGRAM_ALLOWED_USERS = 42,43"]);
  const dotenv = readFileSync(join(home, ".env"), "utf8");
  assert.match(dotenv, /^TELEGRAM_BOT_TOKEN=.*123:secret-token/m);
  assert.match(dotenv, /^TELEGRAM_ALLOWED_USERS=.*42,43/m);
  const listed = await run(home, undefined, [], { TELEGRAM_BOT_TOKEN: "123:secret-token" });
  assert.match(listed.lines.find((l) => l.startsWith("telegram")) ?? "", /configured/);
  assert.match(listed.lines.find((l) => l.startsWith("slack")) ?? "", /not set up/);
});

test("gateway setup says what is still missing, and refuses settings of other platforms and unknown platforms", async () => {
  const home = tempDir("hermes-psetup-");
  const partial = await run(home, "slack", ["SLACK_BOT_TOKEN=xoxb-1"]);
  assert.equal(partial.code, 1);
  assert.match(partial.lines.at(-1) ?? "", /still needed: SLACK_APP_TOKEN/);
  assert.throws(() => parseAssignments("slack", ["TELEGRAM_BOT_TOKEN=x"]), /not a slack setting/);
  assert.throws(() => parseAssignments("slack", ["SLACK_BOT_TOKEN"]), /KEY=VALUE/);
  await assert.rejects(run(home, "myspace", []), /unknown platform "myspace"/);
  await assert.rejects(run(home, "email", []), /--set EMAIL_ADDRESS=\.\.\. --set EMAIL_PASSWORD=\.\.\./);
});
