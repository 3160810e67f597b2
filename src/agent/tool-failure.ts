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

  if (toolName === "terminal" && parsed && "exit_code" in parsed) {
    const code = Number(parsed.exit_code);
    if (Number.isFinite(code)) return code === 0 ? OK : { failed: true, suffix: ` [exit ${code}]` };
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

function looksLikeError(text: string): boolean {
  if (text.trimStart().startsWith("Error")) return true;
  const head = text.slice(0, GENERIC_SCAN_CHARS).toLowerCase();
  return head.includes("error") || head.includes("failed");
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
