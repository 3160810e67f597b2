/** The go-ahead question before a terminal slash command that loses work or costs money. */
import { type ConfirmKind, passConfirmGate } from "../../runtime/slash-confirm.js";
import type { SlashContext } from "./context.js";

/**
 * Whether the command goes ahead (a cancel is reported here). `question` gives undefined when
 * there is nothing to lose, and then nothing is asked. `after` shows the note of an "always"
 * answer: the command calls it once its own output is shown (/clear would wipe it otherwise).
 */
export async function confirmFirst(
  ctx: SlashContext,
  kind: ConfirmKind,
  args: string,
  question: () => Promise<string | undefined>,
): Promise<{ proceed: boolean; after: () => void }> {
  const ask = ctx.askConfirm;
  const outcome = await passConfirmGate({
    kind,
    args,
    config: ctx.runtime.config,
    home: ctx.runtime.home,
    question,
    ask: ask && ((text) => ask(text, kind)),
  });
  const { note } = outcome;
  if (!outcome.proceed && note) ctx.print(note);
  return { proceed: outcome.proceed, after: () => (outcome.proceed && note ? ctx.print(note) : undefined) };
}
