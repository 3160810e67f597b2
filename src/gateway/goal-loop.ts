/**
 * Standing goals in a chat (`/goal`, see runtime/goals.ts): after each turn of a session with an
 * active goal the judge decides, and the next step is queued in the chat's lane like a /retry.
 * Messages already waiting in the lane go first; the goal goes on after them.
 */
import {
  continuationPrompt,
  describeGoal,
  GOAL_TURN_PREFIX,
  GoalBook,
  type GoalState,
  judgeGoal,
} from "../runtime/goals.js";
import type { GatewayRunner } from "./runner.js";
import type { Turn } from "./turn.js";
import type { InboundMessage } from "./types.js";

function book(runner: GatewayRunner): GoalBook {
  return new GoalBook(runner.runtime.home);
}

/** The goal's next step, answering the /goal message again under its own reply name. */
function queueStep(runner: GatewayRunner, sessionKey: string, message: InboundMessage, state: GoalState): void {
  const text = continuationPrompt(state);
  runner.enqueue({
    sessionKey,
    message,
    extra: [],
    text,
    byCommand: true,
    replyTag: `goal-${state.setAt}-${state.updatedAt}-${state.turnsUsed}`,
  });
}

/** `/goal [TEXT | status | pause | resume | clear]` for the chat's session `sessionId`. */
export function goalCommand(
  runner: GatewayRunner,
  input: { sessionKey: string; sessionId: string; message: InboundMessage; args: string },
): string {
  const goals = book(runner);
  const word = input.args.trim().toLowerCase();
  if (word === "" || word === "status") return describeGoal(goals.get(input.sessionId));
  if (word === "pause" || word === "clear") {
    // A step already queued for the goal goes too.
    const waiting = runner.waiting(input.sessionKey);
    if (waiting.some((turn) => turn.text?.startsWith(GOAL_TURN_PREFIX))) {
      const kept = runner.clearWaiting(input.sessionKey).filter((turn) => !turn.text?.startsWith(GOAL_TURN_PREFIX));
      for (const turn of kept) runner.enqueue(turn);
    }
    if (word === "clear") return goals.clear(input.sessionId) ? "Goal cleared." : describeGoal(undefined);
    const paused = goals.setStatus(input.sessionId, "paused", "paused with /goal pause");
    return paused ? "Goal paused. /goal resume to go on." : describeGoal(undefined);
  }
  const state =
    word === "resume"
      ? goals.setStatus(input.sessionId, "active")
      : goals.set(input.sessionId, input.args, runner.runtime.config.goals.max_turns);
  if (!state) return describeGoal(undefined);
  queueStep(runner, input.sessionKey, input.message, state);
  return word === "resume"
    ? `Goal resumed with a fresh budget of ${state.maxTurns} turns.`
    : `Goal set (up to ${state.maxTurns} turns; /goal pause or /stop halts it): ${state.goal}`;
}

/** After a turn: judge an active goal, tell the chat when it ends or pauses, queue its next step. */
export async function afterGoalTurn(
  runner: GatewayRunner,
  turn: Turn,
  sessionId: string,
  outcome: { reply: string; answered: boolean; interrupted: boolean },
): Promise<void> {
  const goals = book(runner);
  if (goals.get(sessionId)?.status !== "active") return;
  const preempted = runner.waiting(turn.sessionKey).length > 0;
  // Interrupted by a message that is now waiting: that message goes first, the goal after it.
  if (outcome.interrupted && preempted) return;
  try {
    const { state, notice } = await goals.afterTurn(
      sessionId,
      { reply: outcome.reply, interrupted: outcome.interrupted, failed: !outcome.answered && !outcome.interrupted },
      async (goal, reply) => judgeGoal(await runner.runtime.auxiliary(), goal, reply),
    );
    if (notice) await runner.reply(turn.message, turn.sessionKey, notice);
    if (state && !preempted) queueStep(runner, turn.sessionKey, turn.message, state);
  } catch (error) {
    runner.log(
      `${turn.sessionKey}: the standing goal could not go on: ${error instanceof Error ? error.message : error}`,
    );
  }
}
