/** `skills.external_dirs` as absolute paths: `~` and `${VAR}` / `$VAR` expanded, relative ones under $HERMES_HOME. */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export function externalSkillDirs(
  configured: readonly string[],
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const dirs: string[] = [];
  for (const raw of configured) {
    let path = raw
      .trim()
      .replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced: string, bare: string) => env[braced ?? bare] ?? "");
    if (!path) continue;
    if (path === "~" || path.startsWith("~/")) path = join(homedir(), path.slice(1));
    const absolute = isAbsolute(path) ? resolve(path) : resolve(home, path);
    if (!dirs.includes(absolute)) dirs.push(absolute);
  }
  return dirs;
}
