/** The curator's weekly run: when a session starts and the last run is `interval_days` old. */
import { existsSync } from "node:fs";
import type { HermesConfig } from "../../state/config-schema.js";
import { LearningLedger } from "../../state/learning-ledger.js";
import { lastCuratorRun, runCurator } from "../../tools/skills/curator.js";
import { userSkillsDir } from "../../tools/skills/discovery.js";

const DAY_MS = 86_400_000;

export function curateInBackground(
  home: string,
  config: HermesConfig,
  notice: (message: string) => void,
  now = Date.now(),
): Promise<void> | undefined {
  if (config.learning.mode === "off" || !existsSync(userSkillsDir(home))) return undefined;
  const settings = config.learning.curator;
  const last = lastCuratorRun(home);
  if (last !== undefined && now - last < settings.interval_days * DAY_MS) return undefined;
  return runCurator({
    home,
    now,
    staleAfterDays: settings.stale_after_days,
    archiveAfterDays: settings.archive_after_days,
    ledger: new LearningLedger(home),
  })
    .then((report) => {
      if (report.archived.length > 0) {
        const names = report.archived.map((item) => item.name).join(", ");
        notice(
          `curator: archived unused skill(s) ${names} to skills/.archive/ (hermes learn log; hermes learn undo ID brings one back)`,
        );
      }
    })
    .catch((error: Error) => notice(`curator run failed: ${error.message}`));
}
