/**
 * Merging overlapping user skills into one (the curator's consolidation): one skill of the
 * group keeps its name and gets the merged SKILL.md, the others move to `skills/.archive/`.
 * The merged text passes the same validation and threat scan as any skill write; pinned and
 * bundled skills are never part of a merge. The whole merge is one change in the ledger, so
 * `hermes learn undo ID` puts every skill of the group back.
 */
import {
  type ChangeActor,
  type ChangeLedger,
  changedFiles,
  filesUnder,
  snapshotFiles,
} from "../../util/change-ledger.js";
import { type BackupSettings, backupSkills, bundledNames, isPinned, moveToArchive } from "./curator.js";
import { discoverSkills, type Skill, userSkillsDir } from "./discovery.js";
import { skillMarkdownProblems, skillNameProblem } from "./frontmatter.js";
import { manageSkill } from "./manage.js";
import { threatRefusal } from "./threat-check.js";
import { readUsage, updateUsage } from "./usage.js";

/** A merge never spans more skills than this. */
export const MAX_MERGE_SKILLS = 8;

export interface SkillMerge {
  /** The skills merged (2 to MAX_MERGE_SKILLS), `keep` among them. */
  skills: string[];
  /** The skill that stays, with `content` as its SKILL.md. */
  keep: string;
  content: string;
  /** Why they overlap, in one sentence (shown with the proposal). */
  reason?: string;
}

export interface MergeResult {
  ok: boolean;
  message: string;
}

export interface ApplyMergeOptions {
  actor: ChangeActor;
  sessionId?: string;
  ledger?: ChangeLedger;
  /** A backup of the skills folder before the merge; default on, newest 5 kept. */
  backup?: BackupSettings;
  now?: number;
}

export function describeMerge(merge: Pick<SkillMerge, "skills" | "keep">): string {
  const others = merge.skills.filter((name) => name !== merge.keep);
  return `merge skill(s) ${others.join(", ")} into ${merge.keep}`;
}

/** The user skills a merge may touch now: in the skills folder, neither pinned nor bundled. */
export function mergeableSkills(home: string): Skill[] {
  const usage = readUsage(home);
  const bundled = bundledNames(home);
  return discoverSkills({ home })
    .skills.filter((skill) => skill.source === "user")
    .filter((skill) => !isPinned(skill, usage) && !bundled.has(skill.name));
}

/** Checks the shape and the merged text alone (no disk state): the first problem, if any. */
export function mergeShapeProblem(merge: SkillMerge): string | undefined {
  const names = merge.skills;
  if (names.length < 2 || names.length > MAX_MERGE_SKILLS) {
    return `a merge joins 2 to ${MAX_MERGE_SKILLS} skills, not ${names.length}`;
  }
  if (new Set(names).size !== names.length) return "a skill is named twice in the merge";
  for (const name of names) {
    const bad = skillNameProblem(name);
    if (bad) return bad;
  }
  if (!names.includes(merge.keep)) return `the kept skill "${merge.keep}" is not one of the merged skills`;
  const problems = skillMarkdownProblems(merge.content, merge.keep);
  if (problems.length > 0) return `the merged SKILL.md is not valid: ${problems.join("; ")}`;
  return threatRefusal(merge.content, "the merged SKILL.md");
}

/** Why the merge may not be applied to the skills as they are now; undefined when it may. */
export function mergeProblem(home: string, merge: SkillMerge, allowed = mergeableSkills(home)): string | undefined {
  const shape = mergeShapeProblem(merge);
  if (shape) return shape;
  const allowedNames = new Set(allowed.map((skill) => skill.name));
  const refused = merge.skills.filter((name) => !allowedNames.has(name));
  if (refused.length > 0) {
    return `${refused.join(", ")}: not a user skill the curator may change (missing, pinned or bundled)`;
  }
  return undefined;
}

/** Applies a merge: backup, the kept skill's new SKILL.md (validated), the others archived. */
export async function applyMerge(home: string, merge: SkillMerge, options: ApplyMergeOptions): Promise<MergeResult> {
  const allowed = mergeableSkills(home);
  const problem = mergeProblem(home, merge, allowed);
  if (problem) return { ok: false, message: problem };
  const root = userSkillsDir(home);
  const now = options.now ?? Date.now();
  const backup = options.backup ?? { enabled: true, keep: 5 };
  if (backup.enabled) backupSkills(root, now, backup.keep);
  const group = merge.skills.map((name) => allowed.find((skill) => skill.name === name)!);
  const kept = group.find((skill) => skill.name === merge.keep)!;
  const before = snapshotFiles(filesUnder(kept.dir));
  const written = manageSkill(home, { action: "update", name: merge.keep, content: merge.content });
  if (!written.success) return { ok: false, message: written.error };
  const files = changedFiles(before, snapshotFiles(filesUnder(kept.dir)));
  const archived: string[] = [];
  for (const skill of group) {
    if (skill === kept) continue;
    files.push(...moveToArchive(root, skill).files);
    archived.push(skill.name);
  }
  // The merged skill is as alive as the most recently used skill of its group.
  const usage = readUsage(home);
  const lastUsed = Math.max(0, ...group.map((skill) => usage[skill.name]?.lastUsedAt ?? 0));
  if (lastUsed > (usage[kept.name]?.lastUsedAt ?? 0)) {
    updateUsage(home, kept.name, (entry) => {
      entry.lastUsedAt = lastUsed;
    });
  }
  const summary = `merged skill(s) ${archived.join(", ")} into ${merge.keep} (archived to skills/.archive/)`;
  await options.ledger?.record({
    actor: options.actor,
    sessionId: options.sessionId ?? "",
    kind: "skill",
    target: merge.keep,
    action: "merge",
    summary,
    files,
  });
  return { ok: true, message: summary };
}

const MAX_REASON_CHARS = 300;

/** A merge read from untrusted JSON (a model's answer, the proposals file); undefined when malformed. */
export function mergeFromArgs(value: unknown): SkillMerge | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const raw = value as Record<string, unknown>;
  const skills = raw.skills;
  if (!Array.isArray(skills) || skills.length > MAX_MERGE_SKILLS * 4) return undefined;
  if (!skills.every((name): name is string => typeof name === "string")) return undefined;
  if (typeof raw.keep !== "string" || typeof raw.content !== "string") return undefined;
  const reason = typeof raw.reason === "string" ? raw.reason.replace(/\s+/g, " ").trim() : "";
  return {
    skills: skills.map((name) => name.trim()),
    keep: raw.keep.trim(),
    content: raw.content,
    ...(reason ? { reason: reason.slice(0, MAX_REASON_CHARS) } : {}),
  };
}
