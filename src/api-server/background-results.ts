/**
 * Background subagents dispatched from an API session: when one finishes, the server runs one
 * more turn of that session with the result (as `hermes chat` and the gateway do), so the
 * session's transcript holds the result and the agent's reaction to it. That turn is a run of
 * the Runs API, started by the server: `GET /v1/runs?session_id=...` lists it (its `trigger`
 * names the subagent), and its events stream like any run's. A turn waits while the session is
 * busy or every run slot is taken, and tries again as soon as a turn ends. Sessions created with
 * `store: false` keep nothing, so their results are dropped.
 */
import { type BackgroundResult, backgroundResultsMessage } from "../agent/delegation.js";
import { PLATFORM, type ServerContext } from "./context.js";
import { ApiError } from "./errors.js";
import type { RunManager } from "./runs/manager.js";

export class ApiBackgroundResults {
  private readonly waiting: BackgroundResult[] = [];
  private readonly turns = new Set<Promise<void>>();
  private detach: () => void = () => {};
  private closed = false;

  constructor(
    private readonly ctx: ServerContext,
    private readonly runs: RunManager,
    private readonly log: (message: string) => void,
  ) {}

  start(): void {
    this.detach = this.ctx.runtime.background.attach({
      accepts: (origin) => origin.platform === PLATFORM && origin.sessionId !== "",
      deliver: (result) => {
        this.waiting.push(result);
        this.pump();
      },
    });
  }

  /** Starts the waiting results whose session is free, while run slots last. */
  pump(): void {
    for (const result of [...this.waiting]) {
      if (this.closed || this.ctx.slots.inUse >= this.ctx.slots.limit) return;
      if (this.ctx.busySessions.has(result.origin.sessionId)) continue;
      this.waiting.splice(this.waiting.indexOf(result), 1);
      const turn = this.followUp(result).finally(() => this.turns.delete(turn));
      this.turns.add(turn);
    }
  }

  /** Stops taking results and waits for the follow-up runs under way (the server stops them). */
  async close(): Promise<void> {
    this.closed = true;
    this.detach();
    if (this.waiting.length > 0) this.log(`${this.waiting.length} background subagent result(s) were not delivered`);
    await Promise.allSettled([...this.turns]);
  }

  private async followUp(result: BackgroundResult): Promise<void> {
    const { sessionId } = result.origin;
    try {
      if (!(await this.ctx.runtime.store.getSession(sessionId))) {
        this.log(`background subagent ${result.id}: session ${sessionId} is not stored (store: false); result dropped`);
        return;
      }
      const namespace = (await this.ctx.store.sessionOwner(sessionId)) ?? "";
      const { run, done } = await this.runs.startInternal({
        namespace,
        sessionId,
        input: backgroundResultsMessage([result]),
        body: { background_result: { delegation_id: result.id, goal: result.goal } },
      });
      const ended = await done;
      // Agents of this session cached under another memory scope did not see the turn: they reload.
      const other = `api:${namespace}:${sessionId}:`;
      for (const key of this.ctx.runtime.cachedKeys()) {
        if (key.startsWith(other) && key !== other) this.ctx.runtime.evict(key);
      }
      this.log(`background subagent ${result.id} reported to session ${sessionId} in ${run.id} (${ended.status})`);
    } catch (error) {
      if (error instanceof ApiError && (error.status === 409 || error.status === 429) && !this.closed) {
        // Taken in the meantime by a client's turn: try again when a turn ends.
        this.waiting.push(result);
        return;
      }
      this.log(`background subagent ${result.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
