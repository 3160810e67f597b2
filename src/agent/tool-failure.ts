/**
 * Decides whether a tool result reports a failure, and the short suffix the UI shows next to
 * the tool line (" [exit 2]", " [full]", " [error]").
 */

export interface ToolFailure {
  failed: boolean;
  suffix: string;
}

const OK: ToolFailure = Object.freeze({ failed: false, suffix: "" });
const GENERIC_FAILURE: ToolFailure = Object.freeze({ failed: true, suffix: " [error]" });

/** Tools whose results may carry lint or LSP diagnostics: those describe the code, not the call. */
const EDITING_TOOLS = new Set(["write_file", "patch"]);

const GENERIC_SCAN_CHARS = 500;

export function classifyToolFailure(toolName: string, result: unknown): ToolFailure {
  const text = typeof result === "string" ? result : (JSON.stringify(result) ?? "");
  const parsed = parseObject(text);

  // A terminal result fails only by its exit code; error-looking output of a command that
  // succeeded (or text without an exit code) is not a failure.
  if (toolName === "terminal") {
    const code = parsed?.exit_code;
    return code === undefined || code === null || code === 0 ? OK : { failed: true, suffix: ` [exit ${String(code)}]` };
  }
  if (toolName === "memory" && parsed && parsed.success === false) {
    const error = typeof parsed.error === "string" ? parsed.error : "";
    if (error.includes("exceed the limit")) return { failed: true, suffix: " [full]" };
  }
  if (EDITING_TOOLS.has(toolName) && parsed) {
    const reportsError = parsed.success === false || Boolean(parsed.error);
    return reportsError ? GENERIC_FAILURE : OK;
  }
  return looksLikeError(text) ? GENERIC_FAILURE : OK;
}

/**
 * A result that starts with "Error", or has a quoted "error"/"failed" (a JSON key or value) near
 * its start. Prose that merely mentions an error (`How to fix TypeError`) is not a failure.
 */
function looksLikeError(text: string): boolean {
  if (text.startsWith("Error")) return true;
  const head = text.slice(0, GENERIC_SCAN_CHARS).toLowerCase();
  return head.includes('"error"') || head.includes('"failed"');
}

function parseObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
