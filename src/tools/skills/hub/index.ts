/** The skills hub: install from folders, tarballs, git, SKILL.md URLs and hub indexes through quarantine and a scan. */
export { type AuditOutcome, auditInstalledSkills, type SkillAudit } from "./audit.js";
export {
  type HubConfig,
  type HubEntry,
  type HubIndex,
  type HubSearch,
  type HubTrust,
  loadHubIndex,
  parseHubIndex,
  searchHubs,
} from "./hub-index.js";
export { type HubInstallOptions, type HubInstallResult, installSkill } from "./install.js";
export { HUB_LOCK_FILE, type HubLock, type HubLockEntry, hubLockPath, readHubLock } from "./lock.js";
export { HubError } from "./net.js";
export { QUARANTINE_DIR } from "./quarantine.js";
export { type Decision, decide, type Finding, findingLines, type ScanReport, scanSkill, type Verdict } from "./scan.js";
export { describeSource, type SourceKind, type SourceRef, type TrustLevel } from "./sources.js";
export {
  fileDiff,
  type SkillUpdate,
  type UninstallResult,
  type UpdateOptions,
  type UpdateOutcome,
  type UpdateStatus,
  uninstallSkill,
  updateSkills,
} from "./update.js";
