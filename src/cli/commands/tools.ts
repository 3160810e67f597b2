/**
 * `hermes tools [--summary]`: every toolset with its tools and whether each is usable now
 * (registered, and its check passes: keys present, binaries installed). Toolsets enabled in
 * config.yaml are marked.
 */
import type { Command } from "commander";
import type { HermesConfig } from "../../state/config-schema.js";
import { type CommandIo, processIo } from "./config.js";

export type ToolState = "available" | "unavailable" | "not_installed";

export interface ToolsetReport {
  name: string;
  description: string;
  enabled: boolean;
  tools: Array<{ name: string; state: ToolState; emoji?: string }>;
}

/** Built-in toolsets plus the platform toolsets named in config; other platform bundles are noise here. */
export async function toolsetReport(
  enabledToolsets: readonly string[],
  home?: string,
  config?: HermesConfig,
): Promise<ToolsetReport[]> {
  const { ToolRegistry } = await import("../../tools/registry.js");
  const { registerBuiltinTools } = await import("../../tools/builtin/index.js");
  const { defaultToolsets } = await import("../../tools/toolsets.js");
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  if (home) {
    // The same extra tools a chat session registers: skills and delegation.
    const { registerSkillsTools } = await import("../../tools/skills/tools.js");
    const { delegationDepsFrom, registerDelegateTool } = await import("../../agent/delegation.js");
    const { IterationBudget } = await import("../../agent/budget.js");
    registerSkillsTools(registry, { home, cwd: process.cwd() });
    registerDelegateTool(registry, delegationDepsFrom({ model: "" }, new IterationBudget(1)));
    if (config) {
      // Offered while a messaging platform is set up; telling opens nothing.
      const { registerTerminalSendMessage } = await import("../send-message-tool.js");
      const { resolveStoreLocation } = await import("../../state/store-target.js");
      registerTerminalSendMessage({
        registry,
        config,
        home,
        get storeLocation() {
          return resolveStoreLocation(home, config.store);
        },
      });
    }
  }
  const catalog = defaultToolsets;
  const enabled = new Set(enabledToolsets);
  const names = catalog.names().filter((name) => enabled.has(name) || !name.startsWith("hermes-"));
  const reports: ToolsetReport[] = [];
  for (const name of names) {
    const tools: ToolsetReport["tools"] = [];
    for (const tool of catalog.resolveInDeclaredOrder(name)) {
      const spec = registry.get(tool);
      const state: ToolState = !spec
        ? "not_installed"
        : (await registry.isAvailable(tool))
          ? "available"
          : "unavailable";
      tools.push({ name: tool, state, ...(spec?.emoji ? { emoji: spec.emoji } : {}) });
    }
    reports.push({ name, description: catalog.get(name)?.description ?? "", enabled: enabled.has(name), tools });
  }
  return reports;
}

const MARK: Record<ToolState, string> = { available: "✓", unavailable: "✗", not_installed: "·" };
const NOTE: Record<ToolState, string> = {
  available: "",
  unavailable: " (unavailable: a key or program it needs is missing)",
  not_installed: " (not in this version yet)",
};

export function formatSummary(reports: readonly ToolsetReport[]): string[] {
  const width = Math.max(...reports.map((r) => r.name.length)) + 2;
  return reports.map((report) => {
    const available = report.tools.filter((t) => t.state === "available").length;
    const mark = report.enabled ? "*" : " ";
    const count = `${available}/${report.tools.length} available`.padEnd(17);
    return `${mark} ${report.name.padEnd(width)}${count}${report.description}`;
  });
}

export function formatFull(reports: readonly ToolsetReport[]): string[] {
  const lines: string[] = [];
  for (const report of reports) {
    lines.push(`${report.enabled ? "* " : ""}${report.name} — ${report.description}`);
    for (const tool of report.tools) lines.push(`    ${MARK[tool.state]} ${tool.name}${NOTE[tool.state]}`);
  }
  return lines;
}

export function registerToolsCommand(program: Command, io: CommandIo = processIo): Command {
  return program
    .command("tools")
    .description("list toolsets and their tools, with availability")
    .option("--summary", "one line per toolset")
    .action(async (opts: { summary?: boolean }) => {
      const { loadConfig } = await import("../../state/config.js");
      const { hermesHome } = await import("../../state/paths.js");
      const home = hermesHome();
      const { config } = loadConfig({ home });
      const reports = await toolsetReport(config.toolsets, home, config);
      const lines = opts.summary ? formatSummary(reports) : formatFull(reports);
      for (const line of lines) io.out(line);
      io.out(
        `* enabled in config.yaml (toolsets: ${config.toolsets.join(", ")}). Change with: hermes config set toolsets a,b`,
      );
    });
}
