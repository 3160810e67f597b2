/**
 * Diagnostics as the edit tools add them to their result: errors and warnings counted, at most
 * MAX_ITEMS of them as one line each ("src/a.ts:12:5 error TS2322: ..."), errors first.
 * Information and hints are left out.
 */
import type { LspDiagnostic } from "./client.js";

export interface DiagnosticsSummary {
  errors: number;
  warnings?: number;
  items?: string[];
  /** How many errors and warnings did not fit in `items`. */
  omitted?: number;
}

export const MAX_ITEMS = 20;
const MAX_MESSAGE_CHARS = 300;

interface Item {
  severity: 1 | 2;
  line: number;
  column: number;
  text: string;
}

function codeOf(diagnostic: LspDiagnostic): string {
  const { code, source } = diagnostic;
  if (code === undefined || code === null || code === "") return "";
  if (typeof code === "number" && (source === "ts" || source === "typescript")) return ` TS${code}`;
  return ` ${String(code).slice(0, 60)}`;
}

function itemsOf(diagnostics: readonly LspDiagnostic[], shown: string): Item[] {
  const items: Item[] = [];
  for (const diagnostic of diagnostics) {
    // A diagnostic without a severity is the client's to judge; editors show it as an error.
    const severity = diagnostic.severity ?? 1;
    if (severity !== 1 && severity !== 2) continue;
    const line = (diagnostic.range?.start?.line ?? 0) + 1;
    const column = (diagnostic.range?.start?.character ?? 0) + 1;
    let message = String(diagnostic.message ?? "")
      .replace(/\s+/g, " ")
      .trim();
    if (message.length > MAX_MESSAGE_CHARS) message = `${message.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
    const label = severity === 1 ? "error" : "warning";
    items.push({
      severity,
      line,
      column,
      text: `${shown}:${line}:${column} ${label}${codeOf(diagnostic)}: ${message}`,
    });
  }
  return items;
}

/** One file's diagnostics, under the path the tool result shows it as. */
export function summarizeDiagnostics(diagnostics: readonly LspDiagnostic[], shown: string): DiagnosticsSummary {
  const all = itemsOf(diagnostics, shown);
  all.sort((a, b) => a.severity - b.severity);
  const errors = all.filter((item) => item.severity === 1).length;
  const warnings = all.length - errors;
  const summary: DiagnosticsSummary = { errors };
  if (warnings > 0) summary.warnings = warnings;
  if (all.length > 0) summary.items = all.slice(0, MAX_ITEMS).map((item) => item.text);
  if (all.length > MAX_ITEMS) summary.omitted = all.length - MAX_ITEMS;
  return summary;
}

/** Several files' summaries as one: counts added, error lines of every file before any warning. */
export function mergeSummaries(summaries: readonly DiagnosticsSummary[]): DiagnosticsSummary {
  const errorLines: string[] = [];
  const warningLines: string[] = [];
  let errors = 0;
  let warnings = 0;
  for (const summary of summaries) {
    errors += summary.errors;
    warnings += summary.warnings ?? 0;
    const items = summary.items ?? [];
    const errorCount = Math.min(summary.errors, items.length);
    errorLines.push(...items.slice(0, errorCount));
    warningLines.push(...items.slice(errorCount));
  }
  const lines = [...errorLines, ...warningLines];
  const merged: DiagnosticsSummary = { errors };
  if (warnings > 0) merged.warnings = warnings;
  if (lines.length > 0) merged.items = lines.slice(0, MAX_ITEMS);
  const omitted = errors + warnings - Math.min(lines.length, MAX_ITEMS);
  if (omitted > 0) merged.omitted = omitted;
  return merged;
}
