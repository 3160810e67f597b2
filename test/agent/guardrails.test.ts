import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import {
  allowsExecution,
  canonicalToolArgs,
  classifyToolFailure,
  endsTurn,
  type GuardrailDecision,
  guardrailsConfigFromYaml,
  ToolGuardrails,
} from "../../src/agent/guardrails.js";

interface Expect {
  fields?: Record<string, unknown>;
  fieldContains?: Record<string, string[]>;
  equalsOther?: boolean;
}
interface Step {
  call: string;
  args: unknown[];
  expect?: Expect;
}
interface Case {
  id: string;
  input: {
    call?: string;
    args?: unknown[];
    sameAs?: { call: string; args: unknown[] };
    class?: string;
    config?: unknown;
  };
  steps?: Step[];
  expect?: Expect;
}

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/hermes-cases/guardrails.json", import.meta.url), "utf8"),
) as { cases: Case[] };

const functions: Record<string, (...args: never[]) => unknown> = { canonicalToolArgs, classifyToolFailure };

function callFunction(name: string, args: unknown[]): unknown {
  const fn = functions[name];
  assert.ok(fn, `unknown function ${name}`);
  return (fn as (...a: unknown[]) => unknown)(...args);
}

function checkExpect(actual: unknown, expect: Expect, label: string): void {
  const record = actual as Record<string, unknown>;
  for (const [key, value] of Object.entries(expect.fields ?? {})) {
    assert.deepEqual(record[key], value, `${label}: field ${key}`);
  }
  for (const [key, parts] of Object.entries(expect.fieldContains ?? {})) {
    for (const part of parts) assert.ok(String(record[key]).includes(part), `${label}: ${key} lacks "${part}"`);
  }
}

function runSteps(guardrails: ToolGuardrails, steps: Step[]): void {
  steps.forEach((step, index) => {
    const method = (guardrails as unknown as Record<string, (...a: unknown[]) => unknown>)[step.call];
    assert.ok(typeof method === "function", `unknown method ${step.call}`);
    const result = method.apply(guardrails, step.args);
    if (step.expect) checkExpect(result, step.expect, `step ${index} ${step.call}`);
  });
}

describe("guardrails acceptance cases", () => {
  for (const c of fixture.cases) {
    test(c.id, () => {
      if (c.input.class === "ToolGuardrails") {
        const guardrails = c.input.config === null ? new ToolGuardrails() : new ToolGuardrails(c.input.config as never);
        runSteps(guardrails, c.steps ?? []);
        return;
      }
      const result = callFunction(c.input.call!, c.input.args ?? []);
      if (c.expect?.equalsOther) {
        const other = callFunction(c.input.sameAs!.call, c.input.sameAs!.args);
        assert.deepEqual(result, other);
      }
      if (c.expect) checkExpect(result, c.expect, c.id);
    });
  }
});

describe("canonicalToolArgs", () => {
  test("sorts keys at every depth and keeps non-ASCII text", () => {
    assert.equal(canonicalToolArgs({ b: [{ d: 1, c: "é☤" }], a: null }), '{"a":null,"b":[{"c":"é☤","d":1}]}');
  });
  test("drops undefined members like JSON does and handles bare values", () => {
    assert.equal(canonicalToolArgs({ a: undefined, b: 1 }), '{"b":1}');
    assert.equal(canonicalToolArgs(undefined), "null");
    assert.equal(canonicalToolArgs("x"), '"x"');
  });
});

describe("ToolGuardrails", () => {
  const hardStop = {
    hardStopEnabled: true,
    hardStopAfter: { exactFailure: 3, sameToolFailure: 4, idempotentNoProgress: 3 },
  };

  test("classifies the failure itself when afterCall is not told", () => {
    const g = new ToolGuardrails();
    g.afterCall("terminal", { command: "false" }, '{"output":"","exit_code":1}');
    const second = g.afterCall("terminal", { command: "false" }, '{"output":"","exit_code":1}');
    assert.equal(second.code, "repeated_exact_failure_warning");
    assert.equal(second.count, 2);
  });

  test("warnings can be turned off while hard stops still block", () => {
    const g = new ToolGuardrails({ ...hardStop, warningsEnabled: false });
    for (let i = 0; i < 3; i++) {
      assert.equal(g.afterCall("web_search", { q: 1 }, "Error: x", { failed: true }).action, "allow");
    }
    const decision = g.beforeCall("web_search", { q: 1 });
    assert.equal(decision.action, "block");
    assert.equal(allowsExecution(decision), false);
    assert.ok(decision.message.length > 0);
  });

  test("a different argument set is not blocked by another call's failures", () => {
    const g = new ToolGuardrails(hardStop);
    for (let i = 0; i < 3; i++) g.afterCall("web_search", { q: 1 }, "Error", { failed: true });
    assert.equal(g.beforeCall("web_search", { q: 2 }).action, "allow");
    assert.equal(g.beforeCall("web_search", { q: 1 }).action, "block");
  });

  test("a success of the tool resets the same-tool streak", () => {
    const g = new ToolGuardrails({ warnAfter: { sameToolFailure: 2 } });
    g.afterCall("terminal", { command: "a" }, "", { failed: true });
    g.afterCall("terminal", { command: "ok" }, "", { failed: false });
    assert.equal(g.afterCall("terminal", { command: "b" }, "", { failed: true }).action, "allow");
  });

  test("halting ends the turn; only afterCall reports it, so other arguments may still run", () => {
    const g = new ToolGuardrails(hardStop);
    let last: GuardrailDecision | undefined;
    for (let i = 0; i < 4; i++) last = g.afterCall("terminal", { command: `c${i}` }, "", { failed: true });
    assert.equal(last?.code, "same_tool_failure_halt");
    assert.equal(endsTurn(last!), true);
    assert.equal(g.beforeCall("terminal", { command: "other" }).action, "allow");
    g.resetForTurn();
    assert.equal(g.beforeCall("terminal", { command: "other" }).action, "allow");
  });

  test("a changed result restarts the no-progress count", () => {
    const g = new ToolGuardrails(hardStop);
    g.afterCall("read_file", { path: "a" }, "v1", { failed: false });
    g.afterCall("read_file", { path: "a" }, "v1", { failed: false });
    g.afterCall("read_file", { path: "a" }, "v2", { failed: false });
    assert.equal(g.beforeCall("read_file", { path: "a" }).action, "allow");
    const warn = g.afterCall("read_file", { path: "a" }, "v2", { failed: false });
    assert.equal(warn.code, "idempotent_no_progress_warning");
    assert.equal(warn.count, 2);
  });

  test("invalid thresholds fall back to the defaults", () => {
    const g = new ToolGuardrails({ warnAfter: { exactFailure: 0, sameToolFailure: Number.NaN } });
    assert.deepEqual(g.config.warnAfter, { exactFailure: 2, sameToolFailure: 3, idempotentNoProgress: 2 });
  });
});

describe("classifyToolFailure", () => {
  test("terminal reports the exit code", () => {
    assert.deepEqual(classifyToolFailure("terminal", '{"output":"x","exit_code":127}'), {
      failed: true,
      suffix: " [exit 127]",
    });
  });
  test("write_file lint warnings are not failures but an explicit error is", () => {
    assert.equal(classifyToolFailure("write_file", '{"bytes_written":3,"lint":"error: unused var"}').failed, false);
    assert.equal(classifyToolFailure("write_file", '{"success":false,"error":"permission denied"}').failed, true);
  });
  test("memory failures other than a full store are generic errors", () => {
    assert.deepEqual(classifyToolFailure("memory", '{"success":false,"error":"no entry matched"}'), {
      failed: true,
      suffix: " [error]",
    });
  });
  test("the generic scan only looks at the first 500 characters", () => {
    assert.equal(classifyToolFailure("read_file", `${"a".repeat(600)} "failed"`).failed, false);
    assert.equal(classifyToolFailure("read_file", `${"a".repeat(490)} "FAILED"`).failed, true);
    assert.equal(classifyToolFailure("read_file", "build FAILED").failed, false);
  });
});

describe("guardrailsConfigFromYaml", () => {
  test("maps the snake_case section and fills defaults", () => {
    const config = guardrailsConfigFromYaml({
      warnings_enabled: false,
      hard_stop_enabled: true,
      warn_after: { exact_failure: 4 },
      hard_stop_after: { same_tool_failure: 10, idempotent_no_progress: 6 },
    });
    assert.deepEqual(config, {
      warningsEnabled: false,
      hardStopEnabled: true,
      warnAfter: { exactFailure: 4, sameToolFailure: 3, idempotentNoProgress: 2 },
      hardStopAfter: { exactFailure: 5, sameToolFailure: 10, idempotentNoProgress: 6 },
    });
  });
  test("a missing or malformed section gives the defaults", () => {
    const defaults = guardrailsConfigFromYaml(undefined);
    assert.equal(defaults.warningsEnabled, true);
    assert.equal(defaults.hardStopEnabled, false);
    assert.deepEqual(guardrailsConfigFromYaml({ warn_after: "x", hard_stop_enabled: "yes" }), defaults);
  });
});
