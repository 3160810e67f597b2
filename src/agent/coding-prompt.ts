/**
 * The coding posture's prompt layer: a short brief on how to work in a codebase, a line on the
 * edit format the model handles best, the user's standing instructions, and a snapshot of the
 * workspace taken once at session start (root, branch, status, recent commits, project facts).
 */
import type { ExecFileException } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type ProjectFacts, projectFacts } from "./coding-context.js";

const GIT_TIMEOUT_MS = 2500;

const CODING_BRIEF = `# Working in this codebase
You are pairing with the user in their code. Before changing anything, read the files involved and find definitions and callers with search_files; never invent files, functions, APIs or dependencies you have not seen in the project. Make changes with patch and write_file instead of pasting code into the reply, keep to the project's conventions (its AGENTS.md or CLAUDE.md win over your habits), and change only what the task needs. If a patch fails, read the file again before retrying. Run the project's tests, linter or build with terminal and read the result before calling the work done; fix causes, not symptoms. Do not commit, push or rewrite history unless asked, and leave .env and credential files alone. The snapshot below is from the session's start: check git again before relying on it.`;

const PATCH_FORMAT =
  "Edit format: for changes to existing files use patch with mode 'patch' (a V4A diff), even for one file.";
const REPLACE_FORMAT =
  "Edit format: for changes to existing files prefer patch in mode 'replace' (a unique snippet and its replacement); use mode 'patch' only for an edit spanning several files.";

/** The edit format a model's family was trained on: V4A diffs for OpenAI's, snippet replacement for most others. */
export function editFormatLine(model: string | undefined): string | undefined {
  const name = (model ?? "").toLowerCase();
  if (!name) return undefined;
  if (/gpt|codex/.test(name)) return PATCH_FORMAT;
  if (
    /claude|sonnet|opus|haiku|gemini|gemma|deepseek|qwen|kimi|glm|grok|hermes|llama|mistral|devstral|minimax/.test(name)
  ) {
    return REPLACE_FORMAT;
  }
  return undefined;
}

export interface CodingLayerInput {
  cwd: string;
  home?: string;
  model?: string;
  /** `agent.coding_instructions`. */
  instructions?: string;
}

export async function codingPromptLayer(input: CodingLayerInput): Promise<string> {
  const brief = [CODING_BRIEF, editFormatLine(input.model)].filter(Boolean).join("\n");
  const instructions = input.instructions?.trim();
  const parts = [brief];
  if (instructions) parts.push(`Standing instructions from the user:\n${instructions}`);
  const snapshot = await workspaceSnapshot(input.cwd, input.home);
  if (snapshot) parts.push(snapshot);
  return parts.join("\n\n");
}

const primed = new Map<string, Promise<string>>();

/**
 * Starts taking the snapshot of `cwd` now, for the next session that starts there: the git
 * commands then run while the process is still starting up. Used once; later sessions take a
 * fresh one.
 */
export function primeWorkspaceSnapshot(cwd: string, home?: string): Promise<string> {
  const key = resolve(cwd);
  const started = primed.get(key) ?? takeSnapshot(key, home);
  primed.set(key, started);
  return started;
}

/** The workspace as it is now, or "" outside any repository or project. */
export function workspaceSnapshot(cwd: string, home?: string): Promise<string> {
  const key = resolve(cwd);
  const early = primed.get(key);
  if (early) {
    primed.delete(key);
    return early;
  }
  return takeSnapshot(key, home);
}

async function takeSnapshot(cwd: string, home?: string): Promise<string> {
  const facts = projectFacts(cwd, home);
  if (!facts) return "";
  const lines = ["Workspace at session start:", `- Root: ${facts.root}`];
  if (facts.git) lines.push(...(await gitLines(facts.root)));
  lines.push(...factLines(facts));
  return lines.join("\n");
}

function factLines(facts: ProjectFacts): string[] {
  const lines: string[] = [];
  if (facts.manifests.length > 0) {
    const managers = facts.packageManagers.length ? ` (${facts.packageManagers.join(", ")})` : "";
    lines.push(`- Project files: ${facts.manifests.slice(0, 6).join(", ")}${managers}`);
  }
  if (facts.verifyCommands.length > 0) lines.push(`- Checks: ${facts.verifyCommands.join("; ")}`);
  if (facts.contextFiles.length > 0) lines.push(`- Agent instructions: ${facts.contextFiles.join(", ")}`);
  return lines;
}

async function gitLines(root: string): Promise<string[]> {
  const { status, log } = await gitFacts(root);
  if (status === undefined) return [];
  const lines: string[] = [];
  const parsed = parseStatus(status);
  if (parsed.head === "(detached)") lines.push("- Branch: detached HEAD");
  else if (parsed.head) {
    let line = `- Branch: ${parsed.head}`;
    if (parsed.upstream) {
      line += ` tracking ${parsed.upstream}`;
      if (parsed.ahead || parsed.behind) line += ` (ahead ${parsed.ahead}, behind ${parsed.behind})`;
    }
    lines.push(line);
  }
  if (isLinkedWorkTree(root)) {
    lines.push("- A linked work tree: branches and stashes are shared with the main one");
  }
  const counts = Object.entries(parsed.counts)
    .filter(([, n]) => n > 0)
    .map(([label, n]) => `${n} ${label}`);
  lines.push(`- Status: ${counts.length ? counts.join(", ") : "clean"}`);
  const commits = (log ?? "").split("\n").filter(Boolean);
  if (commits.length) lines.push("- Recent commits:", ...commits.map((c) => `    ${c}`));
  return lines;
}

/**
 * A linked work tree (`git worktree add`) has a `.git` file pointing at a private git directory
 * that names the shared one in `commondir`; a submodule's private directory has no such file.
 */
function isLinkedWorkTree(root: string): boolean {
  try {
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(join(root, ".git"), "utf8"))?.[1]?.trim();
    return pointer !== undefined && existsSync(join(resolve(root, pointer), "commondir"));
  } catch {
    return false;
  }
}

interface GitStatus {
  head?: string;
  upstream?: string;
  ahead: number;
  behind: number;
  counts: { staged: number; modified: number; untracked: number; conflicted: number };
}

/** `git status --porcelain=2 --branch`: the branch lines and counts of changed entries. */
export function parseStatus(porcelain: string): GitStatus {
  const out: GitStatus = { ahead: 0, behind: 0, counts: { staged: 0, modified: 0, untracked: 0, conflicted: 0 } };
  for (const line of porcelain.split("\n")) {
    const words = line.split(" ");
    if (line.startsWith("# branch.head ")) out.head = words[2];
    else if (line.startsWith("# branch.upstream ")) out.upstream = words[2];
    else if (line.startsWith("# branch.ab ")) {
      out.ahead = Math.abs(Number(words[2]) || 0);
      out.behind = Math.abs(Number(words[3]) || 0);
    } else if (line.startsWith("1 ") || line.startsWith("2 ")) {
      const xy = words[1] ?? "..";
      if (xy[0] !== ".") out.counts.staged++;
      if (xy[1] !== ".") out.counts.modified++;
    } else if (line.startsWith("u ")) out.counts.conflicted++;
    else if (line.startsWith("? ")) out.counts.untracked++;
  }
  return out;
}

/**
 * The status and the last commits from one shell, so this process forks once (each fork of a
 * large process costs a few milliseconds of its main thread). Undefined status when git is
 * missing, fails or takes too long; the log is empty in a repository without commits.
 */
const GIT_FACTS_SCRIPT = `git -C "$1" status --porcelain=2 --branch || exit 1
printf '\\0'
git -C "$1" log -3 --pretty='%h %s' 2>/dev/null
exit 0`;

function gitFacts(root: string): Promise<{ status?: string; log: string }> {
  const { execFile } = process.getBuiltinModule("node:child_process") as typeof import("node:child_process");
  return new Promise((done) => {
    execFile(
      "sh",
      ["-c", GIT_FACTS_SCRIPT, "hermes-git-facts", root],
      { timeout: GIT_TIMEOUT_MS, encoding: "utf8", env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } },
      (error: ExecFileException | null, stdout: string) => {
        const split = stdout.indexOf("\0");
        if (error || split < 0) return done({ log: "" });
        done({ status: stdout.slice(0, split).trim(), log: stdout.slice(split + 1).trim() });
      },
    );
  });
}
