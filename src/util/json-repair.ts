/**
 * Repair of malformed tool-call arguments produced by models (local models especially).
 *
 * The result is always a string that strict `JSON.parse` accepts and that parses to a plain
 * object. When the text cannot be recovered the result is "{}": an empty object makes the tool
 * report a recoverable error, while invalid JSON sent back to the provider would make it
 * reject every later turn until the broken call left the context window.
 */

const EMPTY = "{}";

const CLOSER_OF: Record<string, string> = { "{": "}", "[": "]" };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function tryParseObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isPlainObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function escapeControlChar(ch: string): string {
  switch (ch) {
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    case "\b":
      return "\\b";
    case "\f":
      return "\\f";
    default:
      return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  }
}

const isSpace = (ch: string | undefined) => ch === " " || ch === "\n" || ch === "\r" || ch === "\t";

/** Where a comma (and the whitespace after it) at the end of `text` starts, or `text.length`. */
function trailingCommaStart(text: string): number {
  let at = text.length;
  while (at > 0 && isSpace(text[at - 1])) at--;
  return text[at - 1] === "," ? at - 1 : text.length;
}

/** The same for the characters of the text being built. */
function dropTrailingComma(out: string[]): void {
  let at = out.length;
  while (at > 0 && isSpace(out[at - 1])) at--;
  if (out[at - 1] === ",") out.length = at - 1;
}

/** How many cut points are tried on a truncated document before giving up. */
const MAX_CUT_ATTEMPTS = 32;
/** Nesting deeper than this is not something a tool call needs; such text is not repaired. */
const MAX_DEPTH = 256;

interface Checkpoint {
  /** Length of the repaired text at a point where a member boundary was seen. */
  at: number;
  /** Containers open at that point, outermost first. */
  open: string[];
}

interface ScanResult {
  /** The text with control characters escaped, trailing commas and surplus closers dropped. */
  text: string;
  /** Containers still open at the end, outermost first. */
  open: string[];
  /** Places where the text could be cut and closed, oldest first. */
  checkpoints: Checkpoint[];
}

/** Keeps only the latest checkpoints: older ones would never be tried. */
function remember(checkpoints: Checkpoint[], checkpoint: Checkpoint): void {
  checkpoints.push(checkpoint);
  if (checkpoints.length > 2 * MAX_CUT_ATTEMPTS) checkpoints.splice(0, MAX_CUT_ATTEMPTS);
}

/**
 * Walks the text once, tracking strings and nesting. Returns null when the text cannot be
 * salvaged: it ends inside a string, or has content after the top-level value closed.
 */
function scan(source: string): ScanResult | null {
  // Built as an array of pieces: repeated string concatenation plus trimming is quadratic.
  const out: string[] = [];
  const open: string[] = [];
  const checkpoints: Checkpoint[] = [];
  let inString = false;
  let escaped = false;
  let closedTopLevel = false;

  // One piece per UTF-16 unit, so a checkpoint's piece count is also its offset in the joined text.
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (inString) {
      if (escaped) {
        out.push(ch);
        escaped = false;
      } else if (ch === "\\") {
        out.push(ch);
        escaped = true;
      } else if (ch === '"') {
        out.push(ch);
        inString = false;
      } else {
        if (ch < " ") out.push(...escapeControlChar(ch));
        else out.push(ch);
      }
      continue;
    }
    if (closedTopLevel) {
      // Only whitespace and surplus closers may follow the top-level value.
      if (/\s/.test(ch) || ch === "}" || ch === "]") continue;
      return null;
    }
    if (ch === '"') {
      inString = true;
      out.push(ch);
    } else if (ch === "{" || ch === "[") {
      if (open.length >= MAX_DEPTH) return null;
      open.push(ch);
      out.push(ch);
      remember(checkpoints, { at: out.length, open: [...open] });
    } else if (ch === "}" || ch === "]") {
      const opener = ch === "}" ? "{" : "[";
      if (!open.includes(opener)) continue; // surplus closer
      // Close anything left open inside the container this closer belongs to.
      while (open.length > 0) {
        const top = open.pop()!;
        dropTrailingComma(out);
        out.push(CLOSER_OF[top]!);
        if (top === opener) break;
      }
      if (open.length === 0) closedTopLevel = true;
    } else if (ch === ",") {
      remember(checkpoints, { at: out.length, open: [...open] });
      out.push(ch);
    } else {
      out.push(ch);
    }
  }
  if (inString) return null;
  return { text: out.join(""), open, checkpoints };
}

function closeAll(text: string, open: readonly string[]): string {
  if (open.length === 0) return text;
  const closers = [...open].reverse().map((opener) => CLOSER_OF[opener]);
  return text.slice(0, trailingCommaStart(text)) + closers.join("");
}

/**
 * Closes a truncated document. When the last member is incomplete (a key without its value,
 * half a number or literal) the text is cut back to the latest member boundary that yields
 * valid JSON.
 */
function closeTruncated(result: ScanResult): Record<string, unknown> | null {
  const whole = tryParseObject(closeAll(result.text, result.open));
  if (whole) return whole;
  const cuts = result.checkpoints.slice(-MAX_CUT_ATTEMPTS).reverse();
  for (const cut of cuts) {
    const parsed = tryParseObject(closeAll(result.text.slice(0, cut.at), cut.open));
    if (parsed) return parsed;
  }
  return null;
}

/**
 * Returns tool-call arguments as a JSON object string, repairing what local models commonly
 * get wrong: raw control characters inside strings, trailing commas, missing or surplus
 * closing brackets, and members cut off after their key.
 */
export function repairToolArguments(raw: unknown, _toolName?: string): string {
  if (typeof raw !== "string") return EMPTY;
  const text = raw.trim();
  if (text === "" || text === "None") return EMPTY;

  if (tryParseObject(text)) return text;
  if (!text.startsWith("{")) return EMPTY;

  const scanned = scan(text);
  if (!scanned) return EMPTY;
  const repaired = scanned.open.length === 0 ? tryParseObject(scanned.text) : closeTruncated(scanned);
  return repaired ? JSON.stringify(repaired) : EMPTY;
}
