import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ChatController } from "../../src/cli/tui/controller.js";
import { expandAlias, quickCommands } from "../../src/runtime/quick-commands.js";
import { RecordingView } from "../cli/recording-view.js";
import { startGateway } from "../gateway/harness.js";

const CONFIG = `quick_commands:
  disk:
    type: exec
    command: "echo disk-ok; echo key=[$OPENAI_API_KEY]"
  failing: {type: exec, command: "echo partial; exit 3"}
  st: {type: alias, target: /status}
  dd: {type: alias, target: disk}
  loop-a: {type: alias, target: /loop-b}
  loop-b: {type: alias, target: /loop-a}
  stop: {type: exec, command: "echo hijacked"}
  "bad name!": {type: exec, command: "true"}
  empty: {type: exec}
`;

test("quick_commands keep only usable entries, and aliases expand with their arguments", () => {
  const problems: string[] = [];
  const commands = quickCommands(
    {
      disk: { type: "exec", command: "df -h /" },
      ss: { target: "sessions" },
      stop: { type: "exec", command: "true" },
      "9lives": { type: "exec", command: "true" },
      nothing: { type: "alias" },
    },
    (name) => name === "stop",
    (problem) => problems.push(problem),
  );
  assert.deepEqual(
    commands.map((c) => [c.name, c.type, c.description]),
    [
      ["disk", "exec", "runs: df -h /"],
      ["ss", "alias", "same as /sessions"],
    ],
  );
  assert.equal(problems.length, 3);
  assert.match(problems.join("\n"), /quick_commands\.stop: \/stop is a built-in command/);
  assert.match(problems.join("\n"), /quick_commands\.9lives: a command name is letters/);
  assert.match(problems.join("\n"), /quick_commands\.nothing: needs type exec with a command, or type alias/);

  const chain = quickCommands(
    { a: { target: "/b" }, b: { target: "/sessions list" }, x: { target: "/y" }, y: { target: "/x" } },
    () => false,
    () => {},
  );
  assert.equal(expandAlias("/a --limit 5", chain), "/sessions list --limit 5");
  assert.equal(expandAlias("/other text", chain), "/other text");
  assert.throws(() => expandAlias("/x", chain), /aliases loop: \/x → \/y → \/x/);
});

test("in a chat, quick commands run without the model, aliases reach built-ins, and built-ins keep their names", async () => {
  const saved = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = "sk-should-not-leak";
  const gw = await startGateway({ provider: { fallback: { text: "model reply" } }, config: CONFIG });
  try {
    gw.adapter.inject({ messageId: "1", text: "/disk" });
    assert.equal(await gw.adapter.waitForText(/^disk-ok/), "disk-ok\nkey=[]");
    gw.adapter.inject({ messageId: "2", text: "/failing" });
    assert.equal(await gw.adapter.waitForText(/^partial/), "partial\n(/failing exited with status 3)");
    gw.adapter.inject({ messageId: "3", text: "/dd" });
    await gw.adapter.waitForText(/^disk-ok/);
    gw.adapter.inject({ messageId: "4", text: "/st" });
    await gw.adapter.waitForText(/model/i);
    gw.adapter.inject({ messageId: "5", text: "/loop-a" });
    await gw.adapter.waitForText(/aliases loop: \/loop-a → \/loop-b → \/loop-a/);
    gw.adapter.inject({ messageId: "6", text: "/help" });
    const help = await gw.adapter.waitForText(/^Commands:/);
    assert.match(help, /\/disk — runs: echo disk-ok/);
    assert.match(help, /\/st — same as \/status/);
    assert.doesNotMatch(help, /hijacked/);
    assert.equal(
      gw.fake.requests.filter((req) => Array.isArray(req.body?.messages)).length,
      0,
      "no quick command called the model",
    );
  } finally {
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
    await gw.close();
  }
});

test("in the terminal, quick commands print their output and aliases run the command they stand for", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-quick-cli-"));
  const savedHome = process.env.HERMES_HOME;
  process.env.HERMES_HOME = home;
  writeFileSync(join(home, "config.yaml"), CONFIG);
  try {
    const view = new RecordingView();
    const chat = await ChatController.create(
      { provider: "custom", baseUrl: "http://127.0.0.1:9/v1", apiKey: "k", model: "m" },
      view,
      { localServers: false },
    );
    try {
      assert.ok(view.printed.some((line) => /quick_commands\.stop: \/stop is a built-in command/.test(line)));
      await chat.submit("/disk");
      assert.equal(view.printed.at(-1), "disk-ok\nkey=[]");
      await chat.submit("/dd");
      assert.equal(view.printed.at(-1), "disk-ok\nkey=[]");
      await chat.submit("/loop-b");
      assert.match(view.printed.at(-1) ?? "", /aliases loop/);
    } finally {
      await chat.close();
    }
  } finally {
    if (savedHome === undefined) delete process.env.HERMES_HOME;
    else process.env.HERMES_HOME = savedHome;
    rmSync(home, { recursive: true, force: true });
  }
});
