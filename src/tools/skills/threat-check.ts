/**
 * Threat scanning of skill text. Skills are instructions the agent follows later with its
 * full tool set, so they get the strict scan (which includes piping a download into an
 * interpreter, `remote_pipe_shell`).
 */
import { scanForThreats } from "../../util/threats.js";

/** Threat ids found in one piece of skill text (empty when clean). */
export function scanSkillText(text: string): string[] {
  return scanForThreats(text, "strict");
}

/** A refusal message naming the threat ids, or undefined when the text is clean. */
export function threatRefusal(text: string, label: string): string | undefined {
  const ids = scanSkillText(text);
  if (!ids.length) return undefined;
  return `${label} was refused by the security scan (${ids.join(", ")}): remove the flagged instructions and try again`;
}
