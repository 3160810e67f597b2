/**
 * Why a turn was interrupted, in the words `Agent.interrupt(reason)` was given ("stopped by
 * /stop", "the gateway is shutting down", "the client disconnected"), for the notes left in the
 * history: the model should not read a restart as the user changing their mind.
 */
const DEFAULT_REASON = "interrupted by the user";

export function interruptionReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name !== "AbortError" && reason.message.trim()) return reason.message.trim();
  if (typeof reason === "string" && reason.trim()) return reason.trim();
  return DEFAULT_REASON;
}

/** The result a tool call gets when the turn stops under it. */
export function interruptedToolResult(signal: AbortSignal): string {
  return `[the turn was interrupted before the tool finished: ${interruptionReason(signal)}]`;
}

/** What stands in for the results of calls the interrupted turn never ran. */
export function interruptedCallNote(signal: AbortSignal): string {
  return `[not run: the turn was interrupted (${interruptionReason(signal)})]`;
}
