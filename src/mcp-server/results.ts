/** Shapes of MCP tool results, and the redaction and size cap every result passes through. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { capResult, DEFAULT_MAX_RESULT_CHARS } from "../tools/registry.js";
import { redactObject, redactSecrets } from "../util/redact.js";

export function textResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }] };
}

/** A failed call the client (often a model) can act on: what happened and what to do. */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text: redactSecrets(text) }], isError: true };
}

/** Data read from the session store as JSON text, secrets masked and size capped like tool output. */
export function dataResult(data: Record<string, unknown>): CallToolResult {
  return textResult(capResult(JSON.stringify(redactObject(data)), DEFAULT_MAX_RESULT_CHARS));
}

export function describeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join(".") : "(arguments)"}: ${issue.message}`)
    .join("; ");
}

/**
 * Whether a tool's text reports a failure: an "Error..." text, or a JSON object with an
 * `error` message or `success: false`. A command that exits non-zero is an answer, not a failure.
 */
export function reportsFailure(result: string): boolean {
  const text = result.trimStart();
  if (/^error\b/i.test(text)) return true;
  if (!text.startsWith("{")) return false;
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    return (typeof value.error === "string" && value.error.length > 0) || value.success === false;
  } catch {
    return false;
  }
}
