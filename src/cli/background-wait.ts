/**
 * Background subagents in a one-shot run (`hermes chat -q`): the process never exits with
 * children still working. After the turn it waits for them (each bounded by
 * `delegation.child_timeout_seconds`), runs one more turn carrying their results, and that
 * turn's answer is the one printed; again while follow-up turns dispatch more, up to a bound.
 * Ctrl+C stops the children and the wait.
 */
import type { Agent, RunResult } from "../agent/agent.js";
import { type BackgroundDelegations, type BackgroundResult, backgroundResultsMessage } from "../agent/delegation.js";
import { addUsage } from "../llm/usage.js";

/** Follow-up turns after the first; children still running after the last are stopped at exit. */
export const MAX_FOLLOW_UP_TURNS = 10;

export interface BackgroundCollector {
  /** Waits for the children and runs the follow-up turns; returns the run whose answer to print. */
  finish(agent: Agent, first: RunResult, notice: (message: string) => void): Promise<RunResult>;
  /** Ctrl+C: stop every child and any wait for them. */
  stop(): void;
}

/** Starts collecting results; call before the first turn, since a dispatch needs someone to deliver to. */
export function collectBackgroundResults(registry: BackgroundDelegations): BackgroundCollector {
  const arrived: BackgroundResult[] = [];
  const stopping = new AbortController();
  const detach = registry.attach({ accepts: () => true, deliver: (result) => arrived.push(result) });
  const stopped = new Promise<void>((resolve) => stopping.signal.addEventListener("abort", () => resolve()));
  return {
    stop() {
      if (stopping.signal.aborted) return;
      stopping.abort();
      registry.cancel(() => true, "interrupted by the user");
    },
    async finish(agent, first, notice) {
      let last = first;
      let total = first;
      try {
        for (let turn = 0; turn < MAX_FOLLOW_UP_TURNS && !last.interrupted; turn++) {
          const running = registry.activeCount;
          if (running > 0) {
            notice(
              `waiting for ${running} background subagent${running === 1 ? "" : "s"} to finish (Ctrl+C stops them)`,
            );
            await Promise.race([registry.idle(), stopped]);
          }
          if (stopping.signal.aborted) return { ...last, interrupted: true, stopReason: "interrupted" };
          if (arrived.length === 0) break;
          last = await agent.runConversation(backgroundResultsMessage(arrived.splice(0)));
          total = combined(total, last);
        }
        return total;
      } finally {
        detach();
      }
    },
  };
}

/** The last run's answer and outcome, with the counts of every run before it added in. */
function combined(before: RunResult, last: RunResult): RunResult {
  return {
    ...last,
    usage: addUsage(before.usage, last.usage),
    apiCalls: before.apiCalls + last.apiCalls,
    toolCalls: before.toolCalls + last.toolCalls,
  };
}
