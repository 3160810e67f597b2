/**
 * The tools a runtime's sessions get: the built-ins, skills (seeded on first run), delegation, and
 * the configured MCP servers, started in the background so a slow server never holds up the
 * first prompt beyond its own connect timeout.
 */

import type { AuxiliaryClient } from "../agent/auxiliary.js";
import { PROVIDERS } from "../llm/providers.js";
import type { HermesConfig } from "../state/config-schema.js";
import { type ApprovalPolicy, approvalPolicyFromConfig, type SmartJudge } from "../tools/approval/policy.js";
import { tirithScannerFromConfig } from "../tools/approval/tirith.js";
import type { BrowserTools } from "../tools/builtin/browser.js";
import { registerBuiltinTools } from "../tools/builtin/index.js";
import type { ReadLimits } from "../tools/builtin/read-file.js";
import type { LazyDiagnostics } from "../tools/lsp/hook.js";
import type { McpManager } from "../tools/mcp/manager.js";
import { withholdFromCommands } from "../tools/process-group.js";
import type { ToolRegistry } from "../tools/registry.js";
import { configureShellInit } from "../tools/shell-init.js";
import { discoverSkills } from "../tools/skills/discovery.js";
import { seedBundledSkills } from "../tools/skills/seed.js";
import { buildSkillsIndex, NON_CODING_SKILL_CATEGORIES } from "../tools/skills/skills-index.js";
import { registerSkillsTools } from "../tools/skills/tools.js";
import { configureToolSearch } from "../tools/tool-search.js";
import { WebsiteBlocklist } from "../tools/web/blocklist.js";
import { browserTools } from "./browser.js";
import { imageGenToolOptions } from "./image-gen.js";
import { lspDiagnostics } from "./lsp.js";
import { moaToolOptions } from "./moa.js";
import { externalSkillDirs } from "./skill-dirs.js";
import { ttsToolOptions } from "./tts.js";
import { visionToolOptions } from "./vision.js";
import { xSearchToolOptions } from "./x-search.js";

export interface SessionTools {
  approvals: ApprovalPolicy;
  skillsIndex: string;
  mcp: McpManager | undefined;
  /** Toolsets the MCP servers add (enabled unless --toolsets narrows the set). */
  mcpToolsets: string[];
  /** The browser the browser tools start on their first call; closed with the runtime. */
  browser: BrowserTools;
  /** The language servers write_file and patch start on their first edit; closed with the runtime. */
  lsp: LazyDiagnostics | undefined;
}

async function persistAllowlist(home: string, config: HermesConfig, pattern: string): Promise<void> {
  const current = config.approvals.command_allowlist;
  if (current.includes(pattern)) return;
  current.push(pattern);
  // The YAML editor loads only when someone answers "always".
  const { setConfigValue } = await import("../state/config.js");
  setConfigValue(home, "approvals.command_allowlist", JSON.stringify(current));
}

export async function assembleTools(
  registry: ToolRegistry,
  input: {
    home: string;
    cwd: string;
    config: HermesConfig;
    yolo: boolean;
    /** The surface the runtime serves ("cli", "api_server", "cron", ...). */
    platform: string;
    notice: (message: string) => void;
    smartJudge?: SmartJudge;
    /** The session works in the lean coding posture: non-coding skill categories are listed by name only. */
    codingFocus?: boolean;
    /** The auxiliary client, for vision_analyze and MCP sampling (built on its first call). */
    auxiliary?: () => Promise<AuxiliaryClient>;
  },
): Promise<SessionTools> {
  const { home, cwd, config } = input;
  const approvals = approvalPolicyFromConfig(config, {
    yolo: input.yolo,
    persistAllowlist: (pattern) => persistAllowlist(home, config, pattern),
    ...(input.smartJudge ? { smartJudge: input.smartJudge } : {}),
    scanCommand: tirithScannerFromConfig(config.security, home, input.notice),
  });
  const passthrough = new Set(config.terminal.env_passthrough);
  const agentKeys = [...PROVIDERS.flatMap((p) => p.keyEnvVars), "API_SERVER_KEY"];
  if (config.secrets.bitwarden.enabled) agentKeys.push(config.secrets.bitwarden.access_token_env);
  withholdFromCommands(agentKeys.filter((name) => !passthrough.has(name)));
  configureToolSearch({
    defaultLimit: config.tools.tool_search.search_default_limit,
    maxLimit: config.tools.tool_search.max_search_limit,
  });
  configureShellInit({
    files: config.terminal.shell_init_files,
    // The terminal CLI was started from the user's shell and already has what those files
    // export; a service (gateway, cron, an editor's ACP) was not.
    autoSourceBashrc: config.terminal.auto_source_bashrc && input.platform !== "cli",
  });
  const websiteBlocklist = WebsiteBlocklist.from(config.security.website_blocklist, home, input.notice);
  const browser = browserTools(config, {
    home,
    blocklist: websiteBlocklist,
    ...(input.auxiliary ? { auxiliary: input.auxiliary } : {}),
  });
  const lsp = lspDiagnostics(config, home);
  registerBuiltinTools(registry, {
    approvals,
    terminalTimeoutSeconds: config.terminal.timeout,
    allowKeepAlive: config.terminal.allow_keep_alive,
    persistentShell: config.terminal.persistent_shell,
    codeExecution: {
      timeoutSeconds: config.code_execution.timeout,
      maxToolCalls: config.code_execution.max_tool_calls,
      mode: config.code_execution.mode,
    },
    ...(config.web.backend ? { webBackend: config.web.backend } : {}),
    ...(config.web.allow_private_urls ? { webAllowPrivateUrls: true } : {}),
    ...(config.web.search_backend ? { webSearchBackend: config.web.search_backend } : {}),
    ...(config.web.extract_backend ? { webExtractBackend: config.web.extract_backend } : {}),
    ...(config.web.extract_char_limit ? { webExtractPageChars: config.web.extract_char_limit } : {}),
    websiteBlocklist,
    ...toolOutputLimits(config),
    ...(lsp ? { diagnose: lsp.diagnose } : {}),
    tts: ttsToolOptions(config, home),
    imageGen: imageGenToolOptions(config, home),
    moa: moaToolOptions(config, home),
    xSearch: xSearchToolOptions(config),
    ...(input.auxiliary ? { vision: visionToolOptions(config, input.auxiliary) } : {}),
    browser,
  });

  try {
    seedBundledSkills(home);
  } catch (error) {
    input.notice(`could not seed the bundled skills: ${(error as Error).message}`);
  }
  const externalDirs = externalSkillDirs(config.skills.external_dirs, home);
  const { template_vars, inline_shell, inline_shell_timeout } = config.skills;
  registerSkillsTools(registry, {
    home,
    cwd,
    externalDirs,
    preprocessing: { templateVars: template_vars, inlineShell: inline_shell, inlineShellTimeout: inline_shell_timeout },
  });
  const { skills, problems } = discoverSkills({ home, cwd, externalDirs });
  for (const problem of problems) input.notice(`skill ${problem.path}: ${problem.message}`);

  let mcp: McpManager | undefined;
  if (Object.keys(config.mcp_servers).length > 0) {
    const { McpManager } = await import("../tools/mcp/manager.js");
    const sampling = input.auxiliary
      ? (await import("./mcp-sampling.js")).mcpSamplingModel(input.auxiliary)
      : undefined;
    mcp = new McpManager({ servers: config.mcp_servers, registry, ...(sampling ? { sampling } : {}) });
    void mcp.start();
  }
  const namesOnly = input.codingFocus ? NON_CODING_SKILL_CATEGORIES : undefined;
  return {
    approvals,
    skillsIndex: buildSkillsIndex(skills, namesOnly),
    mcp,
    mcpToolsets: mcp?.toolsetNames() ?? [],
    browser,
    lsp,
  };
}

/**
 * Waits for the MCP servers at most `waitSeconds` (`mcp_discovery_timeout`), so a slow server
 * does not hold up the first turn; the ones that fail are reported whenever they do. When some
 * were still connecting, `onLate` runs once they all have, so agents can take up their tools
 * from their next turn.
 */
export async function awaitMcp(
  mcp: McpManager | undefined,
  notice: (message: string) => void,
  waitSeconds: number,
  onLate: () => void,
): Promise<void> {
  if (!mcp) return;
  const all = mcp.start().then(async (statuses) => {
    const failed = statuses.filter((s) => s.state !== "connected");
    if (failed.length === 0) return;
    const { formatMcpStatus } = await import("../tools/mcp/status-text.js");
    for (const line of formatMcpStatus(failed)) notice(line);
  });
  if (!Number.isFinite(waitSeconds)) return all;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), waitSeconds * 1000);
  });
  const inTime = await Promise.race([all.then(() => true as const), waited]);
  clearTimeout(timer);
  if (inTime) return;
  const pending = mcp
    .status()
    .filter((s) => s.state === "connecting")
    .map((s) => s.name);
  if (pending.length > 0) {
    notice(`MCP: ${pending.join(", ")} still starting; their tools join from the next turn once ready`);
  }
  void all.then(() => {
    onLate();
    const ready = mcp
      .status()
      .filter((s) => pending.includes(s.name) && s.state === "connected")
      .map((s) => s.name);
    if (ready.length > 0) notice(`MCP: ${ready.join(", ")} ready; their tools are offered from the next turn`);
  });
}

/** 0 in the original's `tool_output` keys means no limit of that key's own. */
const NO_LIMIT = 10_000_000;

/** `tool_output.*` and `file_read_max_chars` as the terminal and read_file take them. */
function toolOutputLimits(config: HermesConfig): { terminalOutputChars: number; readLimits: ReadLimits } {
  const { max_bytes, max_lines, max_line_length } = config.tool_output;
  return {
    terminalOutputChars: max_bytes || NO_LIMIT,
    readLimits: {
      maxLines: max_lines || NO_LIMIT,
      maxLineChars: max_line_length || NO_LIMIT,
      maxPageChars: config.file_read_max_chars,
    },
  };
}
