import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { startFakeProvider } from "../fake-provider/server.js";

/** The first TypeScript block of docs/library.md, exactly as a reader would copy it. */
function libraryExample(): string {
  const doc = readFileSync("docs/library.md", "utf8");
  const match = /```ts\n([\s\S]*?)```/.exec(doc);
  assert.ok(match?.[1], "docs/library.md has a ts example");
  return match[1];
}

test("the library example in docs/library.md runs: the model calls the custom tool and answers", async () => {
  const fake = await startFakeProvider({
    script: [
      { toolCalls: [{ name: "roll_dice", arguments: { sides: 6, count: 3 } }] },
      (req) => {
        const messages = req.body.messages as Array<{ role: string; content: string }>;
        const result = JSON.parse(messages.at(-1)?.content ?? "{}") as { rolls: number[]; total: number };
        return { text: `rolled ${result.rolls.length} dice, total ${result.total}` };
      },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), "hermes-docs-library-"));
  try {
    // Plain JavaScript as written, in a temp project where `hermes-agent` is this package.
    const source = libraryExample().replace("http://localhost:11434/v1", `${fake.url}/v1`);
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(resolve("."), join(dir, "node_modules", "hermes-agent"), "dir");
    const file = join(dir, "example.mjs");
    writeFileSync(file, source);
    try {
      // Asynchronous: the fake provider answers from this process's event loop.
      const { stdout: out } = await promisify(execFile)(process.execPath, [file], {
        env: { ...process.env, HERMES_HOME: dir },
        cwd: dir,
      });
      assert.match(out, /^rolled 3 dice, total (\d+)\n$/);
      const total = Number(/total (\d+)/.exec(out)?.[1]);
      assert.ok(total >= 3 && total <= 18);
    } finally {
      rmSync(file, { force: true });
    }
    const firstRequest = fake.requests[0]?.body as { tools?: Array<{ function: { name: string } }> };
    assert.deepEqual(
      firstRequest.tools?.map((t) => t.function.name),
      ["roll_dice"],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await fake.close();
  }
});
