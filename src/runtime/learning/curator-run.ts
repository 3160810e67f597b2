/**
 * One curator run with the configured settings, scheduled or by hand: the stale/archive pass
 * (src/tools/skills/curator.ts), then, with `curator.consolidate`, the merges the `curator`
 * auxiliary model proposes. Merges follow `learning.mode` like the review's proposals: `auto`
 * applies them (the run's backup was taken first) unless `skills.write_approval` asks first;
 * otherwise they wait in the proposals queue for `/learn` and `hermes learn apply`.
 */
import type { AuxiliaryClient } from "../../agent/auxiliary.js";
import type { HermesConfig } from "../../state/config-schema.js";
import { type CuratorSettings, resolveCuratorSettings } from "../../state/curator-settings.js";
import { type Proposal, ProposalQueue } from "../../state/learning-proposals.js";
import { type CuratorReport, runCurator } from "../../tools/skills/curator.js";
import type { SkillMerge } from "../../tools/skills/skill-merge.js";
import type { ChangeLedger } from "../../util/change-ledger.js";

export interface CuratorPassOptions {
  home: string;
  config: HermesConfig;
  now?: number;
  dryRun?: boolean;
  ledger?: ChangeLedger;
  /** The auxiliary client, built only when consolidation asks the model. */
  auxiliary?: () => Promise<AuxiliaryClient>;
  signal?: AbortSignal;
}

export interface ConsolidationOutcome {
  /** Merges that passed validation. */
  proposed: SkillMerge[];
  /** Parts of the model's answer that were dropped, with why. */
  rejected: string[];
  applied: SkillMerge[];
  queued: Proposal[];
  /** Merges that failed when applied (the skills changed meanwhile, a check refused). */
  refused: Array<{ merge: SkillMerge; message: string }>;
  /** Skills too long to be shown to the model. */
  tooLong: string[];
  /** Why the model was not asked or its answer not used. */
  skipped?: string;
}

export interface CuratorPassResult {
  settings: CuratorSettings;
  report: CuratorReport;
  consolidation?: ConsolidationOutcome;
}

export async function runCuratorPass(options: CuratorPassOptions): Promise<CuratorPassResult> {
  const settings = resolveCuratorSettings(options.config);
  const now = options.now ?? Date.now();
  const report = await runCurator({
    home: options.home,
    now,
    staleAfterDays: settings.staleAfterDays,
    archiveAfterDays: settings.archiveAfterDays,
    pruneBuiltins: settings.pruneBuiltins,
    backup: settings.backup,
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(options.ledger ? { ledger: options.ledger } : {}),
  });
  if (!settings.consolidate) return { settings, report };
  return { settings, report, consolidation: await consolidate(options, settings, report, now) };
}

async function consolidate(
  options: CuratorPassOptions,
  settings: CuratorSettings,
  report: CuratorReport,
  now: number,
): Promise<ConsolidationOutcome> {
  const outcome: ConsolidationOutcome = {
    proposed: [],
    rejected: [],
    applied: [],
    queued: [],
    refused: [],
    tooLong: [],
  };
  if (!options.auxiliary) return { ...outcome, skipped: "no model is available to this run" };
  const [{ proposeMerges }, { applyMerge, describeMerge, mergeableSkills }] = await Promise.all([
    import("./consolidation.js"),
    import("../../tools/skills/skill-merge.js"),
  ]);
  const leaving = new Set(report.archived.map((item) => item.name));
  const candidates = mergeableSkills(options.home).filter((skill) => !leaving.has(skill.name));
  if (candidates.length < 2) return { ...outcome, skipped: "fewer than two skills to compare" };
  let proposed: Awaited<ReturnType<typeof proposeMerges>>;
  try {
    proposed = await proposeMerges({
      candidates,
      client: await options.auxiliary(),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    return {
      ...outcome,
      skipped: `the curator model failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  Object.assign(outcome, { proposed: proposed.merges, rejected: proposed.rejected, tooLong: proposed.tooLong });
  if (proposed.skipped) outcome.skipped = proposed.skipped;
  if (options.dryRun || proposed.merges.length === 0) return outcome;
  const { config } = options;
  if (config.learning.mode === "auto" && !config.skills.write_approval) {
    for (const merge of proposed.merges) {
      const result = await applyMerge(options.home, merge, {
        actor: "curator",
        ...(options.ledger ? { ledger: options.ledger } : {}),
        // The run's own backup (taken before archiving) already covers the first merge.
        backup: report.backup ? { enabled: false, keep: settings.backup.keep } : settings.backup,
        now,
      });
      if (result.ok) outcome.applied.push(merge);
      else outcome.refused.push({ merge, message: result.message });
    }
    return outcome;
  }
  outcome.queued = new ProposalQueue(options.home).add(
    proposed.merges.map(
      (merge): Omit<Proposal, "id"> => ({
        createdAt: now,
        sessionId: "",
        kind: "skill_merge",
        args: { skills: merge.skills, keep: merge.keep, content: merge.content },
        summary: describeMerge(merge),
        reason: merge.reason ?? "",
      }),
    ),
  );
  return outcome;
}
