/**
 * Import time of the built LLM layer (dist/, so no TypeScript loader skews it): the modules a
 * chat-completions call loads, against every module of the LLM catalog, against that plus the
 * AWS SDK a first Bedrock call pulls in. Baseline: an ESM `node -e` that imports nothing.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { formatRatio, formatSample, type Row, summarize } from "./stats.js";

const LLM_DIR = resolve("dist/llm");

function importScript(files: string[], packages: string[] = []): string {
  const specifiers = [...files.map((f) => pathToFileURL(f).href), ...packages];
  return specifiers.map((s) => `await import(${JSON.stringify(s)});`).join("") || "0";
}

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith(".js") ? [path] : [];
  });
}

function timeScript(script: string): number {
  const started = process.hrtime.bigint();
  // Resolve bare package names from the project, as the agent does.
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    stdio: "pipe",
    cwd: resolve("."),
  });
  if (result.status !== 0) throw new Error(`import failed: ${result.stderr.toString().slice(-1000)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export function benchImports(runs = 15): Row[] {
  const cases = {
    bare: importScript([]),
    chat: importScript([join(LLM_DIR, "providers.js"), join(LLM_DIR, "transports/chat-completions.js")]),
    catalog: importScript(jsFiles(LLM_DIR)),
    sdk: importScript(jsFiles(LLM_DIR), ["@aws-sdk/client-bedrock-runtime"]),
  };
  type Case = keyof typeof cases;
  const times: Record<Case, number[]> = { bare: [], chat: [], catalog: [], sdk: [] };
  for (let i = 0; i < runs + 2; i++) {
    for (const key of Object.keys(cases) as Case[]) {
      const ms = timeScript(cases[key]);
      if (i >= 2) times[key].push(ms); // two warm-up rounds fill the page cache
    }
  }
  const bare = summarize(times.bare);
  const row = (figure: string, key: Case): Row => {
    const s = summarize(times[key]);
    return {
      figure,
      value: formatSample(s, "ms"),
      baseline: `node -e 0 (ESM): ${formatSample(bare, "ms")}`,
      ratio: formatRatio(s.median, bare.median),
    };
  };
  const fileCount = jsFiles(LLM_DIR).length;
  return [
    row(`import: chat_completions path (providers + transport, ${runs} runs)`, "chat"),
    row(`import: whole LLM catalog (${fileCount} modules)`, "catalog"),
    row("import: whole catalog + Bedrock SDK", "sdk"),
  ];
}
