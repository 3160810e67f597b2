/**
 * The shape of one pooled credential, shared by the credential pool (which rotates through
 * them) and the auth store (which persists them in auth.json). Times are epoch seconds.
 */

export type CredentialStatus = "ok" | "exhausted" | "dead";

export interface CredentialRecord {
  id: string;
  label: string;
  /** "api_key" or "oauth" (other values are kept as given). */
  authType: string;
  /** Lower runs first under fill_first; round_robin rewrites it to persist the rotation. */
  priority: number;
  /** Where the credential came from: "manual", "oauth", or "env:VAR_NAME" (never persisted). */
  source: string;
  accessToken: string;
  refreshToken?: string | null;
  /** When the access token expires (OAuth), epoch seconds. */
  expiresAt?: number | null;
  /** When the token pair was last written (refresh or add), epoch seconds. */
  tokenUpdatedAt?: number | null;
  /** Per-credential endpoint override. */
  baseUrl?: string | null;
  lastStatus: CredentialStatus | null;
  lastStatusAt: number | null;
  lastErrorCode: number | null;
  lastErrorReason: string | null;
  /** Provider-given time at which the exhausted credential may be used again. */
  lastErrorResetAt: number | null;
  requestCount: number;
}

/** Credentials seeded from environment variables live only in memory. */
export function isEnvSeeded(record: Pick<CredentialRecord, "source">): boolean {
  return typeof record.source === "string" && record.source.startsWith("env:");
}

/** A fresh API-key record with a clean status. */
export function newApiKeyRecord(
  fields: Pick<CredentialRecord, "id" | "label" | "priority" | "source" | "accessToken"> & Partial<CredentialRecord>,
): CredentialRecord {
  return {
    authType: "api_key",
    lastStatus: null,
    lastStatusAt: null,
    lastErrorCode: null,
    lastErrorReason: null,
    lastErrorResetAt: null,
    requestCount: 0,
    ...fields,
  };
}
