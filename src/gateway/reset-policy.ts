/**
 * When a chat's conversation starts afresh on its own (`session_reset`): after a quiet period,
 * at a fixed hour each day, either, or never. The old session stays in the store and can be
 * resumed; only the chat's route moves to a new one.
 */

export type ResetMode = "daily" | "idle" | "both" | "none";

export interface ResetPolicy {
  mode: ResetMode;
  /** Local hour (0-23) of the daily reset. */
  atHour: number;
  /** Minutes without a message after which the next one starts a new session. */
  idleMinutes: number;
}

/** The most recent moment, at or before `now`, when the local clock showed `hour`:00. */
export function lastDailyReset(now: number, hour: number): number {
  const at = new Date(now);
  at.setHours(hour, 0, 0, 0);
  if (at.getTime() > now) at.setDate(at.getDate() - 1);
  return at.getTime();
}

/** Why the session whose last message came at `lastActivity` is over by `now`, or undefined. */
export function resetReason(policy: ResetPolicy, lastActivity: number, now: number): string | undefined {
  if (policy.mode === "none") return undefined;
  if (policy.mode === "idle" || policy.mode === "both") {
    const idleMs = policy.idleMinutes * 60_000;
    if (idleMs > 0 && now - lastActivity >= idleMs) return `no messages for ${policy.idleMinutes} minutes`;
  }
  if (policy.mode === "daily" || policy.mode === "both") {
    if (lastActivity < lastDailyReset(now, policy.atHour)) {
      return `the daily reset at ${String(policy.atHour).padStart(2, "0")}:00`;
    }
  }
  return undefined;
}
