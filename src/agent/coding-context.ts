/**
 * Whether a session works inside a code workspace, and what that workspace tells us: its root
 * (the git root, else the nearest directory holding a project manifest), the manifests and
 * package managers found there, and the commands that check its code (tests, lint, build).
 * Only stat calls and reads of a few small files; the git facts for the prompt are gathered in
 * coding-prompt.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, extname, join, resolve } from "node:path";
import { isFile } from "../util/fs-kind.js";

/** `agent.coding_context`: auto (interactive surfaces in a workspace), focus (auto + lean toolset), on, off. */
export type CodingMode = "auto" | "focus" | "on" | "off";

/** Surfaces where someone works on code with the agent; chats and scheduled jobs are not among them. */
const INTERACTIVE_CODING_PLATFORMS = new Set(["", "cli", "tui", "acp", "desktop"]);

/** Files whose presence makes a directory a project root. */
const MANIFESTS = [
  "package.json",
  "tsconfig.json",
  "deno.json",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "requirements.txt",
  "Cargo.toml",
  "go.mod",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "Gemfile",
  "composer.json",
  "mix.exs",
  "pubspec.yaml",
  "CMakeLists.txt",
  "Makefile",
  "Dockerfile",
];
/** Instructions for coding agents; they mark a project root too. */
const AGENT_FILES = ["AGENTS.md", "CLAUDE.md", ".cursorrules"];

const CODE_EXTENSIONS = new Set(
  (
    ".py .pyi .ipynb .js .jsx .ts .tsx .mjs .cjs .go .rs .java .kt .kts .scala .rb .php .c .h .cc .cpp .hpp " +
    ".cs .swift .m .mm .dart .ex .exs .lua .sh .bash .zsh .sql .vue .svelte .r .jl .hs .clj .erl .pl .zig"
  ).split(" "),
);
const SCAN_SKIP = new Set(["node_modules", "venv", "dist", "build", "target", "vendor", "__pycache__"]);
/** A code repository shows itself within its first few hundred entries. */
const SCAN_LIMIT = 500;
/** How far up from the working directory a manifest still marks the project. */
const MARKER_DEPTH = 6;
const MAX_MANIFEST_BYTES = 256 * 1024;

const LOCKFILES: ReadonlyArray<readonly [string, string, "js" | "py"]> = [
  ["pnpm-lock.yaml", "pnpm", "js"],
  ["bun.lockb", "bun", "js"],
  ["bun.lock", "bun", "js"],
  ["yarn.lock", "yarn", "js"],
  ["package-lock.json", "npm", "js"],
  ["uv.lock", "uv", "py"],
  ["poetry.lock", "poetry", "py"],
  ["Pipfile.lock", "pipenv", "py"],
];
/** package.json scripts and Makefile targets that check code. */
const CHECK_TARGETS = ["test", "tests", "lint", "typecheck", "check", "build"];
const MAX_VERIFY_COMMANDS = 8;

export interface ProjectFacts {
  root: string;
  /** True when the root is a git work tree. */
  git: boolean;
  manifests: string[];
  packageManagers: string[];
  /** Commands that test, lint, type-check or build the project, as the user would type them. */
  verifyCommands: string[];
  /** Agent instruction files at the root. */
  contextFiles: string[];
}

/** The normalised mode; unknown words count as auto, like the original's. */
export function codingMode(value: unknown): CodingMode {
  const word = String(value ?? "auto")
    .trim()
    .toLowerCase();
  if (["focus", "strict", "lean"].includes(word)) return "focus";
  if (["on", "true", "yes", "1", "always"].includes(word)) return "on";
  if (["off", "false", "no", "0", "never"].includes(word)) return "off";
  return "auto";
}

/**
 * Whether a session takes the coding posture: always with `on`, never with `off`; otherwise
 * when it runs on an interactive surface inside a code workspace.
 */
export function isCodingSession(input: { mode: CodingMode; platform?: string; cwd: string; home?: string }): boolean {
  if (input.mode === "off") return false;
  if (input.mode === "on") return true;
  if (!INTERACTIVE_CODING_PLATFORMS.has((input.platform ?? "").toLowerCase())) return false;
  return isCodeWorkspace(input.cwd, input.home);
}

/**
 * A directory with a project manifest (here or a few levels up, not the home directory itself),
 * or a git repository that holds source files. A notes folder under git, or dotfiles kept in a
 * repository at $HOME, are not code workspaces.
 */
export function isCodeWorkspace(cwd: string, home = homedir()): boolean {
  if (markerRoot(cwd, home)) return true;
  const git = gitRoot(cwd);
  return git !== undefined && resolve(git) !== resolve(home) && hasCodeFiles(git);
}

/** The workspace's facts, or undefined outside any git repository or project. */
export function projectFacts(cwd: string, home = homedir()): ProjectFacts | undefined {
  const git = gitRoot(cwd);
  const root = git ?? markerRoot(cwd, home);
  if (!root) return undefined;
  const has = (name: string) => isFile(join(root, name));
  const managers = [...new Set(LOCKFILES.filter(([file]) => has(file)).map(([, manager]) => manager))];
  return {
    root,
    git: git !== undefined,
    manifests: MANIFESTS.filter(has),
    packageManagers: managers,
    verifyCommands: verifyCommands(root, has),
    contextFiles: AGENT_FILES.filter(has),
  };
}

function verifyCommands(root: string, has: (name: string) => boolean): string[] {
  const commands: string[] = [];
  if (has("package.json")) {
    const scripts = packageScripts(join(root, "package.json"));
    const runner = LOCKFILES.find(([file, , kind]) => kind === "js" && has(file))?.[1] ?? "npm";
    for (const target of CHECK_TARGETS) if (scripts.has(target)) commands.push(`${runner} run ${target}`);
  }
  if (has("pytest.ini") || smallText(join(root, "pyproject.toml")).includes("[tool.pytest")) commands.push("pytest");
  if (has("Cargo.toml")) commands.push("cargo test");
  if (has("go.mod")) commands.push("go test ./...");
  const makefile = smallText(join(root, "Makefile"));
  for (const target of CHECK_TARGETS) {
    if (new RegExp(`^${target}\\s*:`, "m").test(makefile)) commands.push(`make ${target}`);
  }
  return [...new Set(commands)].slice(0, MAX_VERIFY_COMMANDS);
}

function packageScripts(path: string): Set<string> {
  try {
    const parsed = JSON.parse(smallText(path) || "{}") as { scripts?: unknown };
    return parsed.scripts && typeof parsed.scripts === "object" ? new Set(Object.keys(parsed.scripts)) : new Set();
  } catch {
    return new Set();
  }
}

/** The nearest directory at or above `cwd` holding `.git` (a directory, or a file in a linked work tree). */
export function gitRoot(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function markerRoot(cwd: string, home: string): string | undefined {
  const skip = resolve(home);
  let dir = resolve(cwd);
  for (let depth = 0; depth <= MARKER_DEPTH; depth++) {
    if (dir !== skip && [...MANIFESTS, ...AGENT_FILES].some((name) => existsSync(join(dir, name)))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** Source files at the root or one level below it, looking at no more than SCAN_LIMIT entries. */
function hasCodeFiles(root: string): boolean {
  let seen = 0;
  const pending: Array<[string, boolean]> = [[root, true]];
  while (pending.length > 0) {
    const [dir, top] = pending.pop()!;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > SCAN_LIMIT) return false;
      if (entry.isFile() && CODE_EXTENSIONS.has(extname(entry.name).toLowerCase())) return true;
      if (top && entry.isDirectory() && !entry.name.startsWith(".") && !SCAN_SKIP.has(entry.name)) {
        pending.push([join(dir, entry.name), false]);
      }
    }
  }
  return false;
}

function smallText(path: string): string {
  try {
    if (statSync(path).size > MAX_MANIFEST_BYTES) return "";
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
