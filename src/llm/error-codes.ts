/**
 * Machine-readable codes from error bodies (`error.code`, Google's `error.status`, or
 * `error.type`), lower-cased, and the reason each one means when no HTTP status decided first.
 */
import type { FailoverReason } from "./errors.js";

export const BODY_CODES: Record<string, FailoverReason> = {
  context_length_exceeded: "context_overflow",
  string_above_max_length: "context_overflow",
  max_tokens_exceeded: "context_overflow",
  rate_limit_exceeded: "rate_limit",
  rate_limit: "rate_limit",
  rate_limit_error: "rate_limit",
  resource_exhausted: "rate_limit",
  too_many_requests: "rate_limit",
  throttled: "rate_limit",
  insufficient_quota: "billing",
  billing_hard_limit_reached: "billing",
  billing_error: "billing",
  insufficient_credits: "billing",
  payment_required: "billing",
  billing_not_active: "billing",
  no_usable_credits: "billing",
  balance_depleted: "billing",
  model_not_supported_on_free_tier: "billing",
  model_not_found: "model_not_found",
  model_not_available: "model_not_found",
  invalid_model: "model_not_found",
  invalid_encrypted_content: "invalid_encrypted_content",
  invalid_api_key: "auth",
  authentication_error: "auth",
  permission_error: "auth",
  permission_denied: "auth",
  unauthenticated: "auth",
  unauthorized: "auth",
  overloaded: "overloaded",
  overloaded_error: "overloaded",
  unavailable: "overloaded",
  server_error: "server_error",
  internal: "server_error",
  internal_error: "server_error",
  api_error: "server_error",
};
