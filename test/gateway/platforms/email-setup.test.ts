import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { EmailAdapter } from "../../../src/gateway/adapters/email/adapter.js";
import { imapOptions } from "../../../src/gateway/adapters/email/mailbox.js";
import { platform } from "../../../src/gateway/adapters/email/platform.js";
import { readEmailSettings } from "../../../src/gateway/adapters/email/settings.js";
import type { PlatformContext } from "../../../src/gateway/platform-catalog.js";
import { enabledPlatforms } from "../../../src/gateway/platforms.js";
import { loadConfig } from "../../../src/state/config.js";
import { AGENT_ADDRESS, startMailWorld } from "../../fakes/email/mail-world.js";
import { tempDir } from "../../state/temp-dir.js";

function context(env: Record<string, string>, yaml = ""): PlatformContext {
  const home = tempDir("hermes-email-setup-");
  writeFileSync(join(home, "config.yaml"), yaml);
  return { config: loadConfig({ home }).config, env, home, log: () => undefined };
}

const REMOTE = {
  EMAIL_ADDRESS: "agent@example.com",
  EMAIL_PASSWORD: "secret",
  EMAIL_IMAP_HOST: "imap.example.com",
  EMAIL_SMTP_HOST: "smtp.example.com",
};

test("the EMAIL_* settings turn the platform on through enabledPlatforms; without them it stays off", async () => {
  const world = await startMailWorld();
  try {
    const on = context(world.env());
    const enabled = await enabledPlatforms(on.config, { home: on.home, env: on.env, log: () => undefined });
    assert.equal(enabled.adapters.length, 1);
    assert.ok(enabled.adapters[0] instanceof EmailAdapter);
    assert.equal(enabled.adapters[0]?.platform, "email");
    assert.equal(enabled.adapters[0]?.canEdit, false);

    const { EMAIL_SMTP_HOST: _left, ...partial } = world.env();
    const off = context(partial);
    const none = await enabledPlatforms(off.config, { home: off.home, env: off.env, log: () => undefined });
    assert.equal(none.adapters.length, 0);
  } finally {
    await world.close();
  }
});

test("settings: TLS by port, STARTTLS required otherwise, plain text only to loopback, config.yaml extra read too", () => {
  const remote = readEmailSettings(context(REMOTE));
  assert.deepEqual(remote.imap, { host: "imap.example.com", port: 993, implicitTls: true, plain: false });
  assert.deepEqual(remote.smtp, { host: "smtp.example.com", port: 587, implicitTls: false, plain: false });
  assert.equal(remote.pollIntervalMs, 15_000);
  const options = imapOptions(readEmailSettings(context({ ...REMOTE, EMAIL_IMAP_PORT: "143" })));
  assert.equal(options.secure, false);
  assert.equal(options.doSTARTTLS, true, "a login never crosses the wire in the clear");
  assert.equal(options.tls, undefined, "certificate checks stay on");

  assert.throws(
    () => readEmailSettings(context({ ...REMOTE, EMAIL_INSECURE_NO_TLS: "true" })),
    /EMAIL_INSECURE_NO_TLS is allowed only for a mail server on this machine, not imap\.example\.com/,
  );
  assert.throws(() => readEmailSettings(context({ EMAIL_ADDRESS: "a@b.test" })), /set EMAIL_PASSWORD, EMAIL_IMAP_HOST/);
  assert.throws(() => readEmailSettings(context({ ...REMOTE, EMAIL_IMAP_PORT: "99999" })), /not a port number/);

  const fromYaml = readEmailSettings(
    context(
      { EMAIL_PASSWORD: "secret", EMAIL_ALLOWED_USERS: "Alice@Example.com, bob@example.com" },
      [
        "platforms:",
        "  email:",
        "    extra:",
        "      address: agent@example.com",
        "      imap_host: 127.0.0.1",
        "      smtp_host: localhost",
        "      smtp_port: 2525",
        "      poll_interval: 2",
        "      insecure_no_tls: true",
        "",
      ].join("\n"),
    ),
  );
  assert.equal(fromYaml.imap.plain, true);
  assert.equal(fromYaml.smtp.port, 2525);
  assert.equal(fromYaml.pollIntervalMs, 2000);
  assert.deepEqual(fromYaml.allowedSenders, new Set(["alice@example.com", "bob@example.com"]));
});

test("probe: the right password logs in to IMAP and SMTP; a wrong one says so with the app-password hint", async () => {
  const world = await startMailWorld();
  try {
    const good = await platform.probe(context(world.env()), 5000);
    assert.deepEqual(good, { ok: true, detail: `logged in to IMAP and SMTP as ${AGENT_ADDRESS}` });

    const bad = await platform.probe(context(world.env({ EMAIL_PASSWORD: "wrong" })), 5000);
    assert.equal(bad.ok, false);
    assert.match(bad.detail, /IMAP 127\.0\.0\.1:\d+ refused the login/);
    assert.match(bad.hint ?? "", /app password/);
    assert.doesNotMatch(JSON.stringify(bad), /wrong/, "the password is never echoed");

    await world.smtp.close();
    const noSmtp = await platform.probe(context(world.env()), 5000);
    assert.equal(noSmtp.ok, false);
    assert.match(noSmtp.detail, /^SMTP 127\.0\.0\.1:\d+: /);
  } finally {
    await world.imap.close();
  }
});

test("probe without the plain-text opt-in refuses a server that offers no STARTTLS", async () => {
  const world = await startMailWorld();
  try {
    const env = world.env();
    delete (env as Record<string, string | undefined>).EMAIL_INSECURE_NO_TLS;
    const result = await platform.probe(context(env), 5000);
    assert.equal(result.ok, false);
    assert.match(result.detail, /^IMAP 127\.0\.0\.1:\d+: /);
  } finally {
    await world.close();
  }
});
