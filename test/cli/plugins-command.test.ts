import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerHooksCommands } from "../../src/cli/commands/hooks.js";
import { registerPluginsCommands } from "../../src/cli/commands/plugins.js";
import { startFakeProvider } from "../fake-provider/server.js";
import { runNode } from "../helpers/run-node.js";
import { installDocsExample, writePlugin } from "../runtime/plugin-fixtures.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const BROKEN = "export function register(api) {\n  api.registerTool({ name: 'x',\n";

function hermes(home: string, args: string[]) {
  return runNode(["dist/cli/main.js", ...args], { env: { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" } });
}

test("plugins list shows what each plugin registers and a syntax error with its file; it exits 1 on a failure", async () => {
  const home = tempHome();
  installDocsExample(home);
  writePlugin(home, "broken", BROKEN);
  const listed = await run(registerPluginsCommands, home, ["plugins", "list"]);
  assert.match(listed.out, /word-tools 1\.0\.0 {2}\[loaded\]/);
  assert.match(listed.out, /registers: tool count_words, hook pre_tool_call, command \/wordcount/);
  assert.match(listed.out, /broken 0\.1\.0 {2}\[FAILED\]/);
  assert.equal(listed.exitCode, 1);
});

test("plugins install copies a directory, disable/enable toggle it, remove deletes it", async () => {
  const home = tempHome();
  const source = join(tempHome(), "src-plugin");
  writePlugin(source, "ignored", "");
  mkdirSync(join(source, "x"), { recursive: true });
  writeFileSync(join(source, "x", "plugin.yaml"), "name: copied-plugin\nversion: 3.1.0\n");
  writeFileSync(
    join(source, "x", "index.js"),
    "export function register(api) { api.registerCommand({ name: 'hi', description: 'd', run: () => 'hi' }); }",
  );
  const installed = await run(registerPluginsCommands, home, ["plugins", "install", join(source, "x")]);
  assert.match(installed.out, /Installed copied-plugin 3\.1\.0 \(directory\)/);
  assert.ok(existsSync(join(home, "plugins", "copied-plugin", "index.js")));
  const again = await run(registerPluginsCommands, home, ["plugins", "install", join(source, "x")]);
  assert.equal(again.exitCode, 1);
  assert.match(again.err, /already exists; pass --force/);

  await run(registerPluginsCommands, home, ["plugins", "disable", "copied-plugin"]);
  assert.match(readFileSync(join(home, "config.yaml"), "utf8"), /disabled:\s*\n\s*- copied-plugin/);
  assert.match((await run(registerPluginsCommands, home, ["plugins", "list"])).out, /\[disabled\]/);
  await run(registerPluginsCommands, home, ["plugins", "enable", "copied-plugin"]);
  assert.match((await run(registerPluginsCommands, home, ["plugins", "list"])).out, /\[loaded\]/);
  assert.doesNotMatch(
    readFileSync(join(home, "config.yaml"), "utf8"),
    /enabled:\s*\n\s*- copied-plugin/,
    "a directory plugin needs no plugins.enabled entry",
  );

  const removed = await run(registerPluginsCommands, home, ["plugins", "remove", "copied-plugin"]);
  assert.match(removed.out, /Removed copied-plugin/);
  assert.equal(existsSync(join(home, "plugins", "copied-plugin")), false);
});

test("plugins install of a tarball uses npm into HERMES_HOME and names the package in plugins.enabled", async () => {
  const home = tempHome();
  const pkg = join(tempHome(), "pkg");
  mkdirSync(pkg);
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "hermes-plugin-tarred",
      version: "1.2.3",
      type: "module",
      main: "index.js",
      description: "from a tarball",
    }),
  );
  writeFileSync(
    join(pkg, "index.js"),
    "export function register(api) { api.registerCommand({ name: 'tar', description: 'd', run: () => 'tarred' }); }",
  );
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", pkg], {
    cwd: pkg,
    encoding: "utf8",
  }).trim();
  const installed = await run(registerPluginsCommands, home, ["plugins", "install", join(pkg, tarball)]);
  assert.equal(installed.exitCode, undefined, installed.err);
  assert.match(installed.out, /Installed hermes-plugin-tarred 1\.2\.3 \(npm\)/);
  assert.match(readFileSync(join(home, "config.yaml"), "utf8"), /enabled:\s*\n\s*- hermes-plugin-tarred/);
  const info = await run(registerPluginsCommands, home, ["plugins", "info", "hermes-plugin-tarred"]);
  assert.match(info.out, /\[loaded\] {2}npm:/);
  assert.match(info.out, /registers: command \/tar/);
});

test("hooks approve needs explicit ids or --all; list shows approval; test runs an approved hook", async () => {
  const home = tempHome();
  writeFileSync(
    join(home, "config.yaml"),
    'hooks:\n  pre_tool_call:\n    - command: "echo \'{\\"block\\": \\"not now\\"}\'"\n',
  );
  const before = await run(registerHooksCommands, home, ["hooks", "list"]);
  assert.match(before.out, /pre_tool_call {2}shell [0-9a-f]{16} {2}NOT APPROVED/);
  const tested = await run(registerHooksCommands, home, ["hooks", "test", "pre_tool_call"]);
  assert.match(tested.out, /skipped, not approved/);
  await assert.rejects(run(registerHooksCommands, home, ["hooks", "approve"]), /await approval/);
  const id = /shell ([0-9a-f]{16})/.exec(before.out)![1]!;
  const approved = await run(registerHooksCommands, home, ["hooks", "approve", id]);
  assert.match(approved.out, new RegExp(`approved pre_tool_call ${id}`));
  assert.match((await run(registerHooksCommands, home, ["hooks", "list"])).out, /approved/);
  const ran = await run(registerHooksCommands, home, ["hooks", "test", "pre_tool_call"]);
  assert.match(ran.out, /shell [0-9a-f]{16}: \{"block":"not now"\}/);
  writeFileSync(join(home, "config.yaml"), 'hooks:\n  pre_tool_call: "echo changed"\n');
  assert.match(
    (await run(registerHooksCommands, home, ["hooks", "list"])).out,
    /NOT APPROVED/,
    "an edited command needs a new approval",
  );
});

test("through the built CLI: a one-shot run uses the docs example's tool, doctor names a broken plugin, a plugin adds a subcommand", async () => {
  const home = tempHome();
  installDocsExample(home);
  writePlugin(
    home,
    "clitool",
    "export function register(api) { api.registerCliCommand({ name: 'shout', description: 'd', run: (argv, io) => { io.out(argv.join(' ').toUpperCase()); return 3; } }); }",
  );
  const fake = await startFakeProvider({
    script: [{ toolCalls: [{ name: "count_words", arguments: { text: "alpha beta" } }] }, { text: "two words" }],
  });
  try {
    const oneShot = await hermes(home, [
      "chat",
      "-q",
      "count",
      "--provider",
      "custom",
      "--base-url",
      `${fake.url}/v1`,
      "--model",
      "m",
      "-Q",
    ]);
    assert.equal(oneShot.code, 0, oneShot.stderr);
    assert.equal(oneShot.stdout.trim(), "two words");
    const toolResult = (fake.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === "tool",
    );
    assert.equal(toolResult?.content, '{"words":2}');

    const shout = await hermes(home, ["shout", "hello", "there"]);
    assert.equal(shout.code, 3);
    assert.equal(shout.stdout.trim(), "HELLO THERE");
    const unknown = await hermes(home, ["shuot"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command 'shuot'/);

    writePlugin(home, "broken", BROKEN);
    writeFileSync(join(home, "config.yaml"), `model:\n  default: m\n  provider: custom\n  base_url: ${fake.url}/v1\n`);
    const doctor = await hermes(home, ["doctor", "--timeout", "2000"]);
    assert.match(doctor.stdout, /✗ plugin +broken: SyntaxError: .*broken\/index\.js/);
    assert.match(doctor.stdout, /✓ plugin +word-tools loads/);
  } finally {
    await fake.close();
  }
});

test("in the terminal's line mode a plugin's slash command answers, /help lists it, and leaving ends the session for hooks", async () => {
  const home = tempHome();
  installDocsExample(home);
  writePlugin(
    home,
    "ender",
    `import { writeFileSync } from "node:fs";
import { join } from "node:path";
export function register(api) {
  api.on("on_session_end", (p) => writeFileSync(join(api.home, "ended.txt"), p.reason + " " + p.messages));
}`,
  );
  const fake = await startFakeProvider({ fallback: { text: "hi back" } });
  try {
    const args = ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--model", "m"];
    const run = await runNode(["dist/cli/main.js", ...args], {
      env: { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" },
      stdin: "/wordcount one two three\n/help\nhello\n",
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^3 words$/m);
    assert.match(run.stdout, /\/wordcount TEXT +Count the words in TEXT \(plugin word-tools\)/);
    assert.match(run.stdout, /hi back/);
    assert.equal(readFileSync(join(home, "ended.txt"), "utf8"), "closed 2");
  } finally {
    await fake.close();
  }
});
