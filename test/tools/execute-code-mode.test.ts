/**
 * `code_execution.mode`: where an execute_code script runs and with which Python. `project` uses
 * the session's folder and the active virtualenv; `strict` a scratch folder without the user's
 * Python environment.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { after, before, test } from "node:test";
import { loadConfig } from "../../src/state/config.js";
import { ApprovalPolicy } from "../../src/tools/approval/policy.js";
import {
  type CodeExecutionMode,
  type ExecuteCodeResult,
  registerExecuteCodeTools,
} from "../../src/tools/builtin/execute-code.js";
import { registerTerminalTools } from "../../src/tools/builtin/terminal.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { findExecutable } from "../../src/util/executable.js";
import { tempDir } from "../state/temp-dir.js";
import { makeCtx } from "./process-helpers.js";

const saved = { PATH: process.env.PATH, VIRTUAL_ENV: process.env.VIRTUAL_ENV };
const venv = tempDir("hermes-venv-");
const realPython = findExecutable("python3", saved.PATH ?? "") ?? "python3";

/** A stand-in virtualenv whose python (and python3) marks the scripts it runs, then runs the real one. */
before(() => {
  const bin = join(venv, "bin");
  mkdirSync(bin);
  for (const name of ["python", "python3"]) {
    const wrapper = join(bin, name);
    writeFileSync(wrapper, `#!/bin/sh\nHERMES_TEST_VENV=${name} exec "${realPython}" "$@"\n`);
    chmodSync(wrapper, 0o755);
  }
  process.env.VIRTUAL_ENV = venv;
  process.env.PATH = `${bin}${delimiter}${saved.PATH}`;
});

after(() => {
  process.env.PATH = saved.PATH;
  if (saved.VIRTUAL_ENV === undefined) delete process.env.VIRTUAL_ENV;
  else process.env.VIRTUAL_ENV = saved.VIRTUAL_ENV;
});

async function runIn(mode: CodeExecutionMode | undefined): Promise<{ result: ExecuteCodeResult; cwd: string }> {
  const registry = new ToolRegistry();
  registerTerminalTools(registry, { approvals: new ApprovalPolicy() });
  registerExecuteCodeTools(registry, mode ? { mode } : {});
  const spec = registry.get("execute_code");
  assert.ok(spec);
  const ctx = makeCtx();
  const code = [
    "import os",
    "print(os.environ.get('HERMES_TEST_VENV', '-'))",
    "print(os.environ.get('VIRTUAL_ENV', '-'))",
    "print(os.getcwd())",
  ].join("\n");
  const raw = await spec.handler(spec.parameters.parse({ code }), { ...ctx, services: { registry } });
  return { result: JSON.parse(raw) as ExecuteCodeResult, cwd: ctx.cwd };
}

test("project mode (the default) runs the script in the session's folder with the active virtualenv's python", async () => {
  for (const mode of [undefined, "project"] as const) {
    const { result, cwd } = await runIn(mode);
    assert.equal(result.status, "success", JSON.stringify(result));
    const [marker, virtualEnv, scriptCwd] = result.output.trim().split("\n");
    assert.equal(marker, "python", "the virtualenv's bin/python ran the script");
    assert.equal(virtualEnv, venv);
    assert.equal(realpathSync(scriptCwd ?? ""), realpathSync(cwd));
  }
});

test("strict mode runs the script in a scratch folder, outside the virtualenv, even with it first on PATH", async () => {
  const { result, cwd } = await runIn("strict");
  assert.equal(result.status, "success", JSON.stringify(result));
  const [marker, virtualEnv, scriptCwd] = result.output.trim().split("\n");
  assert.equal(marker, "-", "not the virtualenv's python");
  assert.equal(virtualEnv, "-", "VIRTUAL_ENV is not passed on");
  assert.notEqual(scriptCwd, cwd);
  assert.match(scriptCwd ?? "", /hermes-code-[^/]+$/, "the script's own scratch folder");
});

test("code_execution.mode accepts project or strict, and says so otherwise", () => {
  const home = tempDir("hermes-code-mode-");
  writeFileSync(join(home, "config.yaml"), "code_execution:\n  mode: strict\n");
  assert.equal(loadConfig({ home }).config.code_execution.mode, "strict");
  writeFileSync(join(home, "config.yaml"), "code_execution:\n  mode: sandboxed\n");
  assert.throws(() => loadConfig({ home }), /code_execution\.mode.*"project" or "strict"/s);
});
