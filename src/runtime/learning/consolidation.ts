/**
 * `curator.consolidate`: the `curator` auxiliary model reads the user's skills and names groups
 * that do the same job, each with one merged SKILL.md. Its answer is hostile input: it is parsed
 * strictly, every group is checked (only skills it was shown, each in one group at most, a valid
 * and clean SKILL.md named after the kept skill), and anything else is dropped with a reason.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AuxiliaryClient } from "../../agent/auxiliary.js";
import type { Message } from "../../llm/types.js";
import type { Skill } from "../../tools/skills/discovery.js";
import { SKILL_FILE } from "../../tools/skills/frontmatter.js";
import { mergeFromArgs, mergeShapeProblem, type SkillMerge } from "../../tools/skills/skill-merge.js";
import { repairToolArguments } from "../../util/json-repair.js";
import { redactSecrets } from "../../util/redact.js";

/** A skill longer than this is not offered: a merge of a clipped text would lose its tail. */
const MAX_OFFERED_SKILL_CHARS = 8_000;
/** All offered skills together stay under this. */
const MAX_OFFERED_TOTAL_CHARS = 80_000;
const MAX_GROUPS = 10;
const ANSWER_MAX_TOKENS = 16_000;

const INSTRUCTIONS = `You tidy up the skill library of an AI agent. A skill is a SKILL.md file: YAML frontmatter (name, description) and instructions.

Find groups of skills that do the same job and would be better as one skill. Skills that only share a topic, or whose steps differ in substance, stay apart. Most libraries have no such group: then answer with an empty list.

For each group, choose the skill whose name fits the merged skill best ("keep") and write the merged SKILL.md: frontmatter with name equal to that skill's name and one description, then every step, pitfall and check of the group once, in the same style. Drop nothing that one of them knew. Never add instructions that none of them had.

Answer with one JSON object and nothing else:
{"merges": [{"skills": ["name-a", "name-b"], "keep": "name-a", "content": "---\\nname: name-a\\ndescription: ...\\n---\\n...", "reason": "one sentence"}]}`;

export interface OfferedSkills {
  /** Name to SKILL.md text, of the skills shown to the model. */
  texts: Map<string, string>;
  /** Skills not shown because they are too long. */
  tooLong: string[];
}

/** The skills the model is shown: mergeable ones, each whole, within the size limits. */
export function offerSkills(candidates: readonly Skill[]): OfferedSkills {
  const tooLong: string[] = [];
  const texts = new Map<string, string>();
  let total = 0;
  for (const skill of candidates) {
    let text: string;
    try {
      text = readFileSync(join(skill.dir, SKILL_FILE), "utf8");
    } catch {
      continue;
    }
    if (text.length > MAX_OFFERED_SKILL_CHARS || total + text.length > MAX_OFFERED_TOTAL_CHARS) {
      tooLong.push(skill.name);
      continue;
    }
    total += text.length;
    texts.set(skill.name, text);
  }
  return { tooLong, texts };
}

export function consolidationMessages(texts: ReadonlyMap<string, string>): Message[] {
  const listing = [...texts].map(([name, text]) => `=== skill ${name} ===\n${redactSecrets(text)}`);
  return [
    { role: "system", content: INSTRUCTIONS },
    { role: "user", content: `The skills (${texts.size}):\n\n${listing.join("\n\n")}` },
  ];
}

export interface ConsolidationAnswer {
  merges: SkillMerge[];
  /** Why parts of the answer were dropped, one line each. */
  rejected: string[];
}

/** Reads the model's answer: only well-formed groups of skills it was shown survive. */
export function parseConsolidation(answer: string, shown: readonly string[]): ConsolidationAnswer {
  const start = answer.indexOf("{");
  const end = answer.lastIndexOf("}");
  const notJson: ConsolidationAnswer = {
    merges: [],
    rejected: ['the answer is not the JSON object asked for ({"merges": [...]})'],
  };
  if (start < 0 || end <= start) return notJson;
  let parsed: unknown;
  try {
    parsed = JSON.parse(repairToolArguments(answer.slice(start, end + 1)));
  } catch {
    return notJson;
  }
  const list = (parsed as { merges?: unknown } | null)?.merges;
  if (!Array.isArray(list)) return notJson;
  const result: ConsolidationAnswer = { merges: [], rejected: [] };
  if (list.length > MAX_GROUPS) result.rejected.push(`only the first ${MAX_GROUPS} of ${list.length} groups were read`);
  const known = new Set(shown);
  const taken = new Set<string>();
  list.slice(0, MAX_GROUPS).forEach((entry, index) => {
    const label = `group ${index + 1}`;
    const merge = mergeFromArgs(entry);
    if (!merge) {
      result.rejected.push(`${label}: not {skills, keep, content}`);
      return;
    }
    const unknown = merge.skills.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      result.rejected.push(`${label}: ${unknown.join(", ")} not among the skills offered for merging`);
      return;
    }
    const twice = merge.skills.filter((name) => taken.has(name));
    if (twice.length > 0) {
      result.rejected.push(`${label}: ${twice.join(", ")} already in an earlier group`);
      return;
    }
    const problem = mergeShapeProblem(merge);
    if (problem) {
      result.rejected.push(`${label} (${merge.skills.join(", ")}): ${problem}`);
      return;
    }
    for (const name of merge.skills) taken.add(name);
    result.merges.push(merge);
  });
  return result;
}

export interface ProposeMergesInput {
  candidates: readonly Skill[];
  client: AuxiliaryClient;
  signal?: AbortSignal;
}

export interface ProposedMerges extends ConsolidationAnswer {
  /** Nothing was asked (fewer than two skills to compare). */
  skipped?: string;
  tooLong: string[];
}

/** Asks the `curator` model for merges of `candidates` and validates what it says. */
export async function proposeMerges(input: ProposeMergesInput): Promise<ProposedMerges> {
  const offered = offerSkills(input.candidates);
  if (offered.texts.size < 2) {
    return { merges: [], rejected: [], tooLong: offered.tooLong, skipped: "fewer than two skills to compare" };
  }
  const answer = await input.client.complete("curator", consolidationMessages(offered.texts), {
    maxTokens: ANSWER_MAX_TOKENS,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  return { ...parseConsolidation(answer, [...offered.texts.keys()]), tooLong: offered.tooLong };
}
