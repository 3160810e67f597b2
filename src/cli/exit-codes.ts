export const EXIT = { ok: 0, error: 1, usage: 2, interrupted: 130 } as const;

/** A mistake in how the command was called: reported in one line, exit code 2. */
export { UsageError } from "../runtime/errors.js";
