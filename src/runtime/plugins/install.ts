/**
 * Installing and removing plugins: a directory is copied to $HERMES_HOME/plugins/<name>/; an npm
 * package name or a tarball is installed with npm into $HERMES_HOME/node_modules and named in
 * `plugins.enabled`. Every install reads the manifest first, so a broken plugin is refused
 * before it lands.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { type PluginManifest, readManifest } from "./manifest.js";

const run = promisify(execFile);

export class PluginInstallError extends Error {}

export interface InstallResult {
  manifest: PluginManifest;
  source: "directory" | "npm";
  /** For npm plugins: the package name to add to `plugins.enabled`. */
  packageName?: string;
}

function dependencies(home: string): Record<string, string> {
  const path = join(home, "package.json");
  if (!existsSync(path)) return {};
  try {
    const pkg = JSON.parse(readFileSync(path, "utf8")) as { dependencies?: Record<string, string> };
    return pkg.dependencies ?? {};
  } catch {
    return {};
  }
}

async function npm(args: string[], home: string): Promise<void> {
  try {
    await run("npm", [...args, "--prefix", home, "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: home,
      maxBuffer: 8 * 1024 * 1024,
    });
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim().split("\n").slice(-3).join(" ") ?? "";
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new PluginInstallError("npm was not found on PATH; install Node.js with npm to install plugin packages");
    }
    throw new PluginInstallError(`npm ${args[0]} failed${detail ? `: ${detail}` : ""}`);
  }
}

/** `spec`: a plugin directory, a .tgz/.tar.gz file, or an npm package spec. */
export async function installPlugin(
  home: string,
  spec: string,
  options: { force?: boolean } = {},
): Promise<InstallResult> {
  const local = resolve(spec);
  if (existsSync(local) && statSync(local).isDirectory()) {
    const manifest = await readManifest(local, "directory");
    const target = join(home, "plugins", manifest.name.replace(/^@/, "").replace(/\//g, "-"));
    if (existsSync(target)) {
      if (!options.force) throw new PluginInstallError(`${target} already exists; pass --force to replace it`);
      rmSync(target, { recursive: true, force: true });
    }
    cpSync(local, target, { recursive: true, filter: (path) => !path.includes(`${local}/.git`) });
    return { manifest: await readManifest(target, "directory"), source: "directory" };
  }
  const isTarball = /\.(tgz|tar\.gz)$/i.test(spec);
  if (isTarball && !existsSync(local)) throw new PluginInstallError(`${spec} does not exist`);
  const before = dependencies(home);
  await npm(["install", isTarball ? local : spec], home);
  const after = dependencies(home);
  const added = Object.keys(after).filter((name) => before[name] !== after[name]);
  const packageName = added[0] ?? (isTarball ? undefined : spec.replace(/^(@?[^@]+)@.*$/, "$1"));
  if (!packageName || !existsSync(join(home, "node_modules", packageName))) {
    throw new PluginInstallError(`npm installed ${spec}, but its package could not be found in ${home}/node_modules`);
  }
  try {
    return { manifest: await readManifest(join(home, "node_modules", packageName), "npm"), source: "npm", packageName };
  } catch (error) {
    await npm(["uninstall", packageName], home).catch(() => {});
    throw error;
  }
}

/** Removes a directory plugin or uninstalls a package; returns what was removed. */
export async function removePlugin(home: string, name: string): Promise<"directory" | "npm" | undefined> {
  const dir = join(home, "plugins", name);
  if (existsSync(dir)) {
    rmSync(dir, { recursive: true, force: true });
    return "directory";
  }
  if (name in dependencies(home) || existsSync(join(home, "node_modules", name))) {
    await npm(["uninstall", name], home);
    return "npm";
  }
  return undefined;
}
