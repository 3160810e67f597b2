/**
 * Reading `tirith check --json` (the contract is in tirith.ts): the exit code and the JSON
 * verdict on stdout, reduced to what the approval prompt shows. Everything in tirith's answer
 * echoes text the model wrote, so it is cleaned of control characters and cut short here.
 */

export type TirithAction = "allow" | "warn" | "block";

export interface TirithFinding {
  ruleId: string;
  title: string;
}

export interface TirithVerdict {
  action: TirithAction;
  findings: TirithFinding[];
  /** tirith honoured a `TIRITH=0` bypass, so it did not look at the command. */
  bypassHonored: boolean;
}

/** 3 is a warning that needs acknowledging (`strict_warn`), 4 a block deferred for review. */
const EXIT_ACTIONS: ReadonlyMap<number, TirithAction> = new Map([
  [0, "allow"],
  [1, "block"],
  [2, "warn"],
  [3, "warn"],
  [4, "block"],
]);
const JSON_ACTIONS: ReadonlyMap<string, TirithAction> = new Map([
  ["allow", "allow"],
  ["warn", "warn"],
  ["warn_ack", "warn"],
  ["block", "block"],
]);
const RANK: Record<TirithAction, number> = { allow: 0, warn: 1, block: 2 };

const MAX_FINDINGS_SHOWN = 5;
const MAX_TITLE_CHARS = 100;
const MAX_RULE_CHARS = 60;

/**
 * The verdict, or why there is none. The exit code and the JSON `action` must both be known;
 * when they differ the stricter one counts (an error exit with a stray `allow` is not an allow).
 */
export function readVerdict(exitCode: number, stdout: string): TirithVerdict | { error: string } {
  const byExit = EXIT_ACTIONS.get(exitCode);
  if (byExit === undefined) return { error: `it exited with code ${exitCode}` };
  const parsed = parseJson(stdout);
  if (!isRecord(parsed)) return { error: "its output is not a JSON verdict" };
  const byJson = typeof parsed.action === "string" ? JSON_ACTIONS.get(parsed.action) : undefined;
  if (byJson === undefined) return { error: "its output names no known action" };
  const findings = Array.isArray(parsed.findings) ? parsed.findings.filter(isRecord).map(readFinding) : [];
  return {
    action: RANK[byExit] > RANK[byJson] ? byExit : byJson,
    findings,
    bypassHonored: parsed.bypass_honored === true,
  };
}

/** The approval key: the rule ids, so a "session" yes covers the same findings again. */
export function verdictKey(verdict: TirithVerdict): string {
  const rules = [...new Set(verdict.findings.map((f) => f.ruleId).filter(Boolean))].sort();
  return `tirith:${rules.length > 0 ? rules.join(",") : verdict.action}`;
}

/** One line for the approval prompt: the action and the first findings' rule ids and titles. */
export function describeVerdict(verdict: TirithVerdict): string {
  const what = verdict.action === "block" ? "tirith blocks this command" : "tirith warns about this command";
  if (verdict.findings.length === 0) return `${what} (it gave no findings)`;
  const shown = verdict.findings
    .slice(0, MAX_FINDINGS_SHOWN)
    .map((f) => (f.title ? `${f.ruleId || "unnamed rule"}: ${f.title}` : f.ruleId || "unnamed rule"));
  const more = verdict.findings.length - shown.length;
  return `${what}: ${shown.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
}

/** Text from tirith, safe to show: no escape sequences, control, bidi or zero-width characters. */
export function cleanText(text: string, maxChars: number): string {
  const plain = text
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g, "")
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/[\x00-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return plain.length > maxChars ? `${plain.slice(0, maxChars - 1)}…` : plain;
}

function readFinding(raw: Record<string, unknown>): TirithFinding {
  const ruleId = typeof raw.rule_id === "string" ? raw.rule_id : "";
  return {
    ruleId: cleanText(ruleId, MAX_RULE_CHARS).replace(/[^\w.:-]/g, "_"),
    title: typeof raw.title === "string" ? cleanText(raw.title, MAX_TITLE_CHARS) : "",
  };
}

/** tirith prints one JSON line; tolerate anything printed before it. */
function parseJson(stdout: string): unknown {
  const lines = stdout.trim().split("\n");
  for (const candidate of [stdout.trim(), lines[lines.length - 1] ?? ""]) {
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next shape
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
