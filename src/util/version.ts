import { readFileSync } from "node:fs";

let cached: string | undefined;

/** The package version, read once from package.json (two levels above this file in src/ and dist/). */
export function packageVersion(): string {
  if (cached === undefined) {
    const pkgUrl = new URL("../../package.json", import.meta.url);
    cached = (JSON.parse(readFileSync(pkgUrl, "utf8")) as { version: string }).version;
  }
  return cached;
}
