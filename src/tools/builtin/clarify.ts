/** The `clarify` tool: ask the user a question, optionally with a few choices. */
import { raceAbort } from "../../util/race-abort.js";
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";

export const CLARIFY_MAX_CHOICES = 4;

export const clarifyParameters = z.object({
  question: z.string().min(1).describe("The question"),
  choices: z
    .array(z.string())
    .max(CLARIFY_MAX_CHOICES)
    .optional()
    .describe(`Up to ${CLARIFY_MAX_CHOICES} suggested answers`),
});

export type ClarifyArgs = z.infer<typeof clarifyParameters>;

const NO_ONE_TO_ASK =
  "No user is available to answer questions in this session. Do not ask again: proceed with your best judgement, " +
  "choose the most reasonable option, and state the assumption you made in your reply.";

export async function clarifyTool(args: ClarifyArgs, ctx: Pick<ToolContext, "clarify" | "interactive" | "signal">) {
  const question = args.question.trim();
  const choices = (args.choices ?? []).map((choice) => choice.trim()).filter(Boolean);
  if (!ctx.clarify || ctx.interactive === false) {
    return JSON.stringify({ question, user_response: null, note: NO_ONE_TO_ASK });
  }
  try {
    const answer = await raceAbort(
      ctx.clarify(question, choices.length ? choices : undefined),
      ctx.signal,
      () => new Error("aborted"),
    );
    return JSON.stringify({
      question,
      ...(choices.length ? { choices_offered: choices } : {}),
      user_response: answer,
    });
  } catch (error) {
    if (ctx.signal.aborted)
      return JSON.stringify({ question, user_response: null, note: "The question was interrupted." });
    const reason = error instanceof Error ? error.message : String(error);
    return JSON.stringify({
      question,
      user_response: null,
      error: `Could not ask the user: ${reason}. ${NO_ONE_TO_ASK}`,
    });
  }
}

export function registerClarifyTools(registry: ToolRegistry): void {
  registry.register({
    name: "clarify",
    toolset: "clarify",
    description:
      "Ask the user when the request is ambiguous or a decision is theirs; prefer sensible defaults for small " +
      "choices. Returns the user's answer, in their own words or one of the choices.",
    parameters: clarifyParameters,
    handler: clarifyTool,
    // It waits for a person, so it never runs alongside other tools.
    parallelSafe: false,
    emoji: "❓",
  });
}
