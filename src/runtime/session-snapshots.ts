/**
 * `sessions.write_json_snapshots`: after every turn of every session the runtime starts, the
 * session is also written to `$HERMES_HOME/sessions/session_<id>.json`. It rides on the
 * `post_llm_call` hook (once per turn, after the last model call, with the session's current id,
 * so a compressed session continues in its new file). Loaded only when the key is on.
 */
import type { AgentOptions } from "../agent/agent.js";
import { HookRunner } from "../agent/hooks.js";
import { writeSessionSnapshot } from "../state/session-snapshots.js";
import type { SessionStore } from "../state/session-store.js";

/** A big session takes a while to export; a slow disk must not get the snapshot skipped. */
const SNAPSHOT_TIMEOUT_MS = 60_000;

export interface SnapshotWiring {
  home: string;
  store: SessionStore;
  /** Told (once) when a snapshot cannot be written. */
  notice: (message: string) => void;
}

/** Adds the snapshot writer to the options' hooks (creating the hook runner when there is none). */
export function writeSnapshotsAfterTurns(options: AgentOptions, wiring: SnapshotWiring): void {
  options.hooks ??= new HookRunner({ onWarning: wiring.notice });
  options.hooks.add(
    "post_llm_call",
    async ({ sessionId }) => {
      await writeSessionSnapshot(wiring.home, wiring.store, sessionId);
    },
    { owner: "sessions.write_json_snapshots", timeoutMs: SNAPSHOT_TIMEOUT_MS },
  );
}
