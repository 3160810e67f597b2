/** A healthy manual API-key credential record, for pool and auth-store tests. */
import type { CredentialRecord } from "../../src/util/credential-record.js";

export function credentialRecord(id: string, priority = 0, extra: Partial<CredentialRecord> = {}): CredentialRecord {
  return {
    id,
    label: id,
    authType: "api_key",
    priority,
    source: "manual",
    accessToken: `sk-${id}`,
    lastStatus: "ok",
    lastStatusAt: null,
    lastErrorCode: null,
    lastErrorReason: null,
    lastErrorResetAt: null,
    requestCount: 0,
    ...extra,
  };
}
