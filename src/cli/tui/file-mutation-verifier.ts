/**
 * `display.file_mutation_verifier`: remembers which files a turn's write_file and patch calls
 * failed to change, forgets a file once a later call of the turn writes it, and at the end of the
 * turn names what is left, so a reply claiming that every edit landed cannot hide one that did not.
 */
import { resolve } from "node:path";

const FILE_TOOLS = new Set(["write_file", "patch"]);
const LISTED = 10;
const PREVIEW_CHARS = 100;
const V4A_TARGET = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

/** The files a write_file or patch call sets out to change, as the model named them. */
export function mutationTargets(name: string, args: unknown): string[] {
  if (!FILE_TOOLS.has(name) || !args || typeof args !== "object") return [];
  const { path, patch, mode } = args as Record<string, unknown>;
  // The same choice of mode the patch tool makes.
  const v4a = name === "patch" && (mode === "patch" || (mode === undefined && Boolean(patch) && !path));
  if (v4a) return typeof patch === "string" ? [...patch.matchAll(V4A_TARGET)].map((m) => m[1]!.trim()) : [];
  return typeof path === "string" && path ? [path] : [];
}

/** Text from the model or a tool, safe to print: one line, no control characters, cut short. */
function printable(text: string): string {
  const line = (text.trim().split("\n")[0] ?? "").replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}

/** The first line of a tool's error. */
function errorPreview(result: string): string {
  let text = result;
  try {
    const parsed = JSON.parse(result) as { error?: unknown } | null;
    if (parsed && typeof parsed.error === "string") text = parsed.error;
  } catch {
    // Not JSON: the result's own words.
  }
  return printable(text);
}

interface FailedWrite {
  shown: string;
  tool: string;
  error: string;
}

export class FileMutationVerifier {
  private readonly running = new Map<string, string[]>();
  /** By absolute path, so `a.txt` and `./a.txt` are one file. */
  private readonly failed = new Map<string, FailedWrite>();

  constructor(private readonly cwd: () => string) {}

  started(callId: string, name: string, args: unknown): void {
    const targets = mutationTargets(name, args);
    if (targets.length > 0) this.running.set(callId, targets);
  }

  ended(callId: string, name: string, failed: boolean, result: string): void {
    const targets = this.running.get(callId);
    if (!targets) return;
    this.running.delete(callId);
    for (const shown of targets) {
      const key = resolve(this.cwd(), shown);
      if (!failed) this.failed.delete(key);
      else if (!this.failed.has(key))
        this.failed.set(key, { shown: printable(shown), tool: name, error: errorPreview(result) });
    }
  }

  /** The warning for the turn that just ended (undefined when every edit landed); starts afresh. */
  takeWarning(): string | undefined {
    const failed = [...this.failed.values()];
    this.failed.clear();
    this.running.clear();
    if (failed.length === 0) return undefined;
    const files = failed.length === 1 ? "1 file was" : `${failed.length} files were`;
    const lines = [
      `⚠ ${files} NOT changed this turn, whatever the reply says (check with git status or by reading it):`,
      ...failed.slice(0, LISTED).map((f) => `  • ${f.shown} (${f.tool})${f.error ? `: ${f.error}` : ""}`),
    ];
    if (failed.length > LISTED) lines.push(`  • … and ${failed.length - LISTED} more`);
    return lines.join("\n");
  }
}
