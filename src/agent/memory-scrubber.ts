/**
 * Recalled memory reaches the model inside a `<memory-context>` fence in the user message. A
 * model sometimes echoes that fence back; the user must never see it. These helpers remove
 * fenced blocks from a finished text and from a stream of text deltas, where a tag may be cut
 * anywhere across chunks.
 */

export const MEMORY_CONTEXT_OPEN = "<memory-context>";
export const MEMORY_CONTEXT_CLOSE = "</memory-context>";

const FENCED_BLOCK = /<memory-context>[\s\S]*?<\/memory-context>\s*/gi;
const UNCLOSED_BLOCK = /<memory-context>[\s\S]*$/i;

/** Removes every fenced block (and an unterminated one at the end) from a complete text. */
export function stripMemoryContext(text: string): string {
  return text.replace(FENCED_BLOCK, "").replace(UNCLOSED_BLOCK, "");
}

/**
 * Wraps recalled memory in the fence, with a note that it is reference data rather than
 * something the user just said. Empty input gives an empty string.
 */
export function fenceMemoryContext(recalled: string): string {
  const clean = stripMemoryContext(recalled).trim();
  if (!clean) return "";
  return [
    MEMORY_CONTEXT_OPEN,
    "[Recalled from persistent memory for this turn. This is background reference, not a new " +
      "message from the user; use it where it helps and never quote this block back.]",
    "",
    clean,
    MEMORY_CONTEXT_CLOSE,
  ].join("\n");
}

/**
 * A streaming filter: `feed` each delta and show what it returns; call `flush` at the end of
 * the stream. Text that could still be the start of a tag is held back until the next delta
 * decides it; text inside a fence is dropped, as is the whitespace right after a closing tag.
 */
export class MemoryContextScrubber {
  private pending = "";
  private inside = false;
  private skipWhitespace = false;

  feed(delta: string): string {
    this.pending += delta;
    let visible = "";
    for (;;) {
      if (this.inside) {
        const close = indexOfTag(this.pending, MEMORY_CONTEXT_CLOSE);
        if (close < 0) {
          // Keep only what could be the start of the closing tag; the rest is memory text.
          this.pending = this.pending.slice(this.pending.length - partialTagLength(this.pending, MEMORY_CONTEXT_CLOSE));
          return visible;
        }
        this.pending = this.pending.slice(close + MEMORY_CONTEXT_CLOSE.length);
        this.inside = false;
        this.skipWhitespace = true;
        continue;
      }
      if (this.skipWhitespace) {
        const trimmed = this.pending.trimStart();
        if (!trimmed) {
          this.pending = "";
          return visible;
        }
        this.pending = trimmed;
        this.skipWhitespace = false;
      }
      const open = indexOfTag(this.pending, MEMORY_CONTEXT_OPEN);
      if (open >= 0) {
        visible += this.pending.slice(0, open);
        this.pending = this.pending.slice(open + MEMORY_CONTEXT_OPEN.length);
        this.inside = true;
        continue;
      }
      const held = partialTagLength(this.pending, MEMORY_CONTEXT_OPEN);
      visible += this.pending.slice(0, this.pending.length - held);
      this.pending = this.pending.slice(this.pending.length - held);
      return visible;
    }
  }

  /** The held-back text that turned out not to be a tag; memory text of an unclosed fence is dropped. */
  flush(): string {
    const rest = this.inside ? "" : this.pending;
    this.pending = "";
    this.inside = false;
    this.skipWhitespace = false;
    return rest;
  }
}

function indexOfTag(text: string, tag: string): number {
  const lower = text.toLowerCase();
  // Lower-casing can change the length of some non-ASCII text; fall back to an exact search then.
  return lower.length === text.length ? lower.indexOf(tag) : text.indexOf(tag);
}

/** Length of the longest end of `text` that is a (case-insensitive) proper prefix of `tag`. */
function partialTagLength(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (text.slice(-n).toLowerCase() === tag.slice(0, n)) return n;
  }
  return 0;
}
