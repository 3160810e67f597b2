// The terminal's carried shell state (terminal.persistent_shell): real bash, real files.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { registerTerminalTools, type TerminalResult } from "../../src/tools/builtin/terminal.js";
import { withholdFromCommands } from "../../src/tools/process-group.js";
import { ProcessManager } from "../../src/tools/process-manager.js";
import type { ToolContext } from "../../src/tools/registry.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { configureSandbox, type SandboxPolicy } from "../../src/tools/sandbox.js";
import { resetShellStates, shellStateFor } from "../../src/tools/shell-state.js";

const processManager = new ProcessManager({ killGraceMs: 200 });
const root = realpathSync(mkdtempSync(join(tmpdir(), "hermes-shell-state-")));
after(() => {
  processManager.dispose();
  configureSandbox(undefined);
  withholdFromCommands([]);
  rmSync(root, { recursive: true, force: true });
});

let sessions = 0;
/** A terminal bound to a fresh session and a fresh working directory. */
function session(options: { persistentShell?: boolean } = {}) {
  const registry = new ToolRegistry();
  registerTerminalTools(registry, { processManager, killGraceMs: 200, ...options });
  const spec = registry.get("terminal")!;
  const cwd = join(root, `session-${++sessions}`);
  mkdirSync(join(cwd, "sub", "deeper"), { recursive: true });
  const ctx: ToolContext = { cwd, sessionId: `s-${sessions}`, signal: new AbortController().signal };
  const run = async (args: Record<string, unknown>, at: ToolContext = ctx): Promise<TerminalResult> =>
    JSON.parse(await spec.handler(spec.parameters.parse(args), at)) as TerminalResult;
  return { run, cwd, ctx };
}

describe("terminal: what a command leaves for the next", () => {
  test("the directory after cd carries over, and the result says where the shell is", async () => {
    const { run, cwd } = session();
    const first = await run({ command: "cd sub && echo moved" });
    assert.equal(first.output.trim(), "moved");
    assert.equal(first.cwd, join(cwd, "sub"));
    assert.equal((await run({ command: "pwd" })).output.trim(), join(cwd, "sub"));
    assert.equal((await run({ command: "cd deeper; pwd" })).output.trim(), join(cwd, "sub", "deeper"));
    const back = await run({ command: `cd ${cwd}` });
    assert.equal(back.cwd, undefined, "back in the working directory: no cwd field");
    assert.equal((await run({ command: "pwd" })).output.trim(), cwd);
  });

  test("exported variables carry over, unset ones stay unset, plain shell variables do not", async () => {
    const { run } = session();
    await run({ command: "export GREETING='hello there'; PLAIN=1; export HOME_COPY=$HOME" });
    assert.equal((await run({ command: 'echo "$GREETING|${PLAIN:-none}"' })).output.trim(), "hello there|none");
    await run({ command: "unset GREETING" });
    assert.equal((await run({ command: 'echo "${GREETING:-gone}"' })).output.trim(), "gone");
  });

  test("a sourced activate script's PATH stays active", async () => {
    const { run, cwd } = session();
    const bin = join(cwd, "venv", "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "activate"), `export VIRTUAL_ENV=${join(cwd, "venv")}\nexport PATH="${bin}:$PATH"\n`);
    writeFileSync(join(bin, "tool-in-venv"), "#!/bin/sh\necho from the venv\n", { mode: 0o755 });
    await run({ command: "source venv/bin/activate" });
    assert.equal((await run({ command: "tool-in-venv" })).output.trim(), "from the venv");
    assert.equal((await run({ command: 'echo "$VIRTUAL_ENV"' })).output.trim(), join(cwd, "venv"));
  });

  test("workdir applies to one command; its exports still carry over", async () => {
    const { run, cwd } = session();
    const once = await run({ command: "pwd; export FROM_WORKDIR=yes; cd deeper", workdir: "sub" });
    assert.equal(once.output.trim(), join(cwd, "sub"));
    assert.equal(once.cwd, undefined);
    assert.equal((await run({ command: 'pwd; echo "$FROM_WORKDIR"' })).output.trim(), `${cwd}\nyes`);
  });

  test("a command that fails still carries over; one that exits the shell, times out or is killed does not", async () => {
    const { run, cwd } = session();
    const failed = await run({ command: "cd sub && export A=1 && false" });
    assert.equal(failed.exit_code, 1);
    assert.equal(failed.cwd, join(cwd, "sub"));
    await run({ command: "cd deeper; export B=2; exit 3" });
    const timedOut = await run({ command: "cd /; export C=3; sleep 5", timeout: 1 });
    assert.equal(timedOut.exit_code, 124);
    assert.equal(timedOut.cwd, join(cwd, "sub"));
    assert.equal((await run({ command: 'pwd; echo "${A:-}${B:-}${C:-}"' })).output.trim(), `${join(cwd, "sub")}\n1`);
  });

  test("each session has its own shell state", async () => {
    const a = session();
    const b = session();
    await a.run({ command: "cd sub; export ONLY_A=1" });
    const other = await b.run({ command: 'pwd; echo "${ONLY_A:-unset}"' });
    assert.equal(other.output.trim(), `${b.cwd}\nunset`);
  });

  test("a directory that disappeared sends the next command back to the working directory, with a note", async () => {
    const { run, cwd } = session();
    mkdirSync(join(cwd, "doomed"));
    await run({ command: "cd doomed" });
    rmSync(join(cwd, "doomed"), { recursive: true });
    const next = await run({ command: "pwd" });
    assert.match(next.output, /doomed, where the last command ended, no longer exists: running in/);
    assert.equal(next.output.trim().split("\n").at(-1), cwd);
    assert.equal(next.cwd, undefined);
  });

  test("the agent's withheld keys and the forced pager settings never carry over", async () => {
    withholdFromCommands(["HERMES_TEST_PROVIDER_KEY"]);
    try {
      const { run } = session();
      await run({ command: "export HERMES_TEST_PROVIDER_KEY=sk-test-123 PAGER=less GIT_TERMINAL_PROMPT=1" });
      const next = await run({ command: 'echo "${HERMES_TEST_PROVIDER_KEY:-withheld} $PAGER $GIT_TERMINAL_PROMPT"' });
      assert.equal(next.output.trim(), "withheld cat 0");
    } finally {
      withholdFromCommands([]);
    }
  });

  test("background commands start where the session's shell is, with its variables", async () => {
    const { run, cwd, ctx } = session();
    await run({ command: "cd sub; export BG_MARK=carried" });
    const started = await run({ command: 'pwd > where.txt; echo "$BG_MARK" >> where.txt', background: true });
    const id = started.session_id!;
    await processManager.wait(id, 10_000, undefined, ctx.sessionId);
    const written = await run({ command: "cat where.txt" }, ctx);
    assert.equal(written.output.trim(), `${join(cwd, "sub")}\ncarried`);
  });

  test("with terminal.persistent_shell off, every command starts afresh", async () => {
    const { run, cwd } = session({ persistentShell: false });
    const first = await run({ command: "cd sub; export GONE=1" });
    assert.equal(first.cwd, undefined);
    assert.equal((await run({ command: 'pwd; echo "${GONE:-unset}"' })).output.trim(), `${cwd}\nunset`);
  });

  test("without a session there is nothing to carry", async () => {
    const { run, ctx } = session();
    const bare: ToolContext = { cwd: ctx.cwd, signal: ctx.signal };
    await run({ command: "cd sub" }, bare);
    assert.equal((await run({ command: "pwd" }, bare)).output.trim(), ctx.cwd);
  });

  test("sessions beyond the remembered number are forgotten oldest first", () => {
    resetShellStates();
    const first = shellStateFor("first");
    first.cwd = "/somewhere";
    for (let i = 0; i < 600; i++) shellStateFor(`filler-${i}`);
    assert.equal(shellStateFor("first").cwd, undefined);
  });
});

const BWRAP = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((p) => existsSync(p));

test("inside the sandbox the state carries over the same way", async (t) => {
  if (!BWRAP)
    return t.diagnostic("bubblewrap is not installed here, so the sandbox was not exercised (CI installs it)");
  const policy: SandboxPolicy = {
    mode: "workspace-write",
    bwrap: BWRAP!,
    writableRoots: [],
    network: true,
    hiddenFiles: [],
    hiddenDirs: [],
  };
  configureSandbox(policy);
  try {
    const { run, cwd } = session();
    await run({ command: "cd sub; export IN_SANDBOX=1" });
    assert.equal((await run({ command: 'pwd; echo "$IN_SANDBOX"' })).output.trim(), `${join(cwd, "sub")}\n1`);
  } finally {
    configureSandbox(undefined);
  }
});

test("a command that defines functions named like the built-ins the state is written with still carries over", async () => {
  const { run, cwd } = session();
  await run({ command: "printf() { :; }; compgen() { :; }; cd sub; export SHADOWED=no" });
  assert.equal((await run({ command: 'pwd; echo "$SHADOWED"' })).output.trim(), `${join(cwd, "sub")}\nno`);
});
