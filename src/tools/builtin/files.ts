/** The file toolset: read_file, write_file, patch and search_files. */
import type { DiagnoseHook } from "../lsp/hook.js";
import type { ToolRegistry } from "../registry.js";
import { registerPatchTool } from "./patch.js";
import { type ReadLimits, registerReadFileTool } from "./read-file.js";
import { registerSearchFilesTool, type SearchFilesOptions } from "./search-files.js";
import { registerWriteFileTool } from "./write-file.js";

export interface FileToolsOptions {
  search?: SearchFilesOptions;
  read?: ReadLimits;
  /** Language-server diagnostics after write_file and patch (`lsp.*`). */
  diagnose?: DiagnoseHook;
}

export function registerFileTools(registry: ToolRegistry, options: FileToolsOptions = {}): void {
  registerReadFileTool(registry, options.read);
  const edits = options.diagnose ? { diagnose: options.diagnose } : {};
  registerWriteFileTool(registry, edits);
  registerPatchTool(registry, edits);
  registerSearchFilesTool(registry, options.search);
}
