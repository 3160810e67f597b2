/**
 * `hermes prompt-size [--toolsets a,b] [--platform p] [--json]`: the fixed part of every request —
 * the system prompt layer by layer and each tool schema — in bytes and estimated tokens, as the
 * first request of a new session would carry it. Nothing is sent and no session is stored.
 */
import type { Command } from "commander";
import type { PromptLayer } from "../../agent/system-prompt.js";
import type { FunctionDefinition } from "../../tools/registry.js";
import { estimateTextTokens } from "../../util/tokens.js";
import { loadCronToolBackend } from "../cron-tool-backend.js";
import { type CommandIo, processIo } from "./config.js";

export interface SizeRow {
  name: string;
  bytes: number;
  tokens: number;
}

export interface PromptSizeReport {
  platform: string;
  toolsets: string[];
  model: string;
  layers: SizeRow[];
  tools: SizeRow[];
  /** Enabled tools left out of the request and reached through tool_search. */
  hidden: string[];
  systemPrompt: SizeRow;
  toolSchemas: SizeRow;
  total: SizeRow;
}

function sized(name: string, text: string): SizeRow {
  return { name, bytes: Buffer.byteLength(text, "utf8"), tokens: estimateTextTokens(text) };
}

export function promptSizeReport(
  context: { platform: string; toolsets: string[]; model: string },
  layers: readonly PromptLayer[],
  definitions: readonly FunctionDefinition[],
  hidden: readonly FunctionDefinition[],
): PromptSizeReport {
  const systemText = layers.map((layer) => layer.text).join("\n\n");
  const schemasText = definitions.length ? JSON.stringify(definitions) : "";
  return {
    ...context,
    layers: layers.map((layer) => sized(layer.name, layer.text)),
    tools: definitions.map((def) => sized(def.function.name, JSON.stringify(def))),
    hidden: hidden.map((def) => def.function.name),
    systemPrompt: sized("system prompt", systemText),
    toolSchemas: sized("tool schemas", schemasText),
    total: sized("total", systemText + schemasText),
  };
}

export function formatPromptSize(report: PromptSizeReport): string[] {
  const width = Math.max(24, ...[...report.layers, ...report.tools].map((row) => row.name.length + 4));
  const line = (row: SizeRow, indent = "  ") =>
    `${`${indent}${row.name}`.padEnd(width)}${String(row.bytes).padStart(8)} B ${String(row.tokens).padStart(7)} tok`;
  const lines = [
    `First request of a new ${report.platform} session (model ${report.model}; toolsets ${report.toolsets.join(", ")})`,
    "Tokens are estimated at 4 characters each.",
    "",
    line(report.systemPrompt, ""),
    ...report.layers.map((row) => line(row)),
    "",
    `${line(report.toolSchemas, "")}  (${report.tools.length} sent)`,
    ...[...report.tools].sort((a, b) => b.bytes - a.bytes).map((row) => line(row)),
  ];
  if (report.hidden.length > 0) {
    lines.push(`  hidden behind tool_search (agent.tool_schema_budget): ${report.hidden.join(", ")}`);
  }
  lines.push("", line(report.total, ""));
  return lines;
}

function list(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

export function registerPromptSizeCommand(program: Command, io: CommandIo = processIo): void {
  program
    .command("prompt-size")
    .description("bytes and estimated tokens of the system prompt (per layer) and each tool schema")
    .option("--toolsets <list>", "comma-separated toolsets instead of the configured ones", list)
    .option("--platform <name>", "the platform whose prompt and toolset to measure", "cli")
    .option("--json", "print the report as JSON")
    .action(async (opts: { toolsets?: string[]; platform: string; json?: boolean }) => {
      const { openRuntime } = await import("../../runtime/runtime.js");
      const open = (overrides = {}) =>
        openRuntime({
          platform: opts.platform,
          ...(opts.toolsets ? { toolsets: opts.toolsets } : {}),
          localServers: false,
          overrides,
          cronTool: loadCronToolBackend,
        });
      // Nothing is sent, so a home without a provider is measured too (without model-specific guidance).
      const runtime = await open().catch(() => {
        io.err("no model provider is configured: measuring without model-specific guidance");
        return open({ provider: "custom", baseUrl: "http://127.0.0.1:9/v1", model: "none" });
      });
      try {
        const agent = runtime.createAgent({ platform: opts.platform, persist: false, checkpoints: false });
        const { layers, published } = await agent.requestPreview();
        const toolsets = agent.options.enabledToolsets ?? runtime.defaultToolsets();
        const report = promptSizeReport(
          { platform: opts.platform, toolsets, model: runtime.model },
          layers,
          published.definitions,
          published.hidden,
        );
        if (opts.json) io.out(JSON.stringify(report, null, 2));
        else for (const text of formatPromptSize(report)) io.out(text);
      } finally {
        await runtime.close();
      }
    });
}
