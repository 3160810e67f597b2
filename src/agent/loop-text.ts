/** Messages the loop sends the model on its own behalf, to recover from a stuck turn. */

export const EMPTY_REPLY_NUDGE =
  "Your last reply had no visible answer. Reply to the user now with your answer in plain text.";
export const CONTINUE_NUDGE =
  "Your reply was cut off by the output limit. Continue exactly where it stopped, without repeating.";
export const BUDGET_SUMMARY_NUDGE =
  "You have used all tool iterations for this task. Do not call tools. Summarise what you did, what you found, and what is left to do.";
export const GUARDRAIL_NUDGE =
  "A tool-loop guardrail stopped further tool calls. Reply to the user with what you have.";
/** Continuation requests after a reply cut off by the output limit. */
export const MAX_CONTINUATIONS = 3;
