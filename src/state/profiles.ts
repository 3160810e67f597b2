/**
 * Profiles: independent Hermes homes under `<root>/profiles/<name>`, each with its own config,
 * secrets, memories and sessions. `default` is the root itself. The sticky choice made by
 * `hermes profile use` lives in `<root>/active_profile`.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { atomicWriteFile } from "../util/atomic-write.js";
import { hermesHome, hermesPaths, hermesRoot, profilePaths } from "./paths.js";

export const DEFAULT_PROFILE = "default";
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export class ProfileError extends Error {
  readonly exitCode = 1;
  override name = "ProfileError";
}

export function isValidProfileName(name: string): boolean {
  return NAME.test(name);
}

function checkName(name: string): void {
  if (!isValidProfileName(name)) {
    throw new ProfileError(
      `"${name}" is not a valid profile name: use letters, digits, "-" and "_" (up to 64 characters)`,
    );
  }
}

export function profileHome(name: string, root: string = hermesRoot()): string {
  checkName(name);
  return name === DEFAULT_PROFILE ? root : join(profilePaths(root).profilesDir, name);
}

export function profileExists(name: string, root: string = hermesRoot()): boolean {
  return name === DEFAULT_PROFILE || existsSync(profileHome(name, root));
}

/**
 * Point this process (and its children) at a profile by setting HERMES_HOME. Call it before
 * anything reads a path. Returns the profile's home directory.
 */
export function applyProfile(name: string): string {
  const root = hermesRoot();
  const home = profileHome(name, root);
  if (!profileExists(name, root)) {
    throw new ProfileError(`profile "${name}" does not exist; create it with: hermes profile create ${name}`);
  }
  process.env.HERMES_HOME = home;
  return home;
}

/** The profile named in `<root>/active_profile`, or `default`. */
export function stickyProfile(root: string = hermesRoot()): string {
  const file = profilePaths(root).activeProfile;
  if (!existsSync(file)) return DEFAULT_PROFILE;
  const name = readFileSync(file, "utf8").trim();
  return name && isValidProfileName(name) ? name : DEFAULT_PROFILE;
}

/**
 * Apply the sticky profile unless HERMES_HOME already points inside a profile. A sticky
 * profile that was deleted by hand is ignored. Returns the profile name now in effect.
 */
export function applyStickyProfile(): string {
  const home = hermesHome();
  const root = hermesRoot(home);
  if (home !== root) return home.split(/[\\/]/).at(-1) ?? DEFAULT_PROFILE;
  const name = stickyProfile(root);
  if (name !== DEFAULT_PROFILE && profileExists(name, root)) applyProfile(name);
  return profileExists(name, root) ? name : DEFAULT_PROFILE;
}

/** The value of `-p NAME`, `--profile NAME` or `--profile=NAME` in argv (before any `--`). */
export function profileFromArgv(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return undefined;
    if (arg === "-p" || arg === "--profile") return argv[i + 1];
    if (arg.startsWith("--profile=")) return arg.slice("--profile=".length);
  }
  return undefined;
}

export interface ProfileInfo {
  name: string;
  path: string;
  /** Named in active_profile (the sticky default). */
  sticky: boolean;
  /** The home this process is using. */
  current: boolean;
}

export function listProfiles(root: string = hermesRoot()): ProfileInfo[] {
  const sticky = stickyProfile(root);
  const current = hermesHome();
  const names = [DEFAULT_PROFILE];
  const dir = profilePaths(root).profilesDir;
  if (existsSync(dir)) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && isValidProfileName(entry.name) && entry.name !== DEFAULT_PROFILE) {
        names.push(entry.name);
      }
    }
  }
  return names
    .sort((a, b) => (a === DEFAULT_PROFILE ? -1 : b === DEFAULT_PROFILE ? 1 : a.localeCompare(b)))
    .map((name) => {
      const path = profileHome(name, root);
      return { name, path, sticky: name === sticky, current: path === current };
    });
}

/** What `create --clone` copies: settings, secrets, persona and memories, never sessions. */
const CLONED = ["config.yaml", ".env", "SOUL.md", "memories"] as const;

export function createProfile(name: string, options: { root?: string; cloneFrom?: string } = {}): string {
  const root = options.root ?? hermesRoot();
  const home = profileHome(name, root);
  if (name === DEFAULT_PROFILE || existsSync(home)) throw new ProfileError(`profile "${name}" already exists`);
  mkdirSync(home, { recursive: true });
  const paths = hermesPaths(home);
  for (const dir of [paths.memoriesDir, paths.skillsDir, paths.logsDir]) mkdirSync(dir, { recursive: true });
  if (options.cloneFrom) {
    for (const entry of CLONED) {
      const source = join(options.cloneFrom, entry);
      if (!existsSync(source)) continue;
      cpSync(source, join(home, entry), { recursive: true, preserveTimestamps: true });
    }
  }
  return home;
}

export function useProfile(name: string, root: string = hermesRoot()): void {
  if (!profileExists(name, root)) {
    throw new ProfileError(`profile "${name}" does not exist; create it with: hermes profile create ${name}`);
  }
  const file = profilePaths(root).activeProfile;
  if (name === DEFAULT_PROFILE) rmSync(file, { force: true });
  else atomicWriteFile(file, `${name}\n`);
}

export function deleteProfile(name: string, root: string = hermesRoot()): string {
  if (name === DEFAULT_PROFILE) throw new ProfileError("the default profile cannot be deleted");
  const home = profileHome(name, root);
  if (!existsSync(home) || !statSync(home).isDirectory()) throw new ProfileError(`profile "${name}" does not exist`);
  if (home === hermesHome()) {
    throw new ProfileError(`profile "${name}" is in use by this command; run it from another profile`);
  }
  rmSync(home, { recursive: true, force: true });
  if (stickyProfile(root) === name) rmSync(profilePaths(root).activeProfile, { force: true });
  return home;
}
