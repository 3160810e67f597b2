import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { z } from "zod";
import { ApprovalPolicy } from "../../src/tools/approval/policy.js";
import { type ExecuteCodeResult, registerExecuteCodeTools } from "../../src/tools/builtin/execute-code.js";
import { registerTerminalTools } from "../../src/tools/builtin/terminal.js";
import { type ToolContext, ToolRegistry } from "../../src/tools/registry.js";
import { isAlive, makeCtx, waitUntil } from "./process-helpers.js";

function setup(deps: { timeoutSeconds?: number; maxToolCalls?: number } = {}) {
  const registry = new ToolRegistry();
  registerTerminalTools(registry, { approvals: new ApprovalPolicy() });
  registerExecuteCodeTools(registry, { killGraceMs: 500, ...deps });
  registry.register({
    name: "memory",
    toolset: "memory",
    description: "Not for scripts.",
    parameters: z.object({}),
    handler: async () => "should never run",
  });
  const spec = registry.get("execute_code");
  assert.ok(spec);
  const run = async (args: Record<string, unknown>, ctx: ToolContext): Promise<ExecuteCodeResult> =>
    JSON.parse(await spec.handler(spec.parameters.parse(args), { ...ctx, services: { registry, ...ctx.services } }));
  return { registry, run };
}

describe("execute_code", () => {
  test("a Python script calls terminal through the generated client", async () => {
    const { run } = setup();
    const ctx = makeCtx();
    const code = [
      "from hermes_tools import terminal",
      "result = terminal('echo from-terminal; pwd')",
      "print(result['exit_code'], result['output'].strip().replace(chr(10), '|'))",
      "print(terminal(command='exit 4')['exit_code'])",
    ].join("\n");
    const result = await run({ code }, ctx);
    assert.equal(result.status, "success", JSON.stringify(result));
    assert.equal(result.output, `0 from-terminal|${ctx.cwd}\n4\n`);
    assert.equal(result.tool_calls_made, 2);
  });

  test("a JavaScript script calls terminal through the generated client", async () => {
    const { run } = setup();
    const code = [
      "import { terminal } from './hermes_tools.mjs';",
      "const a = await terminal('echo js-one');",
      "const b = await terminal({ command: 'echo js-two' });",
      "console.log(a.output.trim(), b.output.trim(), a.exit_code);",
    ].join("\n");
    const result = await run({ code, language: "javascript" }, makeCtx());
    assert.equal(result.status, "success", JSON.stringify(result));
    assert.equal(result.output, "js-one js-two 0\n");
    assert.equal(result.tool_calls_made, 2);
  });

  test("tools outside the whitelist are refused", async () => {
    const { run } = setup();
    const python = [
      "from hermes_tools import call_tool, ToolError",
      "import hermes_tools",
      "print(hasattr(hermes_tools, 'memory'))",
      "try:",
      "    call_tool('memory', {})",
      "except ToolError as err:",
      "    print('refused:', err)",
    ].join("\n");
    const py = await run({ code: python }, makeCtx());
    assert.equal(py.status, "success", JSON.stringify(py));
    assert.match(py.output, /^False\nrefused: tool "memory" is not available inside execute_code/);
    assert.equal(py.tool_calls_made, 0);

    const js = [
      "import { callTool } from './hermes_tools.mjs';",
      "await callTool('delegate_task', {}).catch((err) => console.log(err.name, err.message));",
    ].join("\n");
    const node = await run({ code: js, language: "javascript" }, makeCtx());
    assert.match(node.output, /not available inside execute_code/);
  });

  test("terminal calls from a script cannot go to the background", async () => {
    const { run } = setup();
    const code = [
      "from hermes_tools import call_tool",
      "r = call_tool('terminal', {'command': 'echo fg', 'background': True, 'notify_on_complete': True})",
      "print(r.get('session_id'), r['output'].strip())",
    ].join("\n");
    const result = await run({ code }, makeCtx());
    assert.equal(result.output, "None fg\n");
  });

  test("terminal calls from a script still pass the approval policy", async () => {
    const { run } = setup();
    const ctx = makeCtx({ interactive: false });
    const code = ["from hermes_tools import terminal", "print(terminal('rm -r ./victim')['error'])"].join("\n");
    const result = await run({ code }, ctx);
    assert.match(result.output, /Nobody is available to approve/);
  });

  test("a script that runs too long is killed with its children", async () => {
    // Two seconds leave a loaded machine time to start Python and print before the limit.
    const { run } = setup({ timeoutSeconds: 2 });
    // The script starts a program itself, so it needs (and here gets) a yes first.
    const ctx = makeCtx({ requestApproval: async () => "once" });
    const code = [
      "import subprocess, time",
      "child = subprocess.Popen(['sleep', '30'])",
      "open('child.pid', 'w').write(str(child.pid))",
      "print('started', flush=True)",
      "time.sleep(30)",
    ].join("\n");
    const started = Date.now();
    const result = await run({ code }, ctx);
    assert.equal(result.status, "timeout");
    assert.equal(result.output, "started\n");
    assert.ok(Date.now() - started < 15_000, "the script's own 30 s sleep was not waited for");
    assert.equal(isAlive(Number(readFileSync(join(ctx.cwd, "child.pid"), "utf8"))), false);
  });

  test("a tool call still running when the program ends is cancelled too", async () => {
    const { run } = setup();
    const ctx = makeCtx();
    // The tool call runs in a thread; the program exits as soon as the call's child has started.
    const code = [
      "import os, threading, time",
      "from hermes_tools import terminal",
      "call = lambda: terminal('sleep 30 & echo $! > tool-child.pid.tmp; mv tool-child.pid.tmp tool-child.pid; wait')",
      "threading.Thread(target=call, daemon=True).start()",
      "while not os.path.exists('tool-child.pid'): time.sleep(0.01)",
      "os._exit(0)",
    ].join("\n");
    const result = await run({ code }, ctx);
    assert.equal(result.status, "success");
    const toolChild = Number(readFileSync(join(ctx.cwd, "tool-child.pid"), "utf8"));
    assert.ok(toolChild > 0);
    await waitUntil(() => !isAlive(toolChild), 5000, "the tool call's child to be killed");
  });

  test("stops serving tool calls after the limit", async () => {
    const { run } = setup({ maxToolCalls: 2 });
    const code = [
      "from hermes_tools import terminal, ToolError",
      "for i in range(3):",
      "    try:",
      "        terminal('true')",
      "        print('ok')",
      "    except ToolError as err:",
      "        print(err)",
    ].join("\n");
    const result = await run({ code }, makeCtx());
    assert.equal(result.output, "ok\nok\ntool call limit reached (2 per execute_code run)\n");
    assert.equal(result.tool_calls_made, 2);
  });

  test("reports a failing script with its stderr", async () => {
    const { run } = setup();
    const result = await run({ code: "raise SystemExit('broken on purpose')" }, makeCtx());
    assert.equal(result.status, "error");
    assert.equal(result.exit_code, 1);
    assert.match(result.error ?? "", /broken on purpose/);
  });

  test("secrets in the environment do not reach the script", async () => {
    const { run } = setup();
    process.env.HERMES_TEST_API_KEY = "sk-should-not-leak";
    try {
      const code = "import os\nprint(os.environ.get('HERMES_TEST_API_KEY'), 'PATH' in os.environ)";
      const result = await run({ code }, makeCtx());
      assert.equal(result.output, "None True\n");
    } finally {
      delete process.env.HERMES_TEST_API_KEY;
    }
  });

  test("cleans up its temporary files", async () => {
    const { run } = setup();
    const result = await run({ code: "import os\nprint(os.path.dirname(os.path.abspath(__file__)))" }, makeCtx());
    const dir = result.output.trim();
    assert.match(dir, /hermes-code-/);
    assert.equal(existsSync(dir), false);
  });

  test("an interrupted turn stops the script", async () => {
    const { run } = setup();
    const controller = new AbortController();
    const code = "import time\nprint('go', flush=True)\ntime.sleep(30)";
    const pending = run({ code }, makeCtx({ signal: controller.signal }));
    setImmediate(() => controller.abort());
    const result = await pending;
    assert.equal(result.status, "interrupted");
  });

  test("a script that deletes files or runs programs needs a yes: unattended it is refused and nothing happens", async () => {
    const { run } = setup();
    for (const code of [
      "import shutil\nshutil.rmtree('decoy')",
      "import os\nos.system('rm -rf decoy')",
      "import subprocess\nsubprocess.run(['rm', '-rf', 'decoy'])",
      "exec('imp' + 'ort shutil; shutil.rmtree(\"decoy\")')",
    ]) {
      const ctx = makeCtx({ interactive: false, platform: "cron" });
      mkdirSync(join(ctx.cwd, "decoy"));
      const result = await run({ code }, ctx);
      assert.equal(result.status, "error", code);
      assert.match(
        result.error ?? "",
        /Refused: an execute_code script that (deletes files|runs programs itself|evaluates text as code)/,
      );
      assert.ok(existsSync(join(ctx.cwd, "decoy")), code);
    }
    const benign = await run(
      { code: "open('out.txt', 'w').write('fine')\nprint(sum(range(10)))" },
      makeCtx({ interactive: false }),
    );
    assert.equal(benign.status, "success");
    assert.equal(benign.output, "45\n");
  });

  test("asked in the TUI, a dangerous script runs once approved, and never when denied", async () => {
    const { run } = setup();
    const asked: string[] = [];
    const approve = (answer: "once" | "deny") =>
      makeCtx({
        requestApproval: async (request) => {
          asked.push(request.reason);
          return answer;
        },
      });
    const denied = approve("deny");
    mkdirSync(join(denied.cwd, "decoy"));
    assert.equal((await run({ code: "import shutil\nshutil.rmtree('decoy')" }, denied)).status, "error");
    assert.ok(existsSync(join(denied.cwd, "decoy")));
    const allowed = approve("once");
    mkdirSync(join(allowed.cwd, "decoy"));
    assert.equal((await run({ code: "import shutil\nshutil.rmtree('decoy')" }, allowed)).status, "success");
    assert.equal(existsSync(join(allowed.cwd, "decoy")), false);
    assert.deepEqual(asked, ["an execute_code script that deletes files", "an execute_code script that deletes files"]);
  });
});
