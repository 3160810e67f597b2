import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runDoctor } from "../../src/cli/commands/doctor.js";
import { FakeTelegram } from "../fakes/telegram/server.js";
import { tempDir } from "../state/temp-dir.js";

function home(): string {
  const dir = tempDir("hermes-doctor-platform-");
  writeFileSync(
    join(dir, "config.yaml"),
    "model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n",
  );
  return dir;
}

test("doctor checks an enabled platform's token against its API, and says whether a gateway listens", async () => {
  const telegram = await FakeTelegram.start();
  try {
    const dir = home();
    const env = { TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.url, PATH: process.env.PATH };
    const results = await runDoctor({ home: dir, env, timeoutMs: 5000 });
    const token = results.find((r) => r.name === "telegram");
    assert.equal(token?.ok, true, token?.detail);
    assert.match(token?.detail ?? "", /^@\w+ \(\d+\)$/);
    const listener = results.find((r) => r.name === "telegram listener");
    assert.deepEqual([listener?.ok, listener?.detail], [false, "the gateway is not running"]);

    mkdirSync(join(dir, "gateway"));
    writeFileSync(
      join(dir, "gateway", "state.json"),
      JSON.stringify({
        pid: process.pid,
        startedAt: 0,
        updatedAt: 0,
        apiServer: null,
        platforms: { telegram: { state: "connected", since: Date.parse("2026-11-24T08:00:00Z") } },
      }),
    );
    const running = await runDoctor({ home: dir, env, timeoutMs: 5000 });
    const alive = running.find((r) => r.name === "telegram listener");
    assert.deepEqual([alive?.ok, alive?.detail], [true, "listening since 2026-11-24T08:00:00.000Z"]);

    const wrong = await runDoctor({ home: dir, env: { ...env, TELEGRAM_BOT_TOKEN: "1:wrong-token" }, timeoutMs: 5000 });
    const refused = wrong.find((r) => r.name === "telegram");
    assert.equal(refused?.ok, false);
    assert.match(refused?.hint ?? "", /TELEGRAM_BOT_TOKEN/);
    assert.ok(!JSON.stringify(wrong).includes("wrong-token"), "the token never appears in the report");
  } finally {
    await telegram.close();
  }
});

test("doctor says nothing about platforms that are not on", async () => {
  const results = await runDoctor({ home: home(), env: { PATH: process.env.PATH }, timeoutMs: 5000 });
  assert.ok(!results.some((r) => /telegram|discord|slack|email/.test(r.name)));
});
