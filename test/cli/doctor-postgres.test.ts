import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { registerDoctorCommand } from "../../src/cli/commands/doctor.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const doctor = (home: string) => run(registerDoctorCommand, home, ["doctor"]);
const pg = postgresOrSkip();

function homeWithStore(store: string): string {
  const home = tempHome();
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: m\n${store}`,
  );
  return home;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test("doctor names what to set when the postgres backend has no database, and a server that is down, without the password", async () => {
  const saved = process.env.HERMES_DATABASE_URL;
  delete process.env.HERMES_DATABASE_URL;
  try {
    const missing = await doctor(homeWithStore("store:\n  backend: postgres\n"));
    assert.match(
      missing.out,
      /^✗ sessions +store\.backend is postgres but no database is named: set HERMES_DATABASE_URL/m,
    );
    const port = await closedPort();
    const down = await doctor(
      homeWithStore(`store:\n  backend: postgres\n  postgres_url: postgres://u:hunter2@127.0.0.1:${port}/x\n`),
    );
    assert.match(
      down.out,
      new RegExp(`^✗ sessions +cannot open postgres://u:\\*\\*\\*@127\\.0\\.0\\.1:${port}/x`, "m"),
    );
    assert.match(down.out, /check that the server is up/);
    assert.doesNotMatch(down.out, /hunter2/);
    assert.equal(down.exitCode, 1);
  } finally {
    if (saved !== undefined) process.env.HERMES_DATABASE_URL = saved;
  }
});

if (pg) {
  test("doctor connects to the configured PostgreSQL store and brings its schema up to date", async () => {
    const url = await pg.database();
    const result = await doctor(homeWithStore(`store:\n  backend: postgres\n  postgres_url: ${url}\n`));
    assert.match(
      result.out,
      /^✓ sessions +PostgreSQL postgres:\/\/hermes@127\.0\.0\.1:\d+\/\w+: connected, schema current \(0 sessions\)$/m,
    );
  });
}
