/** The `search_files` tool: search file contents by regex, or find files by name glob. */
import { readFileSync, statSync } from "node:fs";
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import { json } from "./file-io.js";
import { displayPath, readRefusal, realLocation, resolveToolPath, secretFileFilter } from "./file-paths.js";
import { hasGlobSyntax } from "./glob.js";
import { numberLine } from "./read-file.js";
import { chooseSearchBackend, type RawMatch, type SearchBackend } from "./search-backends.js";

export const SEARCH_DEFAULT_LIMIT = 50;
const SEARCH_MAX_LIMIT = 500;
/** How many matches or files a search collects at most before it stops counting. */
const SEARCH_SCAN_CAP = 10_000;
const MATCH_LINE_MAX_CHARS = 500;

export const searchFilesParameters = z.object({
  pattern: z.string().min(1).describe('A regular expression (content) or a name glob like "*.ts" (files)'),
  target: z.enum(["content", "files"]).optional().describe('"content" (default) or "files"'),
  path: z.string().optional().describe("Directory or file (default: working directory)"),
  file_glob: z.string().optional().describe('content: only files matching this glob, like "*.py"'),
  limit: z.number().int().min(1).max(SEARCH_MAX_LIMIT).optional().describe(`Results (default ${SEARCH_DEFAULT_LIMIT})`),
  offset: z.number().int().min(0).optional().describe("Results to skip, for paging"),
  output_mode: z
    .enum(["content", "files_only", "count"])
    .optional()
    .describe('content: matching lines (default), "files_only" or "count" per file'),
  context: z.number().int().min(0).max(20).optional().describe("content: lines around each match"),
});

export type SearchFilesArgs = z.infer<typeof searchFilesParameters>;

export interface SearchFilesOptions {
  /** Force a backend; by default ripgrep when installed, or as HERMES_SEARCH_BACKEND says. */
  backend?: SearchBackend;
}

function cut(text: string): string {
  return text.length > MATCH_LINE_MAX_CHARS ? `${text.slice(0, MATCH_LINE_MAX_CHARS)}… [cut]` : text;
}

function pageNote(shown: number, offset: number, total: number, capped: boolean): string | undefined {
  const end = offset + shown;
  if (end >= total && !capped) return undefined;
  const of = capped ? `at least ${total}` : `${total}`;
  return `Showing results ${offset + 1}-${end} of ${of}. Use offset=${end} for more, or narrow the pattern or path.`;
}

function contextLines(match: RawMatch, size: number, cache: Map<string, string[]>): Record<string, string[]> {
  let lines = cache.get(match.path);
  if (!lines) {
    try {
      lines = readFileSync(match.path, "utf8").split(/\r?\n/);
    } catch {
      lines = [];
    }
    cache.set(match.path, lines);
  }
  const before: string[] = [];
  const after: string[] = [];
  for (let n = Math.max(1, match.line - size); n < match.line; n++) before.push(numberLine(n, cut(lines[n - 1] ?? "")));
  for (let n = match.line + 1; n <= Math.min(lines.length, match.line + size); n++) {
    const text = lines[n - 1];
    if (text === undefined || (n === lines.length && text === "")) break;
    after.push(numberLine(n, cut(text)));
  }
  return { context_before: before, context_after: after };
}

export async function searchFilesTool(
  args: SearchFilesArgs,
  ctx: Pick<ToolContext, "cwd" | "signal">,
  options: SearchFilesOptions = {},
): Promise<string> {
  const root = resolveToolPath(args.path ?? ".", ctx.cwd);
  const refusal = readRefusal(realLocation(root)) ?? readRefusal(root);
  if (refusal) return json({ error: refusal });
  try {
    statSync(root);
  } catch {
    return json({ error: `Path not found: ${displayPath(root, ctx.cwd)}` });
  }
  const backend = options.backend ?? chooseSearchBackend();
  const limit = args.limit ?? SEARCH_DEFAULT_LIMIT;
  const offset = args.offset ?? 0;
  const show = (path: string) => displayPath(path, ctx.cwd);
  const readable = secretFileFilter();

  if ((args.target ?? "content") === "files") {
    const glob = hasGlobSyntax(args.pattern) ? args.pattern : `*${args.pattern}*`;
    const found = await backend.files({ root, glob, maxFiles: SEARCH_SCAN_CAP, signal: ctx.signal });
    if (found.error) return json({ error: found.error });
    const byNewest = found.files
      .filter(readable)
      .map((path) => ({ path, mtime: safeMtime(path) }))
      .sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : 1));
    const page = byNewest.slice(offset, offset + limit).map((file) => show(file.path));
    const note = pageNote(page.length, offset, byNewest.length, found.capped);
    return json({ total_count: byNewest.length, files: page, ...(note ? { note } : {}) });
  }

  const result = await backend.content({
    root,
    pattern: args.pattern,
    fileGlob: args.file_glob,
    maxMatches: SEARCH_SCAN_CAP,
    signal: ctx.signal,
  });
  if (result.error) return json({ error: result.error });
  // A search from a parent directory must not pull the agent's own secrets into the transcript.
  result.matches = result.matches.filter((match) => readable(match.path));
  const mode = args.output_mode ?? "content";
  if (mode === "files_only" || mode === "count") {
    const counts = new Map<string, number>();
    for (const match of result.matches) counts.set(match.path, (counts.get(match.path) ?? 0) + 1);
    const entries = [...counts.entries()].slice(offset, offset + limit);
    const note = pageNote(entries.length, offset, counts.size, result.capped);
    const listed =
      mode === "files_only"
        ? { files: entries.map(([path]) => show(path)) }
        : { counts: entries.map(([path, count]) => ({ path: show(path), count })) };
    return json({ total_count: result.matches.length, file_count: counts.size, ...listed, ...(note ? { note } : {}) });
  }
  const cache = new Map<string, string[]>();
  const context = args.context ?? 0;
  const matches = result.matches.slice(offset, offset + limit).map((match) => ({
    path: show(match.path),
    line: match.line,
    content: cut(match.text),
    ...(context > 0 ? contextLines(match, context, cache) : {}),
  }));
  const note = pageNote(matches.length, offset, result.matches.length, result.capped);
  return json({ total_count: result.matches.length, matches, ...(note ? { note } : {}) });
}

function safeMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

export function registerSearchFilesTool(registry: ToolRegistry, options: SearchFilesOptions = {}): void {
  registry.register({
    name: "search_files",
    toolset: "file",
    description:
      "Search file contents by regular expression, or file names by glob. Returns matching lines with file and " +
      "line number (or files, or counts); names newest first. Skips .gitignored, .git, node_modules and binary " +
      "files. Use it instead of grep/find.",
    parameters: searchFilesParameters,
    handler: (args, ctx) => searchFilesTool(args, ctx, options),
    parallelSafe: true,
    pathArgs: ["path"],
    maxResultChars: 100_000,
    emoji: "🔎",
  });
}
