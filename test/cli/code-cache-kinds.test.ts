import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { runNode } from "../helpers/run-node.js";

let fake: FakeProvider;
let root: string;

before(async () => {
  // A one-shot prompt saying "echo" gets a terminal call first, as the bench's one-shot task does.
  fake = await startFakeProvider({
    fallback: (req) => {
      const messages = (req.body.messages ?? []) as Array<{ role: string; content: unknown }>;
      const asked = JSON.stringify(messages.filter((m) => m.role === "user")).includes("echo");
      return asked && !messages.some((m) => m.role === "tool")
        ? { toolCalls: [{ name: "terminal", arguments: { command: "echo from-the-tool" } }] }
        : { text: "Done." };
    },
  });
  // The built CLI in a package of its own, so its code caches are this test's alone.
  root = mkdtempSync(join(tmpdir(), "hermes-cache-kinds-"));
  mkdirSync(join(root, "dist", "cli"), { recursive: true });
  for (const file of ["main.js", "hermes.cjs", "hermes-more.cjs"])
    copyFileSync(resolve("dist/cli", file), join(root, "dist", "cli", file));
  copyFileSync(resolve("package.json"), join(root, "package.json"));
  symlinkSync(resolve("node_modules"), join(root, "node_modules"));
  symlinkSync(resolve("skills"), join(root, "skills"));
});
after(async () => {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

function caches(): string[] {
  return readdirSync(join(root, "dist", "cli"))
    .filter((name) => name.endsWith(".v8cache"))
    .map((name) => name.replace(/^hermes-[0-9a-f]+-/, "").replace(/-v8-.*$/, ""))
    .sort();
}

async function hermes(home: string, ...args: string[]): Promise<void> {
  const run = await runNode([join(root, "dist", "cli", "main.js"), ...args], {
    env: { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" },
  });
  assert.equal(run.code, 0, run.stderr);
}

test("chat runs keep a code cache only once a turn has run; one-shot, interactive and other commands each have their own", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-cache-kinds-home-"));
  try {
    writeFileSync(join(home, "config.yaml"), `model:\n  provider: custom\n  base_url: ${fake.url}/v1\n  default: m\n`);
    await hermes(home, "chat", "--help");
    await hermes(home, "-q", "hi", "--help");
    assert.deepEqual(caches(), [], "help compiled little of what a chat needs");
    await hermes(home, "chat", "-q", "run echo in the terminal");
    assert.ok(
      fake.requests.some((r) => r.rawBody.includes("from-the-tool")),
      "the one-shot run made its terminal call",
    );
    assert.deepEqual(caches(), ["oneshot"], "a one-shot run needs only the first bundle");
    await hermes(home, "sessions", "list");
    // Listing sessions is code of the second bundle, which keeps a cache of its own.
    assert.deepEqual(caches(), ["command", "command-more", "oneshot"]);
    // An interactive chat that sends one message, then sees the end of its input.
    await runNode([join(root, "dist", "cli", "main.js"), "chat"], {
      env: { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" },
      stdin: "hello\n",
    });
    assert.deepEqual(caches(), ["chat", "chat-more", "command", "command-more", "oneshot"]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
