import { packageRoot } from "./package-root.js";

// See package-root.ts for why builtins come through process.getBuiltinModule here.
const { readFileSync } = process.getBuiltinModule("node:fs");
const { join } = process.getBuiltinModule("node:path");

let cached: string | undefined;

/** The package version, read once from the package's own package.json. */
export function packageVersion(): string {
  if (cached === undefined) {
    const manifest = join(packageRoot(import.meta.url), "package.json");
    cached = (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
  }
  return cached;
}
