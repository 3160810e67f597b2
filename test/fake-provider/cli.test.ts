/** The fake provider as a process: URL on the first stdout line, script file, clean stop on SIGTERM. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("./cli.ts", import.meta.url));

test("serves a script file and stops on SIGTERM", { timeout: 10_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "fake-provider-cli-"));
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify([{ text: "from the script" }]));
  const child = spawn(process.execPath, ["--import", "tsx", cli, "--port", "0", "--script", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const [firstLine] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
    const match = /^fake provider listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(firstLine);
    assert.ok(match, `unexpected first line: ${firstLine}`);
    const ask = async () => {
      const res = await fetch(`${match[1]}/v1/chat/completions`, { method: "POST", body: '{"model":"m"}' });
      return ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content;
    };
    assert.equal(await ask(), "from the script");
    assert.equal(await ask(), "ok");
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    assert.deepEqual(await exited, [0, null]);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});

test("rejects a script that is not a JSON array with exit code 2", { timeout: 10_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "fake-provider-cli-"));
  const script = join(dir, "script.json");
  writeFileSync(script, '{"text":"not a list"}');
  const child = spawn(process.execPath, ["--import", "tsx", cli, "--script", script], { stdio: "pipe" });
  let stderr = "";
  child.stderr.on("data", (data: Buffer) => {
    stderr += data.toString();
  });
  const [code] = await once(child, "exit");
  assert.equal(code, 2);
  assert.match(stderr, /must hold a JSON array/);
});
