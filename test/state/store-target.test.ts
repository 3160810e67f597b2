import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError } from "../../src/state/config-load.js";
import { resolveStoreLocation } from "../../src/state/store-target.js";

const home = "/home/someone/.hermes";

test("the embedded store is state.db in the home unless config.yaml says postgres", () => {
  const env = { HERMES_DATABASE_URL: "postgres://ignored@db/x" };
  assert.equal(
    resolveStoreLocation(home, { backend: "sqlite", postgres_url: "postgres://a@b/c" }, env),
    join(home, "state.db"),
  );
});

test("with the postgres backend, HERMES_DATABASE_URL wins over store.postgres_url", () => {
  const store = { backend: "postgres" as const, postgres_url: "postgres://config@db:5432/hermes" };
  assert.equal(resolveStoreLocation(home, store, {}), "postgres://config@db:5432/hermes");
  assert.equal(
    resolveStoreLocation(home, store, { HERMES_DATABASE_URL: "postgresql://env@db/hermes" }),
    "postgresql://env@db/hermes",
  );
});

test("the postgres backend without a usable URL is a config error that says what to set, without the password", () => {
  assert.throws(
    () => resolveStoreLocation(home, { backend: "postgres", postgres_url: "" }, {}),
    (error: unknown) =>
      error instanceof ConfigError && /set HERMES_DATABASE_URL or store\.postgres_url/.test(error.message),
  );
  assert.throws(
    () => resolveStoreLocation(home, { backend: "postgres", postgres_url: "mysql://u:secret@db/x" }, {}),
    (error: unknown) =>
      error instanceof ConfigError &&
      /not a postgres:\/\/ URL/.test(error.message) &&
      !error.message.includes("secret"),
  );
});

test("the gateway store opens a PostgreSQL location as a database, never as a file named after the URL", async () => {
  const { openGatewayStore } = await import("../../src/state/gateway-store.js");
  await assert.rejects(
    openGatewayStore("postgres://hermes@127.0.0.1:9/hermes"),
    /cannot use the PostgreSQL store at postgres:\/\/hermes@127\.0\.0\.1:9\/hermes/,
  );
  const { existsSync } = await import("node:fs");
  assert.equal(existsSync("postgres:"), false, "nothing was created in the working directory");
});
