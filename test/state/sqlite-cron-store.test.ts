import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { type CronStore, openCronStore } from "../../src/state/cron-store.js";
import { cronStoreContract, job } from "./cron-store-contract.js";
import { runModuleWorker } from "./module-worker.js";
import { tempDir } from "./temp-dir.js";

const STORE_MODULE = pathToFileURL(join(import.meta.dirname, "..", "..", "src", "state", "cron-store.ts")).href;

async function fresh(): Promise<{ store: CronStore; path: string }> {
  const path = join(tempDir(), "state.db");
  return { store: await openCronStore(path), path };
}

cronStoreContract("sqlite", async () => {
  const { store, path } = await fresh();
  return { store, reopen: () => openCronStore(path), other: () => openCronStore(path) };
});

test("two processes claiming the same fires at once fire each exactly once", async () => {
  const { store, path } = await fresh();
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) ids.push((await store.createJob(job(`j${i}`, 1000))).id);
  store.close();
  const worker = `
    const [moduleUrl, path, list] = process.argv.slice(1);
    const { openCronStore } = await import(moduleUrl);
    const store = await openCronStore(path);
    const won = [];
    for (const id of JSON.parse(list)) {
      if (await store.claimFire(id, 1000, 5000)) won.push(id);
    }
    store.close();
    console.log(JSON.stringify(won));
  `;
  const run = async () =>
    JSON.parse(await runModuleWorker(worker, [STORE_MODULE, path, JSON.stringify(ids)])) as string[];
  const [a, b] = await Promise.all([run(), run()]);
  assert.deepEqual([...a, ...b].sort(), [...ids].sort());
  const reopened = await openCronStore(path);
  assert.equal((await reopened.unfinishedRuns()).length, 30, "one run record per job");
  reopened.close();
});
