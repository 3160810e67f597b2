/** What `hermes curator run` and `hermes curator status` print. */

import type { CuratorPassResult } from "../../runtime/learning/curator-run.js";
import type { CuratorSettings } from "../../state/curator-settings.js";
import { describeHours } from "../../state/curator-settings.js";

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const others = (merge: { skills: string[]; keep: string }) =>
  merge.skills.filter((name) => name !== merge.keep).join(", ");

export function curatorRunLines(result: CuratorPassResult, dryRun: boolean): string[] {
  const { report, consolidation, settings } = result;
  const lines = [
    ...report.archived.map((item) => `${dryRun ? "would archive" : "archived"} ${item.name} → ${item.to}`),
    ...report.stale.map((name) => `stale (unused for ${settings.staleAfterDays}+ days): ${name}`),
    ...report.merges.map(([a, b]) => `similar, consider merging: ${a} + ${b}`),
  ];
  if (consolidation) {
    if (dryRun) {
      for (const merge of consolidation.proposed) {
        lines.push(`would merge ${others(merge)} into ${merge.keep}${merge.reason ? `: ${merge.reason}` : ""}`);
      }
    }
    for (const merge of consolidation.applied)
      lines.push(`merged ${others(merge)} into ${merge.keep} (hermes learn log)`);
    for (const proposal of consolidation.queued) {
      lines.push(`queued for review (${proposal.id}): ${proposal.summary} (hermes learn apply ${proposal.id})`);
    }
    for (const { merge, message } of consolidation.refused) lines.push(`merge into ${merge.keep} refused: ${message}`);
    for (const reason of consolidation.rejected)
      lines.push(`consolidation: dropped from the model's answer: ${reason}`);
    if (consolidation.tooLong.length > 0) {
      lines.push(`consolidation: too long to offer for merging: ${consolidation.tooLong.join(", ")}`);
    }
    if (consolidation.skipped) lines.push(`consolidation: ${consolidation.skipped}`);
    else if (consolidation.proposed.length === 0 && consolidation.rejected.length === 0) {
      lines.push("consolidation: the model found no skills to merge");
    }
  }
  if (report.backup) lines.push(`backup of the skills folder: ${report.backup}`);
  return lines;
}

export function curatorStatusLines(
  settings: CuratorSettings,
  lastRun: number | undefined,
  learningMode: string,
): string[] {
  const last = `last run: ${lastRun ? day(lastRun) : "never"}`;
  const schedule =
    learningMode === "off"
      ? "scheduled runs off (learning.mode: off)"
      : !settings.enabled
        ? "scheduled runs off (curator.enabled: false)"
        : `every ${describeHours(settings.intervalHours)} when a session starts` +
          (settings.minIdleHours > 0 ? `, after ${describeHours(settings.minIdleHours)} without a session` : "");
  const rules = [
    `stale after ${settings.staleAfterDays} days, archived after ${settings.archiveAfterDays}`,
    `bundled skills ${settings.pruneBuiltins ? "judged like yours" : "left alone"}`,
    settings.backup.enabled ? `backups: the newest ${settings.backup.keep} kept` : "backups: off",
    `consolidation: ${settings.consolidate ? "on" : "off"}`,
  ];
  return [`${last} (${schedule})`, rules.join("; ")];
}
