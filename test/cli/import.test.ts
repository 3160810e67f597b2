import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { postgresOrSkip } from "../helpers/postgres.js";
import { runNode } from "../helpers/run-node.js";
import { writeOriginalStateDb } from "../state/original-state-db.js";
import { tempDir } from "../state/temp-dir.js";

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

const pg = postgresOrSkip();

/** Imports into the store config.yaml names (`store` lines added to it), twice, then lists what came over. */
async function importsSessionsAndJobs(storeConfig: string): Promise<string> {
  const home = tempDir("hermes-import-cli-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n${storeConfig}`,
  );
  const stateDb = join(home, "state.db");
  writeOriginalStateDb(stateDb, [
    {
      id: "20250301_101500_a1b2c3",
      title: "An old chat",
      startedAt: 1_740_824_100,
      messages: [
        { role: "user", content: "hello from the original" },
        { role: "assistant", content: "hi" },
      ],
    },
  ]);
  mkdirSync(join(home, "cron"));
  const jobs = join(home, "cron", "jobs.json");
  writeFileSync(
    jobs,
    JSON.stringify({
      jobs: [{ id: "a1b2c3d4e5f6", prompt: "p", schedule: { kind: "interval", minutes: 60 }, deliver: "local" }],
    }),
  );
  const before = [sha(stateDb), sha(jobs)];
  const env = { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" };
  const hermes = (...args: string[]) => runNode(["dist/cli/main.js", ...args], { env });

  const first = await hermes("import", "hermes-python");
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /sessions: 1 in the source; 1 added/);
  assert.match(first.stdout, /messages: 2 in the source; 2 added/);
  assert.match(first.stdout, /✓ every added session holds as many messages as the source/);
  assert.match(first.stdout, /Cron jobs, from .*jobs\.json: 1 in the file; 1 added/);
  const second = await hermes("import", "hermes-python");
  assert.match(second.stdout, /sessions: 1 in the source; 0 added, 0 with new messages, 1 already here/);
  assert.match(second.stdout, /1 in the file; 0 added, 1 already here/);
  assert.deepEqual([sha(stateDb), sha(jobs)], before);

  const listed = await hermes("sessions", "list");
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /An old chat/);
  assert.match((await hermes("cron", "list")).stdout, /a1b2c3d4e5f6/);
  return first.stdout;
}

test("hermes import hermes-python copies sessions and cron jobs, reports counts, and changes neither file", async () => {
  const output = await importsSessionsAndJobs("");
  assert.match(output, /into .*store\.db:/);
});

if (pg) {
  test("with store.backend postgres, hermes import hermes-python copies into PostgreSQL", async () => {
    const url = await pg.database();
    const output = await importsSessionsAndJobs(`store:\n  backend: postgres\n  postgres_url: ${url}\n`);
    assert.match(output, /into postgres(ql)?:\/\//);
  });
}

test("hermes import hermes-python --from refuses a file that is not the original's", async () => {
  const home = tempDir("hermes-import-cli-");
  const notOriginal = join(home, "notes.txt");
  writeFileSync(notOriginal, "hello");
  const run = await runNode(["dist/cli/main.js", "import", "hermes-python", "--from", notOriginal], {
    env: { ...process.env, HERMES_HOME: home },
  });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /is not a session database of the original Python Hermes/);
});
