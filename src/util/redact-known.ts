/**
 * Secret values known by their content rather than their shape: values a secrets manager put
 * into the environment (a database password looks like any other word). Once registered, a
 * value is masked wherever `redactSecrets` sees it, for the rest of the process.
 */
import { maskToken } from "./redact-mask.js";

/** Shorter values ("true", "8080", "eu") would mask ordinary text everywhere; they are not registered. */
export const MIN_KNOWN_SECRET_LENGTH = 8;

const known = new Set<string>();
/** Longest first, so a value that contains another is masked whole. */
let longestFirst: string[] = [];

/** Mask `value` in all redacted text from now on. Returns whether it was registered (long enough). */
export function registerSecretValue(value: string): boolean {
  if (value.length < MIN_KNOWN_SECRET_LENGTH || value.trim() === "") return false;
  if (!known.has(value)) {
    known.add(value);
    longestFirst = [...known].sort((a, b) => b.length - a.length);
  }
  return true;
}

export function maskKnownSecretValues(text: string): string {
  if (longestFirst.length === 0) return text;
  let out = text;
  for (const value of longestFirst) if (out.includes(value)) out = out.split(value).join(maskToken(value));
  return out;
}
