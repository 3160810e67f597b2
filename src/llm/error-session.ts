/**
 * Whether a session is big enough that a vague failure is probably its size. Providers choke on
 * oversized prompts in two vague ways, each with its own bar: a bare 400 ("Error") is blamed on
 * size sooner than a dropped connection, which is far more often just the network.
 */
import type { ClassifyContext } from "./errors.js";

interface SizeBar {
  /** Share of the window above which the session counts as large. */
  ratio: number;
  /** On windows up to SMALL_WINDOW, this many tokens also count as large... */
  tokens: number;
  /** ...and so do this many messages. */
  messages: number;
}

/** Window assumed when the caller does not know the model's. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;
/**
 * Above this window the absolute counts say nothing: on a million-token window, 400 short
 * messages are a small session, and a vague error there is about the request.
 */
const SMALL_WINDOW = 256_000;

export const VAGUE_400_BAR: SizeBar = { ratio: 0.4, tokens: 80_000, messages: 80 };
export const DISCONNECT_BAR: SizeBar = { ratio: 0.6, tokens: 120_000, messages: 200 };

export function isLargeSession(ctx: ClassifyContext, bar: SizeBar): boolean {
  const window = ctx.contextLength !== undefined && ctx.contextLength > 0 ? ctx.contextLength : DEFAULT_CONTEXT_WINDOW;
  const tokens = ctx.approxTokens ?? 0;
  if (tokens > window * bar.ratio) return true;
  return window <= SMALL_WINDOW && (tokens > bar.tokens || (ctx.numMessages ?? 0) > bar.messages);
}
