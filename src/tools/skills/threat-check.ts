/**
 * Threat scanning of skill text. Skills are instructions the agent follows later with its
 * full tool set, so they get the strict scan plus a check for piping a download into an
 * interpreter, which a skill has no reason to tell the agent to do.
 */
import { scanForThreats } from "../../util/threats.js";

const SKILL_ONLY = [
  {
    id: "remote_pipe_shell",
    keywords: ["curl", "wget", "iwr", "invoke-webrequest"],
    pattern:
      /\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n|]{0,300}\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|python3?|perl|ruby|node|iex)\b/,
  },
];

/** Threat ids found in one piece of skill text (empty when clean). */
export function scanSkillText(text: string): string[] {
  const found = scanForThreats(text, "strict");
  const folded = text.normalize("NFKC").toLowerCase();
  for (const { id, keywords, pattern } of SKILL_ONLY) {
    if (keywords.some((word) => folded.includes(word)) && pattern.test(folded)) found.push(id);
  }
  return found;
}

/** A refusal message naming the threat ids, or undefined when the text is clean. */
export function threatRefusal(text: string, label: string): string | undefined {
  const ids = scanSkillText(text);
  if (!ids.length) return undefined;
  return `${label} was refused by the security scan (${ids.join(", ")}): remove the flagged instructions and try again`;
}
