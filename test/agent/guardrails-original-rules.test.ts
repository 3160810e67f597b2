/**
 * Guardrail facts carried over from the original: which tools count as read-only, how repeated
 * results are compared, what beforeCall refuses after a same-tool halt, and how a tool result is
 * classified as a failure.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { classifyToolFailure, IDEMPOTENT_TOOLS, ToolGuardrails } from "../../src/agent/guardrails.js";

const noProgress = {
  hardStopEnabled: true,
  warnAfter: { idempotentNoProgress: 2 },
  hardStopAfter: { idempotentNoProgress: 2 },
};

describe("read-only tools tracked for no progress", () => {
  const added = [
    "browser_console",
    "mcp_filesystem_read_file",
    "mcp_filesystem_read_text_file",
    "mcp_filesystem_read_multiple_files",
    "mcp_filesystem_list_directory",
    "mcp_filesystem_list_directory_with_sizes",
    "mcp_filesystem_directory_tree",
    "mcp_filesystem_get_file_info",
    "mcp_filesystem_search_files",
  ];
  for (const tool of added) {
    test(`${tool} warns, then blocks, on an unchanged result`, () => {
      const g = new ToolGuardrails(noProgress);
      assert.equal(g.afterCall(tool, { path: "/x" }, '{"content":"a"}', { failed: false }).action, "allow");
      const warn = g.afterCall(tool, { path: "/x" }, '{"content":"a"}', { failed: false });
      assert.deepEqual([warn.action, warn.code, warn.count], ["warn", "idempotent_no_progress_warning", 2]);
      const block = g.beforeCall(tool, { path: "/x" });
      assert.deepEqual([block.action, block.code, block.count], ["block", "idempotent_no_progress_block", 2]);
    });
  }

  test("the whole list, nothing more", () => {
    assert.deepEqual([...IDEMPOTENT_TOOLS].sort(), [
      "browser_console",
      "browser_get_images",
      "browser_snapshot",
      "mcp_filesystem_directory_tree",
      "mcp_filesystem_get_file_info",
      "mcp_filesystem_list_directory",
      "mcp_filesystem_list_directory_with_sizes",
      "mcp_filesystem_read_file",
      "mcp_filesystem_read_multiple_files",
      "mcp_filesystem_read_text_file",
      "mcp_filesystem_search_files",
      "process_list",
      "read_file",
      "search_files",
      "session_search",
      "skill_view",
      "skills_list",
      "vision_analyze",
      "web_extract",
      "web_search",
    ]);
  });

  test("an MCP tool that writes is not tracked", () => {
    const g = new ToolGuardrails(noProgress);
    g.afterCall("mcp_filesystem_write_file", { path: "/x" }, "ok", { failed: false });
    assert.equal(g.afterCall("mcp_filesystem_write_file", { path: "/x" }, "ok", { failed: false }).action, "allow");
  });
});

describe("repeated results are compared as canonical JSON", () => {
  test("key order and spacing do not make a JSON result new", () => {
    const g = new ToolGuardrails(noProgress);
    g.afterCall("read_file", { path: "/x" }, '{"a": 1, "b": [2, {"d": 4, "c": 3}]}', { failed: false });
    const warn = g.afterCall("read_file", { path: "/x" }, ' {"b":[2,{"c":3,"d":4}],"a":1}', { failed: false });
    assert.deepEqual([warn.action, warn.count], ["warn", 2]);
  });

  test("a different JSON value is progress", () => {
    const g = new ToolGuardrails(noProgress);
    g.afterCall("read_file", { path: "/x" }, '{"a":1}', { failed: false });
    const next = g.afterCall("read_file", { path: "/x" }, '{"a":2}', { failed: false });
    assert.deepEqual([next.action, next.count], ["allow", 1]);
  });

  test("plain text is compared as written", () => {
    const g = new ToolGuardrails(noProgress);
    g.afterCall("read_file", { path: "/x" }, "line one", { failed: false });
    assert.equal(g.afterCall("read_file", { path: "/x" }, "line one ", { failed: false }).count, 1);
    assert.equal(g.afterCall("read_file", { path: "/x" }, "line one ", { failed: false }).count, 2);
  });

  test("text that only looks like JSON at the start stays text", () => {
    const g = new ToolGuardrails(noProgress);
    g.afterCall("read_file", { path: "/x" }, "{not json", { failed: false });
    assert.equal(g.afterCall("read_file", { path: "/x" }, "{not  json", { failed: false }).count, 1);
    assert.equal(g.afterCall("read_file", { path: "/x" }, "{not  json", { failed: false }).count, 2);
  });

  test("a JSON number or string result is compared by value", () => {
    const g = new ToolGuardrails(noProgress);
    g.afterCall("read_file", { path: "/x" }, "42", { failed: false });
    assert.equal(g.afterCall("read_file", { path: "/x" }, " 42\n", { failed: false }).count, 2);
    g.afterCall("read_file", { path: "/y" }, '"same"', { failed: false });
    assert.equal(g.afterCall("read_file", { path: "/y" }, '"same"', { failed: false }).count, 2);
  });
});

describe("beforeCall after a same-tool halt", () => {
  const config = {
    hardStopEnabled: true,
    warnAfter: { sameToolFailure: 2 },
    hardStopAfter: { sameToolFailure: 3, exactFailure: 99 },
  };

  test("the halt comes from afterCall; the same tool with new arguments is allowed", () => {
    const g = new ToolGuardrails(config);
    const decisions = [1, 2, 3].map((i) =>
      g.afterCall("send_message", { to: `u${i}` }, '{"error":"no route"}', { failed: true }),
    );
    assert.deepEqual(
      decisions.map((d) => d.action),
      ["allow", "warn", "halt"],
    );
    const next = g.beforeCall("send_message", { to: "u9" });
    assert.deepEqual([next.action, next.code, next.count, next.message], ["allow", "allow", 0, ""]);
  });

  test("an exact repeat is still blocked by its own count", () => {
    const g = new ToolGuardrails({ ...config, hardStopAfter: { sameToolFailure: 3, exactFailure: 3 } });
    for (let i = 0; i < 3; i++) g.afterCall("send_message", { to: "u1" }, '{"error":"x"}', { failed: true });
    const block = g.beforeCall("send_message", { to: "u1" });
    assert.deepEqual([block.action, block.code, block.count], ["block", "repeated_exact_failure_block", 3]);
  });
});

describe("classifyToolFailure", () => {
  const ok = { failed: false, suffix: "" };
  const error = { failed: true, suffix: " [error]" };

  test("prose mentioning an error is not a failure", () => {
    assert.deepEqual(classifyToolFailure("web_search", '{"results":[{"title":"How to fix TypeError in React"}]}'), ok);
    assert.deepEqual(classifyToolFailure("web_search", "3 tests failed, error count 2"), ok);
  });

  test('a quoted "error" or "failed" key or value is a failure', () => {
    assert.deepEqual(classifyToolFailure("web_search", '{"Error": "quota"}'), error);
    assert.deepEqual(classifyToolFailure("web_search", '{"status": "failed"}'), error);
    assert.deepEqual(classifyToolFailure("web_search", '{"status": "FAILED"}'), error);
  });

  test('a result must start with "Error" exactly to fail by prefix', () => {
    assert.deepEqual(classifyToolFailure("web_search", "Error: no results"), error);
    assert.deepEqual(classifyToolFailure("web_search", " Error: no results"), ok);
    assert.deepEqual(classifyToolFailure("web_search", "error: no results"), ok);
  });

  test("terminal fails only by a JSON exit code other than 0 or null", () => {
    assert.deepEqual(classifyToolFailure("terminal", "Error: command not found"), ok);
    assert.deepEqual(classifyToolFailure("terminal", '{"output":"x","exit_code":null,"error":"boom"}'), ok);
    assert.deepEqual(classifyToolFailure("terminal", '{"output":"x","error":"boom"}'), ok);
    assert.deepEqual(classifyToolFailure("terminal", '{"output":"x","exit_code":0}'), ok);
    assert.deepEqual(classifyToolFailure("terminal", '{"output":"x","exit_code":2}'), {
      failed: true,
      suffix: " [exit 2]",
    });
    assert.deepEqual(classifyToolFailure("terminal", '{"output":"x","exit_code":-9}'), {
      failed: true,
      suffix: " [exit -9]",
    });
    assert.deepEqual(classifyToolFailure("terminal", '{"exit_code":"1"}'), { failed: true, suffix: " [exit 1]" });
  });
});
