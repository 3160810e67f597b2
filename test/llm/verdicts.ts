/** The recovery verdict of a classified provider error, for table tests of the classifier. */
import { classifyApiError } from "../../src/llm/errors.js";

export interface Verdict {
  reason: string;
  retryable: boolean;
  shouldCompress: boolean;
  shouldRotateCredential: boolean;
  shouldFallback: boolean;
}

export function verdict(error: unknown, ctx: Record<string, unknown> = {}): Verdict {
  const r = classifyApiError(error, ctx);
  return {
    reason: r.reason,
    retryable: r.retryable,
    shouldCompress: r.shouldCompress,
    shouldRotateCredential: r.shouldRotateCredential,
    shouldFallback: r.shouldFallback,
  };
}

export const v = (reason: string, retry: boolean, compress: boolean, rotate: boolean, fallback: boolean): Verdict => ({
  reason,
  retryable: retry,
  shouldCompress: compress,
  shouldRotateCredential: rotate,
  shouldFallback: fallback,
});
