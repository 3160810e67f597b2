/**
 * The terminal's view of the runtime: one agent for the terminal session, built from
 * HERMES_HOME and the command-line flags, with notices written to stderr.
 */

import type { Agent } from "../agent/agent.js";
import type { AuxiliaryClient } from "../agent/auxiliary.js";
import type { BackgroundDelegations } from "../agent/delegation.js";
import type { Learner } from "../runtime/learning/learner.js";
import type { DetectOptions } from "../runtime/local-servers.js";
import type { Extensions } from "../runtime/plugins/setup.js";
import { openRuntime } from "../runtime/runtime.js";
import type { HermesConfig } from "../state/config-schema.js";
import type { SessionStore } from "../state/session-store.js";
import type { ApprovalPolicy } from "../tools/approval/policy.js";
import type { ToolContext } from "../tools/registry.js";
import { loadCronToolBackend } from "./cron-tool-backend.js";
import { UsageError } from "./exit-codes.js";
import type { ChatFlags } from "./program.js";
import { registerTerminalSendMessage } from "./send-message-tool.js";

export { NO_PROVIDER_HELP, providerFromEnvironment, unavailableFeatures } from "../runtime/runtime.js";

export interface Runtime {
  agent: Agent;
  config: HermesConfig;
  model: string;
  provider: string;
  store: SessionStore;
  /** The approval policy shared by the shell tools (`/yolo` flips its `yolo` flag). */
  approvals: ApprovalPolicy;
  /** Restart the MCP servers from the current config.yaml (`/reload-mcp`); returns status lines. */
  reloadMcp(): Promise<string[]>;
  /** The base URL in use, when one was given or detected. */
  baseUrl?: string;
  /** The auxiliary-model client for side tasks (titles, summaries), built on first use. */
  auxiliary(): Promise<AuxiliaryClient>;
  /** Plugins and hooks, when any are installed or configured. */
  extensions?: Extensions;
  /** The learning loop (/learn), unless learning.mode is off. */
  learner?: Learner;
  /** Background subagents (delegate_task with background: true); stopped by close(). */
  background: BackgroundDelegations;
  home: string;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  interactive: boolean;
  quiet: boolean;
  /** Answers the clarify tool (interactive surfaces). */
  clarify?: ToolContext["clarify"];
  /** Asks the user about dangerous commands (interactive surfaces). */
  requestApproval?: ToolContext["requestApproval"];
  /** Where to look for a local model server when nothing is configured; `false` skips the probe. */
  localServers?: DetectOptions | false;
  /** Follow `display.tui_auto_resume_recent` when no session is named (the terminal UI's start). */
  autoResumeRecent?: boolean;
}

function parseMaxTurns(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`--max-turns must be a positive integer (got "${raw}")`);
  return value;
}

function toolsetsFlag(raw: string | undefined): string[] | undefined {
  if (!raw) return undefined;
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

async function sessionToResume(store: SessionStore, flags: ChatFlags, latest = false): Promise<string | undefined> {
  if (flags.resume) {
    if (!(await store.getSession(flags.resume))) {
      throw new UsageError(`no session with id ${flags.resume} (see hermes sessions list)`);
    }
    return flags.resume;
  }
  if (flags.continue || latest) {
    const [recent] = await store.listSessions({ limit: 1, source: "cli" });
    return recent?.id;
  }
  return undefined;
}

export async function buildRuntime(flags: ChatFlags, options: RuntimeOptions): Promise<Runtime> {
  const maxTurns = parseMaxTurns(flags.maxTurns);
  const toolsets = toolsetsFlag(flags.toolsets);
  const runtime = await openRuntime({
    overrides: {
      model: flags.model,
      provider: flags.provider,
      baseUrl: flags.baseUrl,
      apiKey: flags.apiKey,
      apiMode: flags.apiMode,
      ...(maxTurns ? { maxTurns } : {}),
      ...(toolsets ? { toolsets } : {}),
      yolo: Boolean(flags.yolo),
      ...(flags.mode ? { permissionMode: flags.mode } : {}),
      saveTrajectories: Boolean(flags.saveTrajectories),
    },
    callbacks: {
      onNotice: (message, level) => {
        if (!options.quiet || level === "important") process.stderr.write(`hermes: ${message}\n`);
      },
    },
    ...(options.localServers !== undefined ? { localServers: options.localServers } : {}),
    platform: "cli",
    interactive: options.interactive,
    singleTurn: !options.interactive,
    cronTool: loadCronToolBackend,
    // -v mirrors the log to stderr in one-shot runs; in the TUI it would scribble over the screen.
    ...(flags.verbose && !options.interactive
      ? { logMirror: (line: string) => process.stderr.write(`${line}\n`) }
      : {}),
  });
  const sendMessage = registerTerminalSendMessage(runtime);
  let sessionId: string | undefined;
  try {
    const autoResume = Boolean(options.autoResumeRecent && runtime.config.display.tui_auto_resume_recent);
    sessionId = await sessionToResume(runtime.store, flags, autoResume);
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const agent = runtime.createAgent({
    ...(sessionId ? { sessionId } : {}),
    ...(options.clarify ? { clarify: options.clarify } : {}),
    ...(options.requestApproval ? { requestApproval: options.requestApproval } : {}),
  });
  return {
    agent,
    config: runtime.config,
    model: runtime.model,
    provider: runtime.provider,
    store: runtime.store,
    approvals: runtime.approvals,
    ...(runtime.baseUrl ? { baseUrl: runtime.baseUrl } : {}),
    auxiliary: () => runtime.auxiliary(),
    reloadMcp: () => runtime.reloadMcp(),
    ...(runtime.extensions ? { extensions: runtime.extensions } : {}),
    ...(runtime.learner ? { learner: runtime.learner } : {}),
    background: runtime.background,
    home: runtime.home,
    close: async () => {
      await agent.endSession("closed");
      await sendMessage.close();
      await runtime.close();
    },
  };
}
