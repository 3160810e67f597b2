import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "./package-root.js";

let cached: string | undefined;

/** The package version, read once from the package's own package.json. */
export function packageVersion(): string {
  if (cached === undefined) {
    const manifest = join(packageRoot(import.meta.url), "package.json");
    cached = (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
  }
  return cached;
}
