/**
 * Which language server checks a file: the built-in table (used when its command is found) with
 * `lsp.servers` from config.yaml merged over it, the workspace root it runs for, and the command
 * line. Nothing is ever downloaded: a server is a program already on PATH or in the project's
 * `node_modules/.bin`.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, extname, isAbsolute, join, parse, resolve } from "node:path";
import { findExecutable } from "../../util/executable.js";

export interface ServerCandidate {
  command: string[];
  /** Looked for only in the project's node_modules/.bin, never on PATH. */
  projectOnly?: boolean;
  /** An extra test of the program found (its path). */
  usable?: (program: string) => boolean;
  /** The program to run in its place (a launcher's real binary). */
  direct?: (program: string) => string;
}

export interface ServerSpec {
  /** The language id: the table's key, and the document's languageId unless `languageIds` says otherwise. */
  language: string;
  extensions: string[];
  rootMarkers: string[];
  /** Tried in order; the first one found is used. */
  candidates: ServerCandidate[];
  languageIds?: Record<string, string>;
  initializationOptions?: unknown;
  /** From `lsp.servers`: a missing command is worth telling the user about. */
  configured?: boolean;
}

/** `lsp.servers.<language>` as config.yaml gives it. */
export interface ConfiguredServer {
  command: string[];
  extensions: string[];
  root_markers?: string[] | undefined;
  initialization_options?: Record<string, unknown> | undefined;
}

const GENERIC_MARKERS = [".git"];

/** TypeScript 7 and later answer `tsc --lsp --stdio` with their own (native) language server. */
function typescriptHasLsp(program: string): boolean {
  try {
    const manifest = join(dirname(program), "..", "typescript", "package.json");
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version?: string };
    return Number(version?.split(".")[0]) >= 7;
  } catch {
    return false;
  }
}

/**
 * TypeScript 7's `tsc` is a Node script that starts the compiler binary of the platform's
 * package. Running that binary directly saves a Node process for as long as the server lives.
 */
function typescriptBinary(program: string): string {
  try {
    const manifest = realpathSync(join(dirname(program), "..", "typescript", "package.json"));
    const platformPackage = `@typescript/typescript-${process.platform}-${process.arch}/package.json`;
    const native = join(dirname(createRequire(manifest).resolve(platformPackage)), "lib", "tsc");
    return findExecutable(process.platform === "win32" ? `${native}.exe` : native) ?? program;
  } catch {
    return program;
  }
}

export const BUILTIN_SERVERS: readonly ServerSpec[] = [
  {
    language: "typescript",
    extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"],
    languageIds: {
      ".tsx": "typescriptreact",
      ".js": "javascript",
      ".mjs": "javascript",
      ".cjs": "javascript",
      ".jsx": "javascriptreact",
    },
    rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"],
    candidates: [
      { command: ["tsc", "--lsp", "--stdio"], projectOnly: true, usable: typescriptHasLsp, direct: typescriptBinary },
      { command: ["tsgo", "--lsp", "--stdio"], projectOnly: true },
      { command: ["typescript-language-server", "--stdio"] },
    ],
  },
  {
    language: "python",
    extensions: [".py", ".pyi"],
    rootMarkers: ["pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg", "requirements.txt"],
    candidates: [
      { command: ["pyright-langserver", "--stdio"] },
      { command: ["basedpyright-langserver", "--stdio"] },
      { command: ["pylsp"] },
    ],
  },
  { language: "go", extensions: [".go"], rootMarkers: ["go.work", "go.mod"], candidates: [{ command: ["gopls"] }] },
  { language: "rust", extensions: [".rs"], rootMarkers: ["Cargo.toml"], candidates: [{ command: ["rust-analyzer"] }] },
  {
    language: "cpp",
    extensions: [".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"],
    languageIds: { ".c": "c", ".h": "c" },
    rootMarkers: ["compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt"],
    candidates: [{ command: ["clangd"] }],
  },
];

/** `lsp.servers` over the built-in table: a configured language replaces the built-in one of that id. */
export function serverTable(configured: Record<string, ConfiguredServer>, builtins: boolean): ServerSpec[] {
  const own: ServerSpec[] = Object.entries(configured).map(([language, server]) => ({
    language,
    extensions: server.extensions.map((ext) => (ext.startsWith(".") ? ext : `.${ext}`).toLowerCase()),
    rootMarkers: server.root_markers ?? [],
    candidates: [{ command: server.command }],
    ...(server.initialization_options ? { initializationOptions: server.initialization_options } : {}),
    configured: true,
  }));
  if (!builtins) return own;
  const replaced = new Set(own.map((spec) => spec.language));
  return [...own, ...BUILTIN_SERVERS.filter((spec) => !replaced.has(spec.language))];
}

export function specFor(table: readonly ServerSpec[], file: string): ServerSpec | undefined {
  const ext = extname(file).toLowerCase();
  return ext ? table.find((spec) => spec.extensions.includes(ext)) : undefined;
}

export function languageIdOf(spec: ServerSpec, file: string): string {
  return spec.languageIds?.[extname(file).toLowerCase()] ?? spec.language;
}

/**
 * The nearest directory above `file` holding one of the markers (the language's own first, then
 * `.git`), never the user's home or the filesystem root; else `fallback` (the session's cwd).
 */
export function workspaceRoot(file: string, markers: readonly string[], fallback: string): string {
  const stopAt = new Set([homedir(), parse(file).root]);
  for (const group of [markers, GENERIC_MARKERS]) {
    for (let dir = dirname(file); !stopAt.has(dir); dir = dirname(dir)) {
      if (group.some((marker) => existsSync(join(dir, marker)))) return dir;
      if (dirname(dir) === dir) break;
    }
  }
  return fallback;
}

/** `node_modules/.bin` directories from `root` upwards (a monorepo hoists them), home excluded. */
function projectBins(root: string): string[] {
  const bins: string[] = [];
  const stopAt = new Set([homedir(), parse(root).root]);
  for (let dir = root; !stopAt.has(dir); dir = dirname(dir)) {
    bins.push(join(dir, "node_modules", ".bin"));
    if (dirname(dir) === dir) break;
  }
  return bins;
}

/** The command line to start, with its program made absolute, or undefined when none is found. */
export function findServerCommand(spec: ServerSpec, root: string, pathEnv: string): string[] | undefined {
  for (const candidate of spec.candidates) {
    const [name, ...args] = candidate.command;
    if (!name) continue;
    let program: string | undefined;
    if (isAbsolute(name) || name.includes("/")) {
      program = findExecutable(resolve(root, name));
    } else {
      for (const bin of projectBins(root)) {
        program = findExecutable(join(bin, name));
        if (program) break;
      }
      if (!program && !candidate.projectOnly) program = findExecutable(name, pathEnv);
    }
    if (program && (candidate.usable?.(program) ?? true)) return [candidate.direct?.(program) ?? program, ...args];
  }
  return undefined;
}
