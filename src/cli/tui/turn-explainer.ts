/**
 * `display.turn_completion_explainer`: one line under a turn that ended without a real answer,
 * saying why and what to do, so it does not look like the agent simply went quiet. Interrupts and
 * errors already say so in the transcript, and a normal answer needs nothing.
 */
import type { TurnOutcome } from "./controller.js";

export function turnExplanation(outcome: TurnOutcome): string | undefined {
  const result = outcome.result;
  if (!result || outcome.error || result.interrupted) return undefined;
  if (result.stopReason === "budget") {
    return (
      "⚠ No final answer: the turn used up its iterations (agent.max_turns) first; above is the " +
      "model's summary of how far it got. Send `continue` to go on, or raise agent.max_turns."
    );
  }
  if (result.completed && !result.finalResponse.trim()) {
    return (
      "⚠ No reply: the model answered with no text, even when asked again. Send `continue` to " +
      "retry, or switch model with /model."
    );
  }
  return undefined;
}
