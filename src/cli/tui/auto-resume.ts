/**
 * `display.tui_auto_resume_recent`: the terminal UI started without --resume or --continue
 * continues the most recent interactive session of this profile, the one `hermes -c` would pick.
 * The runtime makes that choice; this names the session in the flags afterwards, so the rest of
 * the session (its usage totals, the note on leaving, a later model switch) treats it as resumed.
 * Only the first runtime is built with the option: a later rebuild (/new, /model) never resumes.
 */
import type { ChatFlags } from "../program.js";
import type { Runtime } from "../runtime.js";

export async function flagsAfterStart(
  flags: ChatFlags,
  runtime: Runtime,
  autoResumeRecent = false,
): Promise<ChatFlags> {
  const asked = autoResumeRecent && runtime.config.display.tui_auto_resume_recent;
  if (!asked || flags.resume || flags.continue) return { ...flags };
  const id = runtime.agent.sessionId;
  // A fresh session is stored only with its first turn: one found here was resumed.
  return (await runtime.store.getSession(id)) ? { ...flags, resume: id } : { ...flags };
}
