/** The skills system: discovery, the system-prompt index, the `skills` toolset, management, seeding and the hub. */
export { auditSkillDir } from "./audit.js";
export {
  type DiscoverOptions,
  discoverSkills,
  findSkill,
  projectSkillsDir,
  type Skill,
  type SkillCatalog,
  type SkillProblem,
  type SkillSource,
  userSkillsDir,
} from "./discovery.js";
export { parseSkillMarkdown, type SkillFrontmatter } from "./frontmatter.js";
export {
  auditInstalledSkills,
  type HubConfig,
  type HubEntry,
  HubError,
  type HubInstallOptions,
  type HubInstallResult,
  type HubLockEntry,
  installSkill,
  readHubLock,
  type ScanReport,
  type SkillUpdate,
  scanSkill,
  searchHubs,
  type TrustLevel,
  uninstallSkill,
  updateSkills,
  type Verdict,
} from "./hub/index.js";
export { installSkillDir } from "./install.js";
export { type ManageArgs, type ManageResult, manageSkill } from "./manage.js";
export { bundledSkillsDir, type SeedReport, seedBundledSkills } from "./seed.js";
export { buildSkillsIndex } from "./skills-index.js";
export { expandSkillCommand, type SkillCommand, skillCommands } from "./slash-command.js";
export { scanSkillText } from "./threat-check.js";
export { registerSkillsTools, type SkillsToolsOptions } from "./tools.js";
export { type SkillView, viewSkill } from "./view.js";
