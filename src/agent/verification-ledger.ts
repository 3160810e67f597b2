/**
 * A passive record of one turn's code work: the code files the model changed through
 * `write_file` and `patch`, and the foreground `terminal` commands run after the last of those
 * changes. The turn checks read it to tell whether the edits were checked before the final
 * answer. Nothing here changes what the tools do.
 */
import { basename, dirname, extname, isAbsolute, relative, resolve } from "node:path";
import { resolveToolPath } from "../tools/builtin/file-paths.js";
import { type ProjectFacts, projectFacts } from "./coding-context.js";

/** Extensions of files whose change can break a build or a test. */
const SOURCE_EXTENSIONS = new Set(
  (
    ".py .pyi .ipynb .js .jsx .ts .tsx .mjs .cjs .mts .cts .go .rs .java .kt .kts .scala .groovy .rb .php .c .h " +
    ".cc .cpp .cxx .hpp .hh .cs .fs .swift .m .mm .dart .ex .exs .erl .hrl .lua .sh .bash .zsh .ps1 .sql .vue " +
    ".svelte .astro .r .jl .hs .clj .cljs .pl .pm .zig .nim .ml .mli .elm .css .scss .sass .less .html .htm"
  ).split(" "),
);
/** Scripts the model writes to check its work ad hoc; they are not part of any change. */
export const ADHOC_CHECK_PREFIX = "hermes-verify-";
/** Output kept from a failed check: its end, where errors and summaries are. */
export const CHECK_TAIL_CHARS = 1200;

/** Words that start a test, lint, type-check or build run, after any wrapper (npx, uv run, ...). */
const CHECK_COMMANDS: readonly RegExp[] = [
  /^(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:test|tests|lint|check|typecheck|type-check|build|verify)(?::[\w:-]+)?\b/,
  /^npm\s+t\b/,
  /^node\s+(?:-{1,2}[\w-]+(?:[=\s]\S+)?\s+)*--test\b/,
  /^(?:jest|vitest|mocha|ava|playwright\s+test|cypress\s+run|tsc|vue-tsc|eslint|biome|prettier\s+--check|stylelint)\b/,
  /^(?:pytest|py\.test|tox|nox|ruff|mypy|pyright|flake8|pylint|black\s+--check)\b/,
  /^python[\d.]*\s+-m\s+(?:pytest|unittest|mypy|ruff|pyright|flake8|pylint|compileall)\b/,
  /^cargo\s+(?:test|check|build|clippy|nextest)\b/,
  /^go\s+(?:test|vet|build)\b/,
  /^golangci-lint\b/,
  /^make\s+(?:test|tests|check|lint|build|typecheck)\b/,
  /^(?:\.\/)?(?:mvn|mvnw|gradle|gradlew)\b.*\b(?:test|verify|check|build)\b/,
  /^(?:rspec|rake\s+(?:test|spec)|rails\s+test|rubocop|phpunit|phpstan|pest)\b/,
  /^(?:vendor\/bin\/|\.\/vendor\/bin\/)(?:phpunit|phpstan|pest)\b/,
  /^dotnet\s+(?:test|build)\b/,
  /^deno\s+(?:test|check|lint)\b/,
  /^swift\s+(?:test|build)\b/,
  /^(?:ctest|mix\s+test|dart\s+test|flutter\s+test|flutter\s+analyze|shellcheck)\b/,
];
/** Wrappers in front of the real command: env assignments, runners, timers. */
const WRAPPER =
  /^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+|npx\s+(?:--?[\w-]+\s+)*|bunx\s+|pnpm\s+(?:exec|dlx)\s+|yarn\s+(?:exec\s+)?(?=[a-z])(?!(?:run|test|lint|check|typecheck|build)\b)|uv\s+run\s+|poetry\s+run\s+|pipenv\s+run\s+|hatch\s+run\s+|bundle\s+exec\s+|env\s+|time\s+|timeout\s+\S+\s+|sudo\s+|command\s+)/;

/** Whether a terminal command tests, lints, type-checks or builds the code. */
export function isVerificationCommand(command: string, known: readonly string[] = []): boolean {
  const text = command.trim();
  if (!text) return false;
  if (text.includes(ADHOC_CHECK_PREFIX)) return true;
  if (known.some((k) => k.trim() !== "" && text.includes(k.trim()))) return true;
  for (const piece of text.split(/&&|\|\||[;|\n]/)) {
    let segment = piece.trim().replace(/^\(+\s*/, "");
    for (let previous = ""; previous !== segment; ) {
      previous = segment;
      segment = segment.replace(WRAPPER, "");
    }
    if (CHECK_COMMANDS.some((pattern) => pattern.test(segment))) return true;
  }
  return false;
}

/** A source file, not documentation or text. */
export function isSourcePath(path: string): boolean {
  return SOURCE_EXTENSIONS.has(extname(path).toLowerCase());
}

function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** A tool result as an object: JSON, or JSON followed by a note the loop appended. */
function resultObject(result: string): Record<string, unknown> | undefined {
  const start = result.indexOf("{");
  if (start < 0) return undefined;
  for (const end of [result.length, result.lastIndexOf("}") + 1]) {
    try {
      const value = JSON.parse(result.slice(start, end)) as unknown;
      if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // Try the next cut.
    }
  }
  return undefined;
}

/** The files a V4A patch touches, from its section headers. */
export function v4aPatchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const line of patch.replace(/\r\n/g, "\n").split("\n")) {
    const match = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    if (match?.[1]?.trim()) paths.push(match[1].trim());
  }
  return paths;
}

/** Paths a successful file-changing call names, as given (not resolved). */
function editedPaths(name: string, args: Record<string, unknown>): string[] {
  const path = typeof args.path === "string" ? args.path : undefined;
  if (name === "write_file") return path ? [path] : [];
  if (name !== "patch") return [];
  const patch = typeof args.patch === "string" ? args.patch : undefined;
  const mode = args.mode ?? (patch && !path ? "patch" : "replace");
  if (mode === "patch") return patch ? v4aPatchPaths(patch) : [];
  return path ? [path] : [];
}

export interface CodeEdit {
  /** Absolute path. */
  path: string;
  /** As the model knows it: relative to the working directory when inside it. */
  shown: string;
  workspace: ProjectFacts;
}

export interface CheckRun {
  command: string;
  exitCode: number;
  /** The end of its output (and error), at most CHECK_TAIL_CHARS. */
  tail: string;
}

export type CheckStatus = { kind: "passed"; check: CheckRun } | { kind: "none" } | { kind: "failed"; check: CheckRun };

export class VerificationLedger {
  private readonly edits = new Map<string, CodeEdit>();
  /** Verification commands run since the last code edit. */
  private checks: CheckRun[] = [];
  private readonly workspaces = new Map<string, ProjectFacts | undefined>();

  /** `home`: the agent's own directory (skills, memory); edits there are never code work. */
  constructor(private readonly home?: string) {}

  /** One finished tool call, with the arguments it ran with and the result the model read. */
  record(name: string, args: Record<string, unknown>, result: string, cwd: string): void {
    if (name === "terminal") {
      this.recordCommand(args, result);
      return;
    }
    const paths = editedPaths(name, args);
    if (paths.length === 0 || resultObject(result)?.success !== true) return;
    for (const given of paths) {
      const path = resolveToolPath(given, cwd);
      const edit = this.codeEdit(path, cwd);
      if (!edit) continue;
      this.edits.delete(path);
      this.edits.set(path, edit);
      this.checks = [];
    }
  }

  /** Code files changed this turn, in the order of their last change. */
  codeEdits(): CodeEdit[] {
    return [...this.edits.values()];
  }

  /** The workspaces' check commands, in the order their files were edited. */
  verifyCommands(): string[] {
    return [...new Set(this.codeEdits().flatMap((edit) => edit.workspace.verifyCommands))];
  }

  /** Whether the code changed this turn was checked since its last change. */
  status(): CheckStatus {
    const passed = this.checks.find((check) => check.exitCode === 0);
    if (passed) return { kind: "passed", check: passed };
    const failed = this.checks.at(-1);
    return failed ? { kind: "failed", check: failed } : { kind: "none" };
  }

  private recordCommand(args: Record<string, unknown>, result: string): void {
    if (this.edits.size === 0 || args.background === true || typeof args.command !== "string") return;
    if (!isVerificationCommand(args.command, this.verifyCommands())) return;
    const parsed = resultObject(result);
    const exitCode = parsed?.exit_code;
    if (typeof exitCode !== "number") return;
    const output = [parsed?.output, parsed?.error].filter((v) => typeof v === "string" && v.trim()).join("\n");
    this.checks.push({ command: args.command.trim(), exitCode, tail: output.slice(-CHECK_TAIL_CHARS) });
  }

  private codeEdit(path: string, cwd: string): CodeEdit | undefined {
    if (!isSourcePath(path) || basename(path).startsWith(ADHOC_CHECK_PREFIX)) return undefined;
    if (this.home && isInside(resolve(this.home), path)) return undefined;
    const dir = dirname(path);
    if (!this.workspaces.has(dir)) this.workspaces.set(dir, projectFacts(dir));
    const workspace = this.workspaces.get(dir);
    if (!workspace) return undefined;
    const base = resolve(cwd);
    const shown = isInside(base, path) && path !== base ? relative(base, path) : path;
    return { path, shown, workspace };
  }
}
