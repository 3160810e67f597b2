// Builtins through process.getBuiltinModule, not ES imports: this module is part of the CLI's ES
// entry, and an ES import of a builtin builds a facade over all its exports (for node:fs that
// loads its stream classes, a few milliseconds no command needs).
const { readFileSync } = process.getBuiltinModule("node:fs");
const { dirname, join } = process.getBuiltinModule("node:path");
const { fileURLToPath } = process.getBuiltinModule("node:url");

export const PACKAGE_NAME = "hermes-agent";

const found = new Map<string, string>();

function manifestName(dir: string): string | undefined {
  try {
    const name = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown }).name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The root directory of the hermes-agent package that holds the module at `moduleUrl`: the
 * nearest directory above it whose package.json is named `hermes-agent`. Walking up instead of
 * counting `../` keeps working whether the module runs from src/, from tsc's dist/ tree or from
 * a bundled chunk in dist/cli/chunks/.
 */
export function packageRoot(moduleUrl: string): string {
  const start = dirname(fileURLToPath(moduleUrl));
  const cached = found.get(start);
  if (cached !== undefined) return cached;
  for (let dir = start; ; dir = dirname(dir)) {
    if (manifestName(dir) === PACKAGE_NAME) {
      found.set(start, dir);
      return dir;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json named "${PACKAGE_NAME}" in ${start} or above it`);
  }
}
