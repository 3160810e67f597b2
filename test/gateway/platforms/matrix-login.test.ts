import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { MatrixAdapter } from "../../../src/gateway/adapters/matrix/adapter.js";
import { createAdapter, probe } from "../../../src/gateway/adapters/matrix/platform.js";
import { platformEnabled } from "../../../src/gateway/platform-catalog.js";
import { loadConfig } from "../../../src/state/config.js";
import { dm, finished, startMatrixGateway } from "../../fakes/matrix/gateway.js";
import { startFakeMatrix } from "../../fakes/matrix/server.js";
import { FAKE_PASSWORD } from "../../fakes/matrix/state.js";
import { tempDir } from "../../state/temp-dir.js";

const login = { userId: "hermes", password: FAKE_PASSWORD };
const echo = { fallback: { text: "heard" } };

function savedSession(home: string): { accessToken: string; deviceId: string } {
  return JSON.parse(readFileSync(join(home, "gateway", "matrix-session.json"), "utf8"));
}

test("a password login answers messages, and restarts reuse its saved session and device until the homeserver drops it", async () => {
  const { gw, mx, world, adapterLogs, close } = await startMatrixGateway({
    provider: echo,
    adapter: { token: undefined, login, pollTimeoutMs: 200 },
  });
  try {
    dm(mx, world, "one");
    await mx.waitFor(() => finished(mx, world.dm).length === 1, "the first answer");
    assert.equal(mx.state.loginDevices.length, 1, "one login");
    const [device] = mx.state.loginDevices;
    const saved = savedSession(gw.home);
    assert.equal(saved.deviceId, device);
    assert.ok(mx.state.sessions.has(saved.accessToken), "the saved token is the live one");
    assert.equal(statSync(join(gw.home, "gateway", "matrix-session.json")).mode & 0o777, 0o600);
    const login = mx.calls.find((c) => c.path === "/login")!;
    assert.equal(login.body.initial_device_display_name, "Hermes Agent");
    assert.ok(!adapterLogs.join("\n").includes(saved.accessToken), "the token is not logged");

    await gw.restart();
    dm(mx, world, "two");
    await mx.waitFor(() => finished(mx, world.dm).length === 2, "the answer after a restart");
    assert.deepEqual(mx.state.loginDevices, [device], "the saved session was reused: no second login");

    mx.state.revokeDevice(device!);
    await gw.restart();
    dm(mx, world, "three");
    await mx.waitFor(() => finished(mx, world.dm).length === 3, "the answer after the session was dropped");
    assert.deepEqual(mx.state.loginDevices, [device, device], "logged in again on the same device");
    assert.ok(adapterLogs.some((line) => line.includes("saved login session is no longer accepted")));
  } finally {
    await close();
  }
});

test("a refused password fails the connection with what to check, and is not tried again", async () => {
  const mx = await startFakeMatrix();
  const adapter = new MatrixAdapter({
    homeserver: mx.url,
    login: { userId: "hermes", password: "wrong" },
    home: tempDir("hermes-mx-login-"),
    log: () => undefined,
    rules: { requireMention: true, freeResponseRooms: new Set(), allowedRooms: new Set(), replyInThreads: true },
  });
  const events = { inbound: async () => true, listenerLost: () => undefined } as unknown as Parameters<
    MatrixAdapter["connect"]
  >[0];
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(
        adapter.connect(events),
        /refused the password of hermes \(HTTP 403 M_FORBIDDEN\): check MATRIX_USER_ID and MATRIX_PASSWORD/,
      );
    }
    assert.equal(mx.calls.filter((c) => c.path === "/login").length, 1, "the password was sent once");
    assert.ok(!mx.calls.some((c) => c.path === "/login" && c.body.password === "wrong"));
  } finally {
    await adapter.disconnect();
    await mx.close();
  }
});

test("MATRIX_USER_ID and MATRIX_PASSWORD turn the platform on and are checked by a login that leaves no session behind", async () => {
  const home = tempDir("hermes-mx-login-config-");
  const { config } = loadConfig({ home });
  const mx = await startFakeMatrix();
  try {
    const env = { MATRIX_HOMESERVER: mx.url, MATRIX_USER_ID: "@hermes:fake.local", MATRIX_PASSWORD: FAKE_PASSWORD };
    assert.equal(platformEnabled(config, env, "matrix"), true);
    assert.equal(platformEnabled(config, { MATRIX_HOMESERVER: mx.url, MATRIX_USER_ID: "@h:x" }, "matrix"), false);
    assert.ok(createAdapter({ config, env, home, log: () => undefined }) instanceof MatrixAdapter);
    const sessionsBefore = mx.state.sessions.size;
    const good = await probe({ config, env, home, log: () => undefined }, 5_000);
    assert.equal(good.ok, true, good.detail);
    assert.match(good.detail, /@hermes:fake\.local on .* \(password login\)/);
    assert.equal(mx.state.sessions.size, sessionsBefore, "the probe logged out again");
    const bad = await probe({ config, env: { ...env, MATRIX_PASSWORD: "nope" }, home, log: () => undefined }, 5_000);
    assert.equal(bad.ok, false);
    assert.match(bad.detail, /refused the password/);
  } finally {
    await mx.close();
  }
});
