import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { registerTerminalTools, type TerminalResult } from "../../src/tools/builtin/terminal.js";
import { withholdFromCommands } from "../../src/tools/process-group.js";
import { ProcessManager } from "../../src/tools/process-manager.js";
import type { ToolContext } from "../../src/tools/registry.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import {
  captureShellInit,
  configureShellInit,
  expandPath,
  parseCapture,
  shellInitFiles,
} from "../../src/tools/shell-init.js";
import { tempDir } from "../state/temp-dir.js";
import { makeCtx } from "./process-helpers.js";

const processManager = new ProcessManager({ killGraceMs: 500 });
after(() => {
  processManager.dispose();
  configureShellInit({ files: [], autoSourceBashrc: false });
  withholdFromCommands([]);
});

function terminal() {
  const registry = new ToolRegistry();
  registerTerminalTools(registry, { processManager, killGraceMs: 500 });
  const spec = registry.get("terminal")!;
  return async (args: Record<string, unknown>, ctx: ToolContext): Promise<TerminalResult> =>
    JSON.parse(await spec.handler(spec.parameters.parse(args), ctx)) as TerminalResult;
}

/** A start-up file that puts a tool on PATH, exports a variable and defines a function and an alias. */
function userSetup(): { file: string; binDir: string } {
  const dir = tempDir("hermes-shell-init-");
  const binDir = join(dir, "bin");
  mkdirSync(binDir);
  writeFileSync(join(binDir, "mytool"), "#!/bin/sh\necho mytool-ran\n");
  chmodSync(join(binDir, "mytool"), 0o755);
  const file = join(dir, "setup.sh");
  writeFileSync(
    file,
    [
      `export PATH="${binDir}:$PATH"`,
      "export HERMES_TEST_FROM_RC=from-rc",
      "export HERMES_TEST_RC_SECRET=sk-test-should-not-leak-0123456789",
      'greet() { echo "hello $1"; }',
      "alias shout='echo LOUD'",
      "echo 'noise from the start-up file'",
      "",
    ].join("\n"),
  );
  return { file, binDir };
}

describe("which start-up files", () => {
  const home = tempDir("hermes-shell-home-");
  writeFileSync(join(home, ".profile"), "");
  writeFileSync(join(home, ".bashrc"), "");

  // biome-ignore lint/suspicious/noTemplateCurlyInString: the test names a shell parameter expansion
  test("expands ~ and $VAR / ${VAR} in a path the way a shell would", () => {
    const env = { ROOT: "/opt/x" };
    assert.equal(expandPath("~", env, "/home/u"), "/home/u");
    assert.equal(expandPath("~/.nvm/nvm.sh", env, "/home/u"), "/home/u/.nvm/nvm.sh");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell parameter expansion
    assert.equal(expandPath("${ROOT}/env.sh", env, "/home/u"), "/opt/x/env.sh");
    assert.equal(expandPath("$ROOT/a/$MISSING/b", env, "/home/u"), "/opt/x/a//b");
    assert.equal(expandPath("/etc/~x", env, "/home/u"), "/etc/~x");
  });

  test("the usual files that exist, in order, only while auto_source_bashrc is on", () => {
    const files = shellInitFiles({ files: [], autoSourceBashrc: true }, {}, home);
    assert.deepEqual(files, [join(home, ".profile"), join(home, ".bashrc")]);
    assert.deepEqual(shellInitFiles({ files: [], autoSourceBashrc: false }, {}, home), []);
  });

  test("named files replace the usual ones; missing ones are skipped", () => {
    const named = join(home, "tools.sh");
    writeFileSync(named, "");
    const files = shellInitFiles(
      { files: ["~/tools.sh", "~/missing.sh", "$NOWHERE/x.sh", ""], autoSourceBashrc: true },
      {},
      home,
    );
    assert.deepEqual(files, [named]);
  });
});

describe("capturing what the files set", () => {
  test("reads exported variables and keeps functions and aliases for BASH_ENV", async () => {
    const { file, binDir } = userSetup();
    const snapshot = await captureShellInit([file]);
    assert.ok(snapshot);
    assert.equal(snapshot.env.HERMES_TEST_FROM_RC, "from-rc");
    assert.ok(snapshot.env.PATH?.startsWith(`${binDir}:`));
    assert.equal(snapshot.env.PWD, undefined, "the capturing shell's own variables are not kept");
    const definitions = readFileSync(snapshot.definitionsFile!, "utf8");
    assert.match(definitions, /greet \(\)/);
    assert.match(definitions, /alias shout='echo LOUD'/);
    assert.match(definitions, /^shopt -s expand_aliases$/m);
    assert.match(definitions, /^unset BASH_ENV$/m);
    assert.doesNotMatch(definitions, /noise from the start-up file/);
  });

  test("a file that stops at a non-interactive guard still contributes what came before it", async () => {
    const dir = tempDir("hermes-shell-guard-");
    const file = join(dir, "bashrc");
    writeFileSync(file, "export BEFORE_GUARD=yes\ncase $- in *i*) ;; *) return;; esac\nexport AFTER_GUARD=yes\n");
    const snapshot = await captureShellInit([file]);
    assert.equal(snapshot?.env.BEFORE_GUARD, "yes");
    assert.equal(snapshot?.env.AFTER_GUARD, undefined);
  });

  test("a file that exits or hangs gives nothing, and quickly", async () => {
    const dir = tempDir("hermes-shell-bad-");
    const exits = join(dir, "exits.sh");
    writeFileSync(exits, "export HALF=1\nexit 3\n");
    assert.equal(await captureShellInit([exits]), undefined);
    const hangs = join(dir, "hangs.sh");
    writeFileSync(hangs, "sleep 30\n");
    const started = Date.now();
    assert.equal(await captureShellInit([hangs], 300), undefined);
    assert.ok(Date.now() - started < 10_000, "the capture gave up instead of waiting for the file");
  });

  test("values with newlines and = survive the round trip", () => {
    const parsed = parseCapture("f () \n{ :; }\0A=1\0MULTI=line one\nline=two\0PWD=/x\0\0");
    assert.deepEqual(parsed, { definitions: "f () \n{ :; }", env: { A: "1", MULTI: "line one\nline=two" } });
    assert.equal(parseCapture("no separator: the script never got there"), undefined);
  });
});

describe("the terminal tool with a shell set-up", () => {
  test("commands find the PATH addition, the variable, the function and the alias, but not withheld keys", async () => {
    const { file } = userSetup();
    withholdFromCommands(["HERMES_TEST_RC_SECRET"]);
    configureShellInit({ files: [file], autoSourceBashrc: false });
    const run = terminal();
    const ctx = makeCtx();
    const result = await run(
      {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell parameter expansion
        command: 'mytool; echo "$HERMES_TEST_FROM_RC"; greet you; shout; echo "secret=${HERMES_TEST_RC_SECRET:-none}"',
      },
      ctx,
    );
    assert.equal(result.exit_code, 0, result.output);
    assert.equal(result.output, "mytool-ran\nfrom-rc\nhello you\nLOUD\nsecret=none\n");
  });

  test("scripts a command starts do not inherit the functions (BASH_ENV is not passed on)", async () => {
    const { file } = userSetup();
    configureShellInit({ files: [file], autoSourceBashrc: false });
    const ctx = makeCtx();
    writeFileSync(join(ctx.cwd, "check.sh"), "type greet >/dev/null 2>&1 || echo no-greet\n");
    const result = await terminal()({ command: "greet top; bash check.sh" }, ctx);
    assert.equal(result.output, "hello top\nno-greet\n", JSON.stringify(result));
  });

  test("background commands get the same environment", async () => {
    const { file } = userSetup();
    configureShellInit({ files: [file], autoSourceBashrc: false });
    const ctx = makeCtx();
    const started = await terminal()({ command: "mytool", background: true }, ctx);
    assert.ok(started.session_id);
    const done = await processManager.wait(started.session_id, 10_000);
    assert.match(done.output ?? "", /mytool-ran/);
  });

  test("a broken start-up file leaves commands working with the plain environment", async () => {
    const dir = tempDir("hermes-shell-broken-");
    const file = join(dir, "broken.sh");
    writeFileSync(file, "export HERMES_TEST_FROM_RC=half\nexit 1\n");
    configureShellInit({ files: [file], autoSourceBashrc: false });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell parameter expansion
    const result = await terminal()({ command: 'echo "rc=${HERMES_TEST_FROM_RC:-unset}"' }, makeCtx());
    assert.equal(result.output, "rc=unset\n");
  });
});
