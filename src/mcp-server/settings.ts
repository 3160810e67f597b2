/**
 * Which toolsets `hermes mcp serve` exposes: `--toolsets`, else `mcp_serve.toolsets` in
 * config.yaml, else a default that lets a client read, search and edit files and run commands
 * (dangerous commands still need `--yolo`).
 */
import { existsSync, readFileSync } from "node:fs";
import { UsageError } from "../runtime/errors.js";
import { readSimpleConfig } from "../state/config-load.js";
import { hermesPaths } from "../state/paths.js";

export const DEFAULT_SERVE_TOOLSETS: readonly string[] = ["file", "terminal"];

const TOOLSETS_CONFIG_KEY = "mcp_serve.toolsets";

/** "file, terminal" or ["file", "terminal"] as a clean list; undefined when nothing is named. */
export function toolsetList(value: unknown, source: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(items) || items.some((item) => typeof item !== "string")) {
    throw new UsageError(
      `${source} must be a list of toolset names such as [file, terminal] (got ${JSON.stringify(value)})`,
    );
  }
  const names = items.map((item: string) => item.trim()).filter((item) => item.length > 0);
  if (names.length === 0) throw new UsageError(`${source} names no toolset; give at least one, such as file`);
  return [...new Set(names)];
}

/** The raw `mcp_serve.toolsets` of config.yaml (the runtime reports a file it cannot read). */
async function configuredValue(home: string): Promise<unknown> {
  const path = hermesPaths(home).config;
  let raw: unknown;
  try {
    raw = readSimpleConfig(path);
    if (raw === undefined && existsSync(path)) raw = (await import("yaml")).parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
  const section = (raw as Record<string, unknown> | null | undefined)?.mcp_serve;
  if (section === undefined || section === null) return undefined;
  if (typeof section !== "object" || Array.isArray(section)) {
    throw new UsageError(`mcp_serve in config.yaml must be a mapping such as "mcp_serve: {toolsets: [file]}"`);
  }
  return (section as Record<string, unknown>).toolsets;
}

export interface ServeToolsets {
  names: string[];
  /** Where the names came from, for error messages. */
  source: string;
}

export async function serveToolsets(home: string, flag: string | undefined): Promise<ServeToolsets> {
  const fromFlag = toolsetList(flag, "--toolsets");
  if (fromFlag) return { names: fromFlag, source: "--toolsets" };
  const fromConfig = toolsetList(await configuredValue(home), `${TOOLSETS_CONFIG_KEY} in config.yaml`);
  if (fromConfig) return { names: fromConfig, source: `${TOOLSETS_CONFIG_KEY} in config.yaml` };
  return { names: [...DEFAULT_SERVE_TOOLSETS], source: "the default toolsets" };
}
