import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { connect, type HermesHome, makeHome, type ServedHermes, textOf } from "./harness.js";

let fake: FakeProvider;
let dirs: HermesHome;
let served: ServedHermes;

before(async () => {
  fake = await startFakeProvider({});
  dirs = makeHome(fake);
  served = await connect(dirs.home, ["--yolo", "--toolsets", "terminal"]);
});

after(async () => {
  await served?.close();
  await fake.close();
});

test("with --yolo a command that needs approval runs", async () => {
  const victim = join(dirs.work, "victim");
  mkdirSync(victim);
  const result = await served.client.callTool({ name: "terminal", arguments: { command: "rm -rf victim" } });
  assert.notEqual(result.isError, true, textOf(result));
  assert.equal(JSON.parse(textOf(result)).exit_code, 0);
  assert.ok(!existsSync(victim), "the directory is gone");
});

test("--yolo still refuses a hardline-blocked command", async () => {
  const result = await served.client.callTool({ name: "terminal", arguments: { command: "rm -rf /" } });
  assert.equal(result.isError, true);
  assert.match(textOf(result), /BLOCKED/);
});

test("--toolsets narrows the served tools", async () => {
  const names = (await served.client.listTools()).tools.map((tool) => tool.name).sort();
  assert.deepEqual(names, ["chat", "process", "session_read", "sessions_list", "sessions_search", "terminal"]);
});
