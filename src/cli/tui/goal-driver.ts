/**
 * The terminal's side of standing goals (`/goal`, see runtime/goals.ts): after each turn the
 * judge decides whether the next step goes in the session's queue, and the goal commands.
 */
import type { AuxiliaryClient } from "../../agent/auxiliary.js";
import { continuationPrompt, describeGoal, GOAL_TURN_PREFIX, GoalBook, judgeGoal } from "../../runtime/goals.js";
import type { GoalAnswer, GoalControl } from "../slash/context.js";
import type { TurnOutcome } from "./controller.js";

/** What the driver needs from the interactive session it serves. */
export interface GoalHost {
  sessionId(): string;
  /** HERMES_HOME, where goals are kept; undefined when the session has none. */
  home(): string | undefined;
  maxTurns(): number;
  auxiliary(): Promise<AuxiliaryClient>;
  print(text: string): void;
  /** Messages waiting to run after the current turn (the driver may drop its own steps). */
  readonly queue: string[];
  /** Whether /stop was used since the last call (and forget it). */
  takeStopRequest(): boolean;
  closed(): boolean;
}

export class GoalDriver implements GoalControl {
  constructor(private readonly host: GoalHost) {}

  private book(): GoalBook | undefined {
    const home = this.host.home();
    return home ? new GoalBook(home) : undefined;
  }

  private requireBook(): GoalBook {
    const found = this.book();
    if (!found) throw new Error("this session has no Hermes home to keep a goal in");
    return found;
  }

  /** After a turn: the goal's next step to run, if its judge says it goes on; notices are shown. */
  async afterTurn(outcome: TurnOutcome): Promise<string | undefined> {
    const stopped = this.host.takeStopRequest();
    const book = this.book();
    if (!book || this.host.closed()) return undefined;
    const sessionId = this.host.sessionId();
    const { continueWith, notice } = await book.afterTurn(
      sessionId,
      {
        reply: outcome.result?.finalResponse ?? "",
        interrupted: stopped || Boolean(outcome.result?.interrupted),
        failed: outcome.result === undefined || Boolean(outcome.error && !outcome.result.finalResponse),
      },
      async (goal, reply) => judgeGoal(await this.host.auxiliary(), goal, reply),
    );
    if (notice) this.host.print(notice);
    if (continueWith && this.host.takeStopRequest()) {
      // /stop while the judge was deciding: no next step.
      book.setStatus(sessionId, "paused", "stopped with /stop");
      this.host.print("Goal paused: stopped with /stop. /goal resume to go on.");
      return undefined;
    }
    return continueWith;
  }

  status(): string {
    return describeGoal(this.book()?.get(this.host.sessionId()));
  }

  set(text: string): GoalAnswer {
    const state = this.requireBook().set(this.host.sessionId(), text, this.host.maxTurns());
    return {
      message: `Goal set (up to ${state.maxTurns} turns; /goal pause or /stop halts it): ${state.goal}`,
      start: continuationPrompt(state),
    };
  }

  pause(): string {
    const state = this.requireBook().setStatus(this.host.sessionId(), "paused", "paused with /goal pause");
    this.dropQueuedSteps();
    return state ? "Goal paused. /goal resume to go on." : describeGoal(undefined);
  }

  resume(): GoalAnswer {
    const state = this.requireBook().setStatus(this.host.sessionId(), "active");
    if (!state) return { message: describeGoal(undefined) };
    return {
      message: `Goal resumed with a fresh budget of ${state.maxTurns} turns: ${state.goal}`,
      start: continuationPrompt(state),
    };
  }

  clear(): string {
    this.dropQueuedSteps();
    return this.requireBook().clear(this.host.sessionId()) ? "Goal cleared." : describeGoal(undefined);
  }

  /** Queued next steps of a goal that was just paused or cleared. */
  private dropQueuedSteps(): void {
    const { queue } = this.host;
    for (let i = queue.length - 1; i >= 0; i--) if (queue[i]!.startsWith(GOAL_TURN_PREFIX)) queue.splice(i, 1);
  }
}
