/**
 * The edit tools' view of language-server diagnostics: a `diagnose` hook they call after a
 * successful write, and a lazy owner of it that loads the LSP client only on the first call, so
 * a run that edits nothing never loads it.
 */
import type { LspOptions } from "./manager.js";
import type { DiagnosticsSummary } from "./report.js";

export interface DiagnoseRequest {
  /** The file's real, absolute path. */
  path: string;
  /** Its content as just written. */
  text: string;
  /** The path as the tool result shows it. */
  shown: string;
  /** The session's working directory: only files under it are checked. */
  cwd: string;
  signal?: AbortSignal;
}

/** Fields added to the edit tool's JSON result; nothing when the file is not checked. */
export interface DiagnoseOutcome {
  diagnostics?: DiagnosticsSummary;
  /** Why there are no diagnostics this time ("diagnostics unavailable: ..."). */
  diagnostics_note?: string;
}

export type DiagnoseHook = (request: DiagnoseRequest) => Promise<DiagnoseOutcome | undefined>;

export interface LazyDiagnostics {
  diagnose: DiagnoseHook;
  /** Stop every server started (nothing to do when none was). */
  close(): Promise<void>;
}

export function lazyDiagnostics(options: LspOptions): LazyDiagnostics {
  let manager: Promise<import("./manager.js").LspManager> | undefined;
  let closed = false;
  return {
    diagnose: async (request) => {
      if (closed) return undefined;
      manager ??= import("./manager.js").then((module) => new module.LspManager(options));
      return (await manager).diagnose(request);
    },
    close: async () => {
      closed = true;
      if (manager) await (await manager).close();
    },
  };
}

/**
 * What the edit tools add to their result for the files one edit wrote: one summary for all of
 * them. A check that fails never turns the successful edit into an error.
 */
export async function diagnoseEdited(
  hook: DiagnoseHook | undefined,
  requests: DiagnoseRequest[],
): Promise<DiagnoseOutcome | undefined> {
  if (!hook || requests.length === 0) return undefined;
  let outcomes: Array<DiagnoseOutcome | undefined>;
  try {
    outcomes = await Promise.all(requests.map((request) => hook(request)));
  } catch (error) {
    return { diagnostics_note: `diagnostics unavailable: ${(error as Error).message}` };
  }
  const checked = outcomes.filter((outcome): outcome is DiagnoseOutcome => outcome !== undefined);
  if (checked.length <= 1) return checked[0];
  const { mergeSummaries } = await import("./report.js");
  const summaries = checked.flatMap((outcome) => (outcome.diagnostics ? [outcome.diagnostics] : []));
  const notes = [
    ...new Set(checked.flatMap((outcome) => (outcome.diagnostics_note ? [outcome.diagnostics_note] : []))),
  ];
  return {
    ...(summaries.length > 0 ? { diagnostics: mergeSummaries(summaries) } : {}),
    ...(notes.length > 0 ? { diagnostics_note: notes.join("; ") } : {}),
  };
}
