/**
 * Several credentials for one provider, used in turn: when one hits a quota or an auth failure it
 * is set aside for a cooldown and the next takes over. The pool's records are the same plain
 * records the auth store persists, so `entries()` can be written to auth.json as they are.
 */
import type { CredentialRecord } from "../util/credential-record.js";
import { parseResetTime } from "./credential-pool-reset.js";

export type PoolStrategy = "fill_first" | "round_robin" | "random" | "least_used";

export const POOL_STRATEGIES: readonly PoolStrategy[] = ["fill_first", "round_robin", "random", "least_used"];

/** A transient auth failure (token mid-refresh, clock skew) is worth retrying soon. */
export const EXHAUSTED_TTL_401_SECONDS = 5 * 60;
/** Quotas (402, 429) and everything else usually reset on the hour. */
export const EXHAUSTED_TTL_DEFAULT_SECONDS = 60 * 60;

/** Reasons a 401 gives when the token itself can never work again. */
const TERMINAL_AUTH_REASONS = new Set([
  "token_invalidated",
  "token_revoked",
  "invalid_token",
  "invalid_grant",
  "unauthorized_client",
  "refresh_token_reused",
]);

export interface CredentialPoolOptions {
  provider: string;
  entries: CredentialRecord[];
  /** Default fill_first: always the lowest-priority-number available entry. */
  strategy?: PoolStrategy;
  /** Current time in epoch seconds. */
  now?: () => number;
  /** Uniform random in [0, 1) for the random strategy. */
  random?: () => number;
}

export interface ExhaustionReport {
  statusCode?: number;
  /** Provider error code or classified reason; terminal auth reasons retire the entry for good. */
  reason?: string;
  /**
   * When the provider said the limit resets (epoch seconds or milliseconds, or an ISO-8601
   * string); overrides the default cooldown, so a time already past frees the entry at once.
   */
  resetAt?: number | string | null;
}

/** When an entry may be used again: -Infinity if now, Infinity if never. */
export function availableAgainAt(record: CredentialRecord): number {
  if (record.lastStatus === "dead") return Number.POSITIVE_INFINITY;
  if (record.lastStatus !== "exhausted") return Number.NEGATIVE_INFINITY;
  const resetAt = parseResetTime(record.lastErrorResetAt);
  if (resetAt !== null) return resetAt;
  if (record.lastStatusAt === null || record.lastStatusAt === undefined) return Number.NEGATIVE_INFINITY;
  const ttl = record.lastErrorCode === 401 ? EXHAUSTED_TTL_401_SECONDS : EXHAUSTED_TTL_DEFAULT_SECONDS;
  return record.lastStatusAt + ttl;
}

/** Only a 401 proves the token dead; a 403 with the same words may be a missing permission. */
export function isTerminalAuthFailure(report: ExhaustionReport): boolean {
  return (
    report.statusCode === 401 && report.reason !== undefined && TERMINAL_AUTH_REASONS.has(report.reason.toLowerCase())
  );
}

const byPriority = (a: CredentialRecord, b: CredentialRecord) => a.priority - b.priority;

export class CredentialPool {
  readonly provider: string;
  readonly strategy: PoolStrategy;
  #entries: CredentialRecord[];
  #currentId: string | null = null;
  readonly #now: () => number;
  readonly #random: () => number;

  constructor(options: CredentialPoolOptions) {
    this.provider = options.provider;
    this.strategy = options.strategy ?? "fill_first";
    this.#entries = options.entries.map((entry) => ({ ...entry })).sort(byPriority);
    this.#now = options.now ?? (() => Date.now() / 1000);
    this.#random = options.random ?? Math.random;
  }

  /** Picks the credential for the next request (reviving one whose cooldown is over), or null. */
  select(): CredentialRecord | null {
    const now = this.#now();
    const available = this.#entries.filter((entry) => now >= availableAgainAt(entry));
    const chosen = this.#choose(available);
    if (!chosen) {
      this.#currentId = null;
      return null;
    }
    if (chosen.lastStatus !== "ok") {
      chosen.lastStatus = "ok";
      chosen.lastStatusAt = now;
      chosen.lastErrorCode = null;
      chosen.lastErrorReason = null;
      chosen.lastErrorResetAt = null;
    }
    chosen.requestCount += 1;
    this.#currentId = chosen.id;
    if (this.strategy === "round_robin") this.#moveToBack(chosen);
    return { ...chosen };
  }

  current(): CredentialRecord | null {
    const entry = this.#find(this.#currentId);
    return entry ? { ...entry } : null;
  }

  hasAvailable(): boolean {
    const now = this.#now();
    return this.#entries.some((entry) => now >= availableAgainAt(entry));
  }

  /**
   * Sets the current credential aside (exhausted for a cooldown, or dead for a terminal auth
   * failure) and selects the next one. With none current yet, the one a selection would pick
   * is the one that failed.
   */
  markExhaustedAndRotate(report: ExhaustionReport = {}): CredentialRecord | null {
    const entry = this.#find(this.#currentId) ?? this.#find(this.select()?.id ?? null);
    if (!entry) return null;
    entry.lastStatus = isTerminalAuthFailure(report) ? "dead" : "exhausted";
    entry.lastStatusAt = this.#now();
    entry.lastErrorCode = report.statusCode ?? null;
    entry.lastErrorReason = report.reason ?? null;
    entry.lastErrorResetAt = parseResetTime(report.resetAt);
    return this.select();
  }

  /** The pool's state, in priority order, as it is persisted. */
  entries(): CredentialRecord[] {
    return this.#entries.map((entry) => ({ ...entry }));
  }

  /** Takes fresher records (e.g. merged from auth.json), keeping the current selection by id. */
  replaceEntries(records: CredentialRecord[]): void {
    this.#entries = records.map((entry) => ({ ...entry })).sort(byPriority);
    if (!this.#find(this.#currentId)) this.#currentId = null;
  }

  #find(id: string | null): CredentialRecord | undefined {
    return id === null ? undefined : this.#entries.find((entry) => entry.id === id);
  }

  #choose(available: CredentialRecord[]): CredentialRecord | undefined {
    switch (this.strategy) {
      case "random":
        return available[Math.min(available.length - 1, Math.floor(this.#random() * available.length))];
      case "least_used":
        return available.reduce<CredentialRecord | undefined>(
          (best, entry) => (best === undefined || entry.requestCount < best.requestCount ? entry : best),
          undefined,
        );
      default:
        return available[0];
    }
  }

  /** Round-robin keeps its place by renumbering priorities, so a reloaded pool carries on. */
  #moveToBack(chosen: CredentialRecord): void {
    this.#entries = [...this.#entries.filter((entry) => entry !== chosen), chosen];
    this.#entries.forEach((entry, index) => {
      entry.priority = index;
    });
  }
}
