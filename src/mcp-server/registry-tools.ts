/**
 * Our registry's tools as MCP tools. A call runs through the same executor the agent uses, so
 * the result is redacted and capped exactly as the model would see it, and commands go through
 * the shared approval policy. Nobody can answer an approval prompt here: what needs one is
 * refused with a message saying how to allow it.
 */
import { randomUUID } from "node:crypto";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { AgentEmitter } from "../agent/events.js";
import { runToolCalls } from "../agent/tool-executor.js";
import type { ApprovalRequest, ToolContext, ToolRegistry } from "../tools/registry.js";
import { resolveToolsets } from "../tools/toolsets.js";
import { describeIssues, reportsFailure, textResult, toolError } from "./results.js";

export interface RegistryToolsOptions {
  registry: ToolRegistry;
  toolsets: readonly string[];
  /** Where commands run and relative paths resolve. */
  cwd: string;
  /** The session key approvals and background processes of this server are filed under. */
  sessionId: string;
  platform: string;
  /** `approvals.unattended_mode`: "approve" lets what would need a prompt run. */
  unattendedMode: "deny" | "approve";
  /** Names taken by the server's own tools. */
  reserved: ReadonlySet<string>;
}

export function approvalRefusal(request: ApprovalRequest): string {
  const allowlist = request.key
    ? ` or allow this kind of command for good by adding "${request.key}" to approvals.command_allowlist in config.yaml`
    : "";
  return (
    `Refused: "${request.command}" needs approval (${request.reason}), and this MCP server has nobody to ask, ` +
    "so commands that need approval are denied. To allow them, restart the server as `hermes mcp serve --yolo` " +
    `(commands on the hardline blocklist still never run)${allowlist}.`
  );
}

export class RegistryTools {
  constructor(private readonly options: RegistryToolsOptions) {}

  /** The exposed tool names: the toolsets' tools that are registered and usable now. */
  async names(): Promise<string[]> {
    const { registry, toolsets, reserved } = this.options;
    const wanted = new Set(resolveToolsets(toolsets));
    // Tools registered under a named toolset the table does not list (MCP servers, plugins).
    for (const spec of registry.all()) if (toolsets.includes(spec.toolset)) wanted.add(spec.name);
    const names: string[] = [];
    for (const name of wanted) {
      if (!reserved.has(name) && registry.has(name) && (await registry.isAvailable(name))) names.push(name);
    }
    return names;
  }

  async list(): Promise<Tool[]> {
    return this.options.registry.definitions(await this.names()).map(({ function: fn }) => ({
      name: fn.name,
      description: fn.description,
      inputSchema: { ...fn.parameters, type: "object" },
    }));
  }

  /** Undefined when `name` is not one of the exposed tools. */
  async call(name: string, args: unknown, signal: AbortSignal): Promise<CallToolResult | undefined> {
    if (!(await this.names()).includes(name)) return undefined;
    const spec = this.options.registry.get(name);
    if (!spec) return undefined;
    const parsed = spec.parameters.safeParse(args ?? {});
    if (!parsed.success) {
      return toolError(
        `Invalid arguments for ${name}: ${describeIssues(parsed.error.issues)}. Fix them (see the tool's input schema) and call again.`,
      );
    }
    let refused: ApprovalRequest | undefined;
    const ctx: ToolContext = {
      cwd: this.options.cwd,
      sessionId: this.options.sessionId,
      taskId: randomUUID(),
      signal,
      platform: this.options.platform,
      interactive: true,
      requestApproval: async (request) => {
        if (this.options.unattendedMode === "approve") return "once";
        refused = request;
        return "deny";
      },
    };
    const checked = parsed.data as Record<string, unknown>;
    const call = {
      id: `mcp-${randomUUID()}`,
      type: "function" as const,
      function: { name, arguments: JSON.stringify(checked) },
    };
    const outcome = await runToolCalls([{ call, spec, args: checked }], {
      ctx,
      emitter: new AgentEmitter(),
    });
    if (refused) return toolError(approvalRefusal(refused));
    const result = outcome.results[0] ?? `Error: ${name} returned nothing.`;
    return reportsFailure(result) ? { ...textResult(result), isError: true } : textResult(result);
  }
}
