/** The file toolset: read_file, write_file, patch and search_files. */
import type { ToolRegistry } from "../registry.js";
import { registerPatchTool } from "./patch.js";
import { type ReadLimits, registerReadFileTool } from "./read-file.js";
import { registerSearchFilesTool, type SearchFilesOptions } from "./search-files.js";
import { registerWriteFileTool } from "./write-file.js";

export interface FileToolsOptions {
  search?: SearchFilesOptions;
  read?: ReadLimits;
}

export function registerFileTools(registry: ToolRegistry, options: FileToolsOptions = {}): void {
  registerReadFileTool(registry, options.read);
  registerWriteFileTool(registry);
  registerPatchTool(registry);
  registerSearchFilesTool(registry, options.search);
}
