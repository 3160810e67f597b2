/** The `read_file` tool: a text file with line numbers, one page at a time. */
import { createReadStream, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from "node:path";
import { z } from "../../util/schema/index.js";
import { fenceUntrusted } from "../../util/untrusted.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import { decodeText, describeFormat, type TextFormat } from "../text-encoding.js";
import { describeFsError, isBinaryFile, isImagePath, json } from "./file-io.js";
import { displayPath, readRefusal, realLocation, resolveToolPath } from "./file-paths.js";

export const READ_DEFAULT_LIMIT = 500;
export const READ_MAX_LIMIT = 2000;
/** Longer lines are cut; minified files would otherwise fill the context with one line. */
export const READ_MAX_LINE_CHARS = 2000;
/** A page stops early once its text reaches this size, so the result is never capped mid-line. */
export const READ_MAX_PAGE_CHARS = 100_000;
/** Past this size the remaining lines are not counted, to keep a read of a huge log fast. */
const COUNT_LINES_MAX_BYTES = 50 * 1024 * 1024;
/** Files up to this size are read whole, so their encoding is known; larger ones stream as UTF-8. */
const DECODE_WHOLE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * How much one read returns: `tool_output.max_lines` (lines per call), `tool_output.max_line_length`
 * (characters per line) and `file_read_max_chars` (characters per page), the original's keys.
 */
export interface ReadLimits {
  maxLines: number;
  maxLineChars: number;
  maxPageChars: number;
}

export const DEFAULT_READ_LIMITS: ReadLimits = {
  maxLines: READ_MAX_LIMIT,
  maxLineChars: READ_MAX_LINE_CHARS,
  maxPageChars: READ_MAX_PAGE_CHARS,
};

/** Results above this are cut by the registry; a page never reaches it. */
const RESULT_MARGIN_CHARS = 20_000;

/** `limit` beyond `maxLines` is not an error: the read returns `maxLines` lines and says where to go on. */
export function readFileParametersFor(maxLines: number) {
  return z.object({
    path: z.string().describe("File path (absolute, relative, or ~/...)"),
    offset: z.number().int().min(1).optional().describe("First line (1-based, default 1)"),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Lines to return (default ${Math.min(READ_DEFAULT_LIMIT, maxLines)}, max ${maxLines})`),
  });
}

export const readFileParameters = readFileParametersFor(READ_MAX_LIMIT);

export type ReadFileArgs = z.infer<typeof readFileParameters>;

interface Page {
  lines: string[];
  firstLine: number;
  /** Line after the last one shown, when the page stopped before the end of the file. */
  nextOffset: number | null;
  /** Total lines, or null when the file is too large to count quickly. */
  totalLines: number | null;
  cutLines: number;
  /** Set when the whole file was decoded. */
  format?: TextFormat;
}

export function numberLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6)}|${text}`;
}

function cutLine(text: string, maxChars: number): { text: string; cut: boolean } {
  if (text.length <= maxChars) return { text, cut: false };
  const more = text.length - maxChars;
  return { text: `${text.slice(0, maxChars)}… [line cut: ${more} more characters]`, cut: true };
}

/** Lines of a decoded text, as readline would give them (no empty line after a final newline). */
function* splitLines(text: string): Iterable<string> {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  yield* lines;
}

interface PageRequest {
  offset: number;
  limit: number;
  size: number;
  limits: ReadLimits;
}

async function readPage(path: string, request: PageRequest): Promise<Page> {
  if (request.size <= DECODE_WHOLE_MAX_BYTES) {
    const decoded = decodeText(readFileSync(path));
    const format = { encoding: decoded.encoding, bom: decoded.bom, lineEnding: decoded.lineEnding };
    return { ...(await pageOf(splitLines(decoded.text), request, () => {})), format };
  }
  const stream = createReadStream(path, { encoding: "utf8" });
  // node:readline loads only for files too large to read whole (it is not on the start-up path).
  const { createInterface } = process.getBuiltinModule("node:readline");
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  return pageOf(reader, request, () => {
    reader.close();
    stream.destroy();
  });
}

async function pageOf(
  source: Iterable<string> | AsyncIterable<string>,
  { offset, limit, size, limits }: PageRequest,
  close: () => void,
): Promise<Page> {
  const lines: string[] = [];
  let pageChars = 0;
  let lineNumber = 0;
  let nextOffset: number | null = null;
  let cutLines = 0;
  let counted = true;
  const last = offset + limit - 1;
  try {
    for await (const raw of source) {
      lineNumber++;
      const line = lineNumber === 1 ? raw.replace(/^\uFEFF/, "") : raw;
      if (lineNumber >= offset && lineNumber <= last && nextOffset === null) {
        const { text, cut } = cutLine(line, limits.maxLineChars);
        const numbered = numberLine(lineNumber, text);
        if (lines.length > 0 && pageChars + numbered.length > limits.maxPageChars) {
          nextOffset = lineNumber;
        } else {
          lines.push(numbered);
          pageChars += numbered.length + 1;
          if (cut) cutLines++;
        }
      } else if (lineNumber > last && nextOffset === null) {
        nextOffset = lineNumber;
      }
      if (nextOffset !== null && size > COUNT_LINES_MAX_BYTES) {
        counted = false;
        break;
      }
    }
  } finally {
    close();
  }
  return { lines, firstLine: offset, nextOffset, totalLines: counted ? lineNumber : null, cutLines };
}

function similarNames(path: string): string[] {
  const dir = dirname(path);
  const wanted = basename(path).toLowerCase();
  const stem = basename(path, extname(path)).toLowerCase();
  try {
    return readdirSync(dir)
      .filter((name) => {
        const lower = name.toLowerCase();
        return (
          lower === wanted ||
          (stem.length >= 3 && lower.includes(stem)) ||
          (lower.length >= 3 && wanted.includes(lower))
        );
      })
      .slice(0, 5)
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

export async function readFileTool(
  args: ReadFileArgs,
  ctx: Pick<ToolContext, "cwd">,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
): Promise<string> {
  const path = resolveToolPath(args.path, ctx.cwd);
  const shown = displayPath(path, ctx.cwd);
  const real = realLocation(path);
  // Judged by the real location and by the name given (/dev/fd/0 resolves to a pipe).
  const refusal = readRefusal(real) ?? readRefusal(path);
  if (refusal) return json({ error: refusal });
  let size: number;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      return json({ error: `${shown} is a directory. Use search_files with target "files" to list its contents.` });
    }
    if (!stat.isFile()) {
      // A device, pipe or socket may never end, or block the turn waiting for a writer.
      return json({ error: `Refusing to read ${shown}: it is not a regular file (a device, pipe or socket).` });
    }
    size = stat.size;
  } catch (error) {
    const similar = similarNames(path).map((p) => displayPath(p, ctx.cwd));
    return json({ error: describeFsError(error, shown), ...(similar.length ? { similar_files: similar } : {}) });
  }
  if (isImagePath(path)) {
    return json({
      error: `${shown} is an image (${size} bytes). read_file reads text only; use a vision tool to look at it.`,
    });
  }
  if (isBinaryFile(path)) {
    return json({
      error: `${shown} is a binary file (${size} bytes). read_file reads text only; inspect it with a terminal command such as \`file\` or \`xxd | head\`.`,
    });
  }
  const offset = args.offset ?? 1;
  const limit = Math.min(args.limit ?? READ_DEFAULT_LIMIT, limits.maxLines);
  let page: Page;
  try {
    page = await readPage(path, { offset, limit, size, limits });
  } catch (error) {
    return json({ error: describeFsError(error, shown) });
  }
  const result = json(formatPage(shown, size, page, limits));
  // A file from outside the project (a download, another checkout, /tmp) is data the model did
  // not write and the user may never have read: it reaches the model fenced, like a web page.
  return isInside(real, realLocation(resolve(ctx.cwd))) ? result : fenceUntrusted("read_file", result);
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function formatPage(path: string, size: number, page: Page, limits: ReadLimits): Record<string, unknown> {
  const total = page.totalLines;
  if (page.lines.length === 0) {
    const note =
      total === 0 ? "The file is empty." : `offset ${page.firstLine} is past the end of the file (${total} lines).`;
    return { path, content: "", total_lines: total, file_size: size, note };
  }
  const lastShown = page.firstLine + page.lines.length - 1;
  const result: Record<string, unknown> = {
    path,
    content: page.lines.join("\n"),
    total_lines: total,
    lines_shown: `${page.firstLine}-${lastShown}`,
    file_size: size,
  };
  const notes: string[] = [];
  if (page.nextOffset !== null) {
    result.truncated = true;
    const of = total === null ? `a file of ${size} bytes` : `${total} lines`;
    notes.push(`Showing lines ${page.firstLine}-${lastShown} of ${of}. Use offset=${page.nextOffset} to read more.`);
  }
  if (page.cutLines > 0) notes.push(`${page.cutLines} long line(s) were cut at ${limits.maxLineChars} characters.`);
  const format = page.format ? describeFormat(page.format) : undefined;
  if (page.format && page.format.encoding !== "utf-8") result.encoding = page.format.encoding;
  if (format) notes.push(format);
  if (notes.length) result.note = notes.join(" ");
  return result;
}

export function registerReadFileTool(registry: ToolRegistry, limits: ReadLimits = DEFAULT_READ_LIMITS): void {
  const shown = Math.min(READ_DEFAULT_LIMIT, limits.maxLines);
  registry.register({
    name: "read_file",
    toolset: "file",
    description:
      `Read a text file. Returns up to ${shown} lines as \`N|text\`; page with offset and limit. ` +
      "Refuses binary files. Use it instead of cat/head/tail.",
    parameters: limits.maxLines === READ_MAX_LIMIT ? readFileParameters : readFileParametersFor(limits.maxLines),
    handler: (args, ctx) => readFileTool(args, ctx, limits),
    parallelSafe: true,
    pathArgs: ["path"],
    maxResultChars: Math.max(100_000, limits.maxPageChars + RESULT_MARGIN_CHARS),
    emoji: "📖",
  });
}
