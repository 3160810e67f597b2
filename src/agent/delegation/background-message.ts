/**
 * How a finished background subagent reaches its parent: a new turn whose text says plainly
 * that it is a subagent's report, not the user's words, with the summary fenced as data (the
 * child may have read hostile pages), and a one-line notice for surfaces that show one.
 */
import { fenceUntrusted } from "../../util/untrusted.js";
import type { BackgroundResult } from "./background.js";

/** Every background result turn starts with this, so surfaces can recognise one. */
export const BACKGROUND_RESULT_PREFIX = "[Background subagent result";

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function outcome(result: BackgroundResult): string {
  const { report } = result;
  const counts = `${report.apiCalls} model calls, ${report.toolCalls} tool calls`;
  if (report.status === "completed") return `it completed (${counts})`;
  if (report.status === "interrupted") return `it was interrupted before it finished (${counts})`;
  return `it FAILED: ${report.error ?? "no reason given"} (${counts})`;
}

/** The turn input that hands one or more finished background results to the parent. */
export function backgroundResultsMessage(results: readonly BackgroundResult[]): string {
  const parts = results.map((result) => {
    const summary = result.report.summary.trim();
    return [
      `${BACKGROUND_RESULT_PREFIX} ${result.id} — this is not a message from the user]`,
      `A subagent you dispatched earlier with delegate_task (background) has finished; ${outcome(result)}.`,
      `Goal: ${oneLine(result.goal, 500)}`,
      summary ? fenceUntrusted("a background subagent", summary) : "(it wrote no summary)",
    ].join("\n");
  });
  return [
    ...parts,
    "Carry on with whatever this result was for: check it, use it, and tell the user what it means for their request. If the subagent failed, say so and decide whether to retry or do the work yourself.",
  ].join("\n\n");
}

/** One line for a surface's transcript: which background subagent finished, and how. */
export function backgroundResultNotice(result: BackgroundResult): string {
  const status = result.report.status === "completed" ? "finished" : result.report.status;
  const error =
    result.report.status === "failed" && result.report.error ? ` (${oneLine(result.report.error, 120)})` : "";
  return `⇠ background subagent ${result.id} ${status}${error}: ${oneLine(result.goal, 60)}`;
}
