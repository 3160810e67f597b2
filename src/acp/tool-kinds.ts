/**
 * How an editor shows one of our tool calls: the ACP tool kind (which picks the icon and
 * whether the editor follows the file), a one-line title, and the files it touches.
 */
import { isAbsolute, resolve } from "node:path";
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk/unstable";

const KIND_BY_TOOL: Readonly<Record<string, ToolKind>> = {
  read_file: "read",
  skill_view: "read",
  skills_list: "read",
  vision_analyze: "read",
  write_file: "edit",
  patch: "edit",
  skill_manage: "edit",
  memory: "edit",
  search_files: "search",
  session_search: "search",
  web_search: "search",
  terminal: "execute",
  process: "execute",
  execute_code: "execute",
  todo: "think",
  delegate_task: "think",
  web_extract: "fetch",
  browser_navigate: "fetch",
  browser_snapshot: "fetch",
};

export function toolKind(name: string): ToolKind {
  const known = KIND_BY_TOOL[name];
  if (known) return known;
  if (name.startsWith("browser_")) return "fetch";
  return "other";
}

function record(args: unknown): Record<string, unknown> {
  return args && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

function oneLine(value: string, max = 100): string {
  const flat = value.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Paths named in a V4A patch (`*** Update File: path` and its kin). */
function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const match of patch.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)) paths.push(match[1]!.trim());
  return paths;
}

/** File paths a call reads or writes, as given by the model (possibly relative). */
export function toolPaths(name: string, args: unknown): string[] {
  const a = record(args);
  if (name === "patch" && text(a.patch)) return patchPaths(a.patch as string);
  const path = text(a.path);
  return path && ["read_file", "write_file", "patch", "search_files"].includes(name) ? [path] : [];
}

export function toolLocations(name: string, args: unknown, cwd: string): ToolCallLocation[] {
  const a = record(args);
  const line = name === "read_file" && typeof a.offset === "number" ? a.offset : undefined;
  return toolPaths(name, args).map((path) => ({
    path: isAbsolute(path) ? path : resolve(cwd, path),
    ...(line !== undefined ? { line } : {}),
  }));
}

export function toolTitle(name: string, args: unknown, preview: string): string {
  const a = record(args);
  const path = toolPaths(name, args)[0];
  switch (name) {
    case "read_file":
      return `Read ${path ?? "file"}`;
    case "write_file":
      return `Write ${path ?? "file"}`;
    case "patch":
      return `Edit ${toolPaths(name, args).join(", ") || "file"}`;
    case "search_files":
      return `Search ${oneLine(text(a.pattern) ?? preview)}`;
    case "terminal":
      return `Run ${oneLine(text(a.command) ?? preview)}`;
    case "todo":
      return "Update plan";
    case "web_search":
      return `Web search: ${oneLine(text(a.query) ?? preview)}`;
    case "web_extract":
      return `Fetch ${oneLine(preview)}`;
    default:
      return preview ? `${name}: ${oneLine(preview, 80)}` : name;
  }
}
