/**
 * Another Node to measure start-up with: the binary `HERMES_BENCH_NODE` names, or with
 * `--node24` the `node@24` package from npm, installed once into `.bench-tmp/node24/`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const INSTALL_DIR = resolve(".bench-tmp/node24");

function findBinary(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === "node" && statSync(path).isFile() && dir.endsWith(`${join("", "bin")}`)) return path;
    if (statSync(path).isDirectory() && entry !== ".bin") {
      const found = findBinary(path);
      if (found) return found;
    }
  }
  return undefined;
}

export interface OtherNode {
  path: string;
  version: string;
}

export function otherNode(options: { node24: boolean }): OtherNode | undefined {
  let path = process.env.HERMES_BENCH_NODE;
  if (!path && options.node24) {
    path = findBinary(join(INSTALL_DIR, "node_modules"));
    if (!path) {
      console.error("bench: installing node@24 from npm into .bench-tmp/node24 (once)");
      execFileSync("npm", ["install", "--prefix", INSTALL_DIR, "--no-save", "--no-audit", "--no-fund", "node@24"], {
        stdio: "inherit",
      });
      path = findBinary(join(INSTALL_DIR, "node_modules"));
    }
    if (!path) throw new Error("node@24 installed but no bin/node was found under .bench-tmp/node24");
  }
  if (!path) return undefined;
  const version = spawnSync(path, ["--version"], { encoding: "utf8" });
  if (version.status !== 0) throw new Error(`HERMES_BENCH_NODE=${path} does not run: ${version.stderr}`);
  return { path, version: version.stdout.trim() };
}
