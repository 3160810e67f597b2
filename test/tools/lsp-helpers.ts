/** Helpers for the language-server diagnostics tests: projects, managers and the fake server. */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { registerPatchTool } from "../../src/tools/builtin/patch.js";
import { registerWriteFileTool } from "../../src/tools/builtin/write-file.js";
import { LspManager, type LspOptions } from "../../src/tools/lsp/manager.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { tempDir } from "./tool-harness.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
export const FAKE_SERVER = join(ROOT, "test", "fixtures", "lsp", "fake-server.mjs");

/** A TypeScript project using this repository's TypeScript (7, whose tsc speaks LSP). */
export function typescriptProject(): string {
  const dir = tempDir("lsp-ts");
  writeFileSync(join(dir, "package.json"), '{ "name": "lsp-test", "type": "module" }\n');
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ["src"] }),
  );
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
  symlinkSync(join(ROOT, "node_modules", "typescript"), join(dir, "node_modules", "typescript"));
  symlinkSync("../typescript/bin/tsc", join(dir, "node_modules", ".bin", "tsc"));
  return dir;
}

/** `lsp.servers.fake`: the fake server in `mode` for `.fake` files, logging its starts. */
export function fakeServer(mode: string, extra: string[] = []): LspOptions["servers"] {
  return { fake: { command: [process.execPath, FAKE_SERVER, mode, ...extra], extensions: [".fake"] } };
}

export function managerWith(home: string, options: Partial<LspOptions> = {}): LspManager {
  return new LspManager({
    waitMode: "document",
    waitTimeoutSeconds: 15,
    installStrategy: "auto",
    servers: {},
    home,
    ...options,
  });
}

/** write_file and patch, checked by `manager`. */
export function editTools(manager: LspManager): ToolRegistry {
  const registry = new ToolRegistry();
  const diagnose = (request: Parameters<LspManager["diagnose"]>[0]) => manager.diagnose(request);
  registerWriteFileTool(registry, { diagnose });
  registerPatchTool(registry, { diagnose });
  return registry;
}

/** Pids a fake server wrote to its start log. */
export function startedPids(log: string): number[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8").split("\n").filter(Boolean).map(Number);
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
