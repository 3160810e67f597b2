/**
 * Standing goals (`/goal`): the user names an objective and the agent keeps working toward it,
 * turn after turn, until a judge model says the last reply achieved it, the user pauses or
 * clears it, or `goals.max_turns` turns have run. A continuation is an ordinary user turn, so a
 * message the user sends meanwhile simply goes first. The judge (the `goal_judge` auxiliary
 * task) fails open: when it cannot be reached the loop goes on and the turn budget is the
 * backstop; when it keeps answering something that is not a verdict, the goal pauses with a
 * pointer to a stricter judge model. A goal is kept per session in `$HERMES_HOME/goals/`, so
 * resuming the session resumes its goal.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AuxiliaryClient } from "../agent/auxiliary.js";
import { atomicWriteFile } from "../util/atomic-write.js";

export type GoalStatus = "active" | "paused" | "done";

export interface GoalState {
  goal: string;
  status: GoalStatus;
  /** Turns run for the goal since it was set or last resumed. */
  turnsUsed: number;
  maxTurns: number;
  /** The judge's answers in a row that were not a verdict. */
  parseFailures: number;
  /** Why the goal last paused, or what the judge last said. */
  note?: string;
  setAt: number;
  updatedAt: number;
}

/** Judge answers in a row that are not a verdict before the goal pauses. */
export const MAX_JUDGE_PARSE_FAILURES = 3;
/** Characters of the goal kept; a longer one is refused. */
export const MAX_GOAL_CHARS = 4000;
/** Characters of the reply the judge reads (its end, where a conclusion usually is). */
const JUDGE_REPLY_CHARS = 6000;

export type Verdict =
  | { kind: "done"; reason: string }
  | { kind: "continue"; reason: string }
  /** The judge could not be reached (fails open) or did not give a verdict (counted). */
  | { kind: "unreachable"; reason: string }
  | { kind: "unparsable"; reason: string };

const JUDGE_INSTRUCTIONS = `You decide whether an assistant has achieved a goal its user set. You see the goal and the assistant's latest reply. Answer with one JSON object and nothing else: {"done": true|false, "reason": "<one short sentence>"}. Say done only when the reply shows the goal is fully achieved, or that it cannot be achieved and the assistant explained why; a plan, a partial result or a promise to continue is not done.`;

function parseVerdict(text: string): Verdict {
  const match = /\{[\s\S]*\}/.exec(text);
  if (!match) return { kind: "unparsable", reason: "the judge gave no JSON verdict" };
  try {
    const value = JSON.parse(match[0]) as { done?: unknown; reason?: unknown };
    if (typeof value.done !== "boolean") return { kind: "unparsable", reason: "the judge's verdict had no done field" };
    const reason = typeof value.reason === "string" ? value.reason.trim().slice(0, 300) : "";
    return value.done ? { kind: "done", reason } : { kind: "continue", reason };
  } catch {
    return { kind: "unparsable", reason: "the judge's verdict was not valid JSON" };
  }
}

/** Asks the `goal_judge` auxiliary model whether `reply` achieved `goal`. Never throws. */
export async function judgeGoal(
  auxiliary: Pick<AuxiliaryClient, "complete">,
  goal: string,
  reply: string,
  signal?: AbortSignal,
): Promise<Verdict> {
  const tail = reply.length > JUDGE_REPLY_CHARS ? `…${reply.slice(-JUDGE_REPLY_CHARS)}` : reply;
  try {
    const answer = await auxiliary.complete(
      "goal_judge",
      [
        { role: "system", content: JUDGE_INSTRUCTIONS },
        { role: "user", content: `Goal:\n${goal}\n\nThe assistant's latest reply:\n${tail || "(empty)"}` },
      ],
      { maxTokens: 200, ...(signal ? { signal } : {}) },
    );
    return parseVerdict(answer);
  } catch (error) {
    return { kind: "unreachable", reason: error instanceof Error ? error.message : String(error) };
  }
}

/** How every continuation starts, so a surface can tell its queued ones from the user's messages. */
export const GOAL_TURN_PREFIX = "[Standing goal, turn ";

/** The user turn that sends the agent back to work on its goal. */
export function continuationPrompt(state: GoalState): string {
  return (
    `${GOAL_TURN_PREFIX}${state.turnsUsed + 1} of ${state.maxTurns}] Keep working toward the goal: ${state.goal}\n` +
    "Take the next concrete step with your tools. When the goal is fully achieved, say so plainly and show the " +
    "evidence; if it cannot be achieved, say why."
  );
}

/** Goals kept one file per session under `$HERMES_HOME/goals/`. */
export class GoalBook {
  constructor(
    private readonly home: string,
    private readonly now: () => number = Date.now,
  ) {}

  private path(sessionId: string): string {
    return join(this.home, "goals", `${sessionId.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
  }

  get(sessionId: string): GoalState | undefined {
    try {
      const value = JSON.parse(readFileSync(this.path(sessionId), "utf8")) as GoalState;
      return typeof value.goal === "string" && typeof value.status === "string" ? value : undefined;
    } catch {
      return undefined;
    }
  }

  private put(sessionId: string, state: GoalState): GoalState {
    const saved = { ...state, updatedAt: this.now() };
    atomicWriteFile(this.path(sessionId), `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
    return saved;
  }

  set(sessionId: string, goal: string, maxTurns: number): GoalState {
    const text = goal.trim();
    if (!text) throw new Error("a goal needs some text: /goal <what to achieve>");
    if (text.length > MAX_GOAL_CHARS) throw new Error(`a goal is at most ${MAX_GOAL_CHARS} characters`);
    const at = this.now();
    return this.put(sessionId, {
      goal: text,
      status: "active",
      turnsUsed: 0,
      maxTurns,
      parseFailures: 0,
      setAt: at,
      updatedAt: at,
    });
  }

  /** Pause, or resume with a fresh turn budget; undefined when the session has no goal. */
  setStatus(sessionId: string, status: "active" | "paused", note?: string): GoalState | undefined {
    const state = this.get(sessionId);
    if (!state) return undefined;
    const resumed = status === "active" ? { turnsUsed: 0, parseFailures: 0 } : {};
    const { note: _old, ...rest } = state;
    return this.put(sessionId, { ...rest, ...resumed, status, ...(note ? { note } : {}) });
  }

  clear(sessionId: string): boolean {
    const had = this.get(sessionId) !== undefined;
    rmSync(this.path(sessionId), { force: true });
    return had;
  }

  /**
   * After a turn of an active goal: counts it, asks the judge, and says what comes next — a
   * continuation to send, or a notice that the goal is done or paused. `interrupted` turns (the
   * user stopped it) pause the goal instead of judging it.
   */
  async afterTurn(
    sessionId: string,
    turn: { reply: string; interrupted: boolean; failed: boolean },
    judge: (goal: string, reply: string) => Promise<Verdict>,
  ): Promise<{ continueWith?: string; notice?: string; state?: GoalState }> {
    const state = this.get(sessionId);
    if (state?.status !== "active") return {};
    const counted = { ...state, turnsUsed: state.turnsUsed + 1 };
    if (turn.interrupted || turn.failed) {
      const why = turn.interrupted ? "the turn was stopped" : "the turn failed";
      this.put(sessionId, { ...counted, status: "paused", note: why });
      return { notice: `Goal paused: ${why}. /goal resume to go on.` };
    }
    const verdict = await judge(state.goal, turn.reply);
    if (verdict.kind === "done") {
      this.put(sessionId, { ...counted, status: "done", note: verdict.reason });
      return { notice: `Goal achieved${verdict.reason ? `: ${verdict.reason}` : "."}` };
    }
    const parseFailures = verdict.kind === "unparsable" ? state.parseFailures + 1 : 0;
    if (parseFailures >= MAX_JUDGE_PARSE_FAILURES) {
      const note = `the judge model gave no verdict ${parseFailures} times in a row`;
      this.put(sessionId, { ...counted, parseFailures, status: "paused", note });
      return {
        notice: `Goal paused: ${note}. Route auxiliary.goal_judge to a model that follows instructions, then /goal resume.`,
      };
    }
    if (counted.turnsUsed >= counted.maxTurns) {
      const note = `its turn budget (${counted.maxTurns}, goals.max_turns) is used up`;
      this.put(sessionId, { ...counted, parseFailures, status: "paused", note });
      return { notice: `Goal paused: ${note}. /goal resume gives it another ${counted.maxTurns} turns.` };
    }
    const note = verdict.kind === "continue" ? verdict.reason : `judge unavailable (${verdict.reason}); going on`;
    const saved = this.put(sessionId, { ...counted, parseFailures, note });
    return { continueWith: continuationPrompt(saved), state: saved };
  }
}

/** One line for `/goal status`. */
export function describeGoal(state: GoalState | undefined): string {
  if (!state) return "No goal set. /goal <what to achieve> sets one; the agent then works on it turn after turn.";
  const head = `Goal (${state.status}, ${state.turnsUsed}/${state.maxTurns} turns): ${state.goal}`;
  return state.note ? `${head}\n  ${state.note}` : head;
}
