/**
 * What each session of a runtime gets besides the shared agent options: its permission gate
 * (mode and `permissions.*` rules), its checkpointer, and the memory of its scope (with the
 * configured memory provider); plus the housekeeping a runtime where a person works runs in the
 * background (pruning old checkpoints, the skills curator).
 */
import type { AgentOptions } from "../agent/agent.js";
import type { AuxiliaryClient } from "../agent/auxiliary.js";
import type { HermesConfig } from "../state/config-schema.js";
import type { SessionStore } from "../state/session-store.js";
import { PermissionGate, type PermissionMode } from "../tools/permissions/gate.js";
import { parsePermissionRules } from "../tools/permissions/rules.js";
import { type MemoryWiring, memoryOption } from "./agent-options.js";
import { checkpointsWanted, pruneCheckpointsInBackground, sessionCheckpointer } from "./checkpoints.js";
import { curateInBackground, newestSessionActivity } from "./learning/curator-schedule.js";
import type { ProviderChoiceInput } from "./memory-providers.js";
import { memoryProviderSource } from "./memory-providers.js";

export interface SessionFeaturesInput {
  home: string;
  config: HermesConfig;
  /** The runtime's working directory: the project auto-edit mode edits. */
  cwd: string;
  platform: string;
  interactive: boolean;
  /** `--mode`, or `--yolo`. */
  permissionMode?: PermissionMode;
  yolo?: boolean;
  memoryProviders?: ProviderChoiceInput["plugins"];
  notice: (message: string) => void;
}

export interface SessionRequest {
  platform?: string;
  interactive?: boolean;
  cwd?: string;
  permissionMode?: PermissionMode;
  checkpoints?: boolean;
  memoryScope?: string;
}

export interface SessionFeatures {
  /** The base options' memory: the home's own, with the provider. */
  memoryWiring: MemoryWiring;
  /**
   * Starts the scheduled skills curator in the background where a person works (it needs the
   * session store for its idle check, and the auxiliary model for consolidation).
   */
  startCurator(store: Pick<SessionStore, "listSessions">, auxiliary: () => Promise<AuxiliaryClient>): void;
  /** Options one session gets on top of the shared ones. */
  forSession(request: SessionRequest): Pick<AgentOptions, "permissions" | "checkpoints" | "memory">;
  /** Waits for the background work and shuts down the scoped memories. */
  close(): Promise<void>;
}

export function sessionFeatures(input: SessionFeaturesInput): SessionFeatures {
  const { home, config, notice } = input;
  const rules = {
    allow: parsePermissionRules(config.permissions.allow),
    deny: parsePermissionRules(config.permissions.deny),
  };
  for (const [list, parsed] of Object.entries(rules)) {
    for (const problem of parsed.problems) notice(`permissions.${list}: ${problem}`);
  }
  const startMode: PermissionMode = input.permissionMode ?? (input.yolo ? "yolo" : config.approvals.default_mode);
  // Housekeeping where a person works with the agent: old checkpoints and unused skills.
  const attended = checkpointsWanted(config, input.platform, input.interactive);
  const background: Array<Promise<void> | undefined> = attended
    ? [pruneCheckpointsInBackground(home, config, notice)]
    : [];
  const closing = new AbortController();
  const provider = memoryProviderSource({
    home,
    config,
    ...(input.memoryProviders ? { plugins: input.memoryProviders } : {}),
    notice,
  });
  const memoryWiring: MemoryWiring = { ...(provider ? { provider } : {}), onWarning: notice };
  // One memory manager per scope (a gateway user's memory), shared by that scope's sessions.
  const scoped = new Map<string, AgentOptions["memory"]>();
  const scopedMemory = (scope: string): AgentOptions["memory"] => {
    if (!scoped.has(scope)) scoped.set(scope, memoryOption(home, config, scope, memoryWiring).memory);
    return scoped.get(scope);
  };

  return {
    memoryWiring,
    startCurator(store, auxiliary) {
      if (!attended) return;
      background.push(
        curateInBackground({
          home,
          config,
          notice,
          lastSessionActivity: () => newestSessionActivity(store),
          auxiliary,
          signal: closing.signal,
        }),
      );
    },
    forSession(request) {
      const platform = request.platform ?? input.platform;
      const interactive = request.interactive ?? input.interactive;
      return {
        permissions: new PermissionGate({
          mode: request.permissionMode ?? startMode,
          allow: rules.allow.rules,
          deny: rules.deny.rules,
          projectRoot: request.cwd ?? input.cwd,
        }),
        ...((request.checkpoints ?? checkpointsWanted(config, platform, interactive))
          ? { checkpoints: sessionCheckpointer(home, config, notice) }
          : {}),
        ...(request.memoryScope !== undefined ? { memory: scopedMemory(request.memoryScope) } : {}),
      };
    },
    async close() {
      // A consolidation still waiting for the model gives up; the next scheduled run asks again.
      closing.abort();
      for (const memory of scoped.values()) if (memory) await memory.shutdown();
      await Promise.all(background);
    },
  };
}
