/**
 * The mask applied to a secret. A masked token of 18 or more characters keeps its first 6 and
 * last 4 characters so a person can still tell which credential was involved; shorter ones
 * become "***".
 */

const MIN_PARTIAL_MASK_LENGTH = 18;

/** Masks one secret value. */
export function maskToken(token: string): string {
  if (token.length < MIN_PARTIAL_MASK_LENGTH) return "***";
  return `${token.slice(0, 6)}...${token.slice(-4)}`;
}

/** Whether a value already is the output of `maskToken`, so a second pass leaves it alone. */
export function looksMasked(value: string): boolean {
  return value === "***" || /^[^\s]{0,6}\.\.\.[^\s]{0,4}$/.test(value);
}
