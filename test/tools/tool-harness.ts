/** Helpers for calling registered tools the way the agent does: validate, then run the handler. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolContext, ToolRegistry } from "../../src/tools/registry.js";

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `hermes-${prefix}-`));
}

export function makeContext(cwd: string, extra: Partial<ToolContext> = {}): ToolContext {
  return { cwd, signal: new AbortController().signal, ...extra };
}

/** Validate `args` against the tool's schema, run it, and parse its JSON result. */
export async function callTool(
  registry: ToolRegistry,
  name: string,
  args: unknown,
  ctx: ToolContext,
): Promise<Record<string, unknown>> {
  const spec = registry.get(name);
  if (!spec) throw new Error(`tool ${name} is not registered`);
  const parsed = spec.parameters.parse(args);
  const text = await spec.handler(parsed, ctx);
  return JSON.parse(text) as Record<string, unknown>;
}
