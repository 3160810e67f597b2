/**
 * Every file location under HERMES_HOME, computed in one place so profiles and tests can
 * point the whole agent somewhere else by changing one environment variable.
 */
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";

/** The active Hermes home: `$HERMES_HOME`, or `~/.hermes`. Read on every call, never cached. */
export function hermesHome(): string {
  const fromEnv = process.env.HERMES_HOME?.trim();
  return fromEnv ? resolve(fromEnv) : join(homedir(), ".hermes");
}

/**
 * The root that holds `profiles/` and `active_profile`. When the active home is itself a
 * profile (`<root>/profiles/<name>`), the root is two levels up.
 */
export function hermesRoot(home: string = hermesHome()): string {
  const parent = dirname(home);
  return basename(parent) === "profiles" ? dirname(parent) : home;
}

export interface HermesPaths {
  home: string;
  config: string;
  env: string;
  auth: string;
  stateDb: string;
  memoriesDir: string;
  memory: string;
  user: string;
  soul: string;
  skillsDir: string;
  logsDir: string;
  trajectorySamples: string;
  failedTrajectories: string;
}

export function hermesPaths(home: string = hermesHome()): HermesPaths {
  const memoriesDir = join(home, "memories");
  return {
    home,
    config: join(home, "config.yaml"),
    env: join(home, ".env"),
    auth: join(home, "auth.json"),
    stateDb: join(home, "state.db"),
    memoriesDir,
    memory: join(memoriesDir, "MEMORY.md"),
    user: join(memoriesDir, "USER.md"),
    soul: join(home, "SOUL.md"),
    skillsDir: join(home, "skills"),
    logsDir: join(home, "logs"),
    trajectorySamples: join(home, "trajectory_samples.jsonl"),
    failedTrajectories: join(home, "failed_trajectories.jsonl"),
  };
}

export interface ProfilePaths {
  root: string;
  profilesDir: string;
  activeProfile: string;
}

export function profilePaths(root: string = hermesRoot()): ProfilePaths {
  return { root, profilesDir: join(root, "profiles"), activeProfile: join(root, "active_profile") };
}
