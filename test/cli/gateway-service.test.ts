import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openGatewayStore } from "../../src/state/gateway-store.js";
import { runNode } from "../helpers/run-node.js";
import { tempDir } from "../state/temp-dir.js";

function setup() {
  const home = tempDir("hermes-service-");
  const config = tempDir("hermes-xdg-");
  writeFileSync(
    join(home, "config.yaml"),
    "model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\nplatforms:\n  webhook:\n    enabled: true\n    extra:\n      port: 0\n      routes:\n        r:\n          secret: abcdefgh\n",
  );
  const env = { ...process.env, HERMES_HOME: home, XDG_CONFIG_HOME: config, API_SERVER_ENABLED: "", HOME: config };
  const hermes = (...args: string[]) => runNode(["dist/cli/main.js", ...args], { env });
  return { home, config, hermes };
}

test("hermes pairing lists a waiting code, approves it (as admin), revokes, and refuses an unknown code", async () => {
  const { home, hermes } = setup();
  const store = await openGatewayStore(join(home, "state.db"));
  const now = Date.now();
  await store.createPairingRequest(
    {
      platform: "telegram",
      code: "ABCD2345",
      userId: "77",
      userName: "ann",
      chatId: "77",
      createdAt: now,
      expiresAt: now,
    },
    { ttlMs: 3_600_000, perUserIntervalMs: 600_000, maxPendingPerPlatform: 3 },
  );
  store.close();
  const listed = await hermes("pairing", "list");
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /telegram ABCD2345 {2}user 77 \(ann\)/);
  const approved = await hermes("pairing", "approve", "telegram", "abcd2345", "--admin");
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /Approved telegram user 77 \(ann\) as admin/);
  assert.match((await hermes("pairing", "list")).stdout, /telegram 77 \(ann\) {2}admin/);
  const unknown = await hermes("pairing", "approve", "telegram", "ZZZZ9999");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no pending code ZZZZ9999 on telegram/);
  assert.equal((await hermes("pairing", "revoke", "telegram", "77")).code, 0);
  assert.equal((await hermes("pairing", "revoke", "telegram", "77")).code, 2);
});

test("hermes gateway start runs it in the background, status reports each platform, stop ends it", async () => {
  const { home, hermes } = setup();
  assert.equal((await hermes("gateway", "status")).code, 1);
  const started = await hermes("gateway", "start");
  try {
    assert.equal(started.code, 0, started.stdout + started.stderr);
    assert.match(started.stdout, /started \(pid \d+\)/);
    const status = await hermes("gateway", "status");
    assert.equal(status.code, 0);
    assert.match(status.stdout, /running \(pid \d+\)/);
    assert.match(status.stdout, /webhook: connected/);
    assert.match((await hermes("gateway", "start")).stdout, /already running/);
  } finally {
    const stopped = await hermes("gateway", "stop");
    assert.equal(stopped.code, 0, stopped.stdout);
  }
  assert.match((await hermes("gateway", "status")).stdout, /not running/);
  assert.match(readFileSync(join(home, "logs", "gateway.out"), "utf8"), /stopping/);
});

test("hermes gateway install writes a systemd user unit that runs this hermes; uninstall removes it", async () => {
  const { config, hermes, home } = setup();
  const installed = await hermes("gateway", "install");
  assert.equal(installed.code, 0);
  const unit = join(config, "systemd", "user", "hermes-gateway.service");
  const text = readFileSync(unit, "utf8");
  assert.match(text, new RegExp(`ExecStart=${process.execPath} \\S+main\\.js gateway run`));
  assert.match(text, new RegExp(`Environment=HERMES_HOME=${home}`));
  assert.match(installed.stdout, /systemctl --user daemon-reload/);
  assert.equal((await hermes("gateway", "uninstall")).code, 0);
  assert.equal(existsSync(unit), false);
});
