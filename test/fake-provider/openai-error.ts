/** The error body OpenAI (and OpenAI-compatible servers) send, shared by chat and responses. */
import type { ErrorReply } from "./protocol.js";

const KINDS: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "permission_denied" },
  404: { type: "invalid_request_error", code: "model_not_found" },
  413: { type: "invalid_request_error", code: "request_too_large" },
  429: { type: "requests", code: "rate_limit_exceeded" },
};

export function openaiErrorReply(status: number, message: string): ErrorReply {
  const kind =
    KINDS[status] ?? (status >= 500 ? { type: "server_error", code: null } : { type: "api_error", code: null });
  return { body: { error: { message, type: kind.type, param: null, code: kind.code } }, headers: {} };
}
