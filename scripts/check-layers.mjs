#!/usr/bin/env node
// Enforces the import layers of DESIGN.md §2 by reading every import in src/.
// Usage: node scripts/check-layers.mjs [projectRoot]. Exits 1 naming each offending import.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const root = resolve(process.argv[2] ?? ".");

const SURFACES = ["cli", "gateway", "cron", "acp", "api-server", "mcp-server"];
/** Which top-level areas each area may import (besides itself). */
const ALLOWED = {
  util: [],
  llm: ["util"],
  tools: ["util"],
  state: ["util"],
  agent: ["util", "llm", "tools", "state"],
  // Assembles agents and the shared services of one process for every surface.
  runtime: ["util", "llm", "tools", "state", "agent"],
};
for (const surface of SURFACES) {
  // The cli starts the other surfaces (gateway, cron, acp), so it may import them.
  const peers = surface === "cli" ? SURFACES.filter((s) => s !== "cli") : [];
  ALLOWED[surface] = ["util", "llm", "tools", "state", "agent", "runtime", ...peers];
}

function areaOf(src, path) {
  const parts = relative(src, path).split(sep);
  return parts.length === 1 ? "root" : parts[0];
}

function walk(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

const IMPORT_RE =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

function findViolations(projectRoot) {
  const src = join(projectRoot, "src");
  const violations = [];
  for (const file of walk(src)) {
    const text = readFileSync(file, "utf8");
    const fromArea = areaOf(src, file);
    const relFile = relative(projectRoot, file);
    const isRegistry = relFile === join("src", "tools", "registry.ts");
    for (const match of text.matchAll(IMPORT_RE)) {
      const spec = match[1] ?? match[2] ?? match[3];
      if (!spec?.startsWith(".")) continue;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(src + sep)) {
        violations.push(`${relFile}: imports "${spec}", which is outside src/`);
        continue;
      }
      if (isRegistry) {
        violations.push(`${relFile}: imports "${spec}", but the tool registry must import nothing of the project`);
        continue;
      }
      const toArea = areaOf(src, target);
      if (fromArea === "root" || toArea === fromArea) continue;
      const allowed = ALLOWED[fromArea];
      if (!allowed) {
        violations.push(`${relFile}: area "${fromArea}" is not in the layer table (scripts/check-layers.mjs)`);
        continue;
      }
      if (toArea === "root") {
        violations.push(`${relFile}: imports "${spec}" from the package root; only surfaces start there`);
      } else if (!allowed.includes(toArea)) {
        violations.push(
          `${relFile}: imports "${spec}" (${toArea}), but ${fromArea} may only import ${allowed.join(", ") || "nothing of ours"}`,
        );
      }
    }
  }
  return violations;
}

const violations = findViolations(root);
if (violations.length > 0) {
  console.error(`layer check failed: ${violations.length} import(s) break DESIGN.md §2`);
  for (const v of violations) console.error(`  ${v}`);
  process.exit(1);
}
console.log("layer check passed");
