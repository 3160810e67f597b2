/**
 * Standard markdown as Telegram's MarkdownV2 renders it. MarkdownV2 rejects a whole message when
 * one reserved character is left unescaped, so everything that is not one of our own entity
 * markers is escaped. Telegram has no tables: a markdown table becomes a preformatted block with
 * aligned columns.
 */

const RESERVED = /[_*[\]()~`>#+\-=|{}.!\\]/g;

/** Text outside any entity. */
export function escapeText(text: string): string {
  return text.replace(RESERVED, "\\$&");
}

/** Text inside `code` and ```pre``` entities: only the backtick and the backslash. */
export function escapeCode(text: string): string {
  return text.replace(/[`\\]/g, "\\$&");
}

/** The URL of an inline link: only the closing parenthesis and the backslash. */
function escapeUrl(url: string): string {
  return url.replace(/[)\\]/g, "\\$&");
}

interface InlineRule {
  pattern: RegExp;
  render(match: RegExpExecArray): string;
  /** The rule applies only where a word does not continue before it (snake_case stays text). */
  wordStart?: boolean;
}

const INLINE_RULES: InlineRule[] = [
  { pattern: /`([^`\n]+)`/y, render: (m) => `\`${escapeCode(m[1] as string)}\`` },
  {
    pattern: /\[([^\]\n]+)\]\(((?:https?|tg|mailto):(?:[^()\s]|\([^()\s]*\))+)\)/y,
    render: (m) => `[${inline(m[1] as string)}](${escapeUrl(m[2] as string)})`,
  },
  { pattern: /\*\*(?=\S)([^\n]*?\S)\*\*/y, render: (m) => `*${inline(m[1] as string)}*` },
  { pattern: /__(?=\S)([^\n]*?\S)__(?![\p{L}\p{N}])/uy, render: (m) => `*${inline(m[1] as string)}*`, wordStart: true },
  { pattern: /~~(?=\S)([^\n]*?\S)~~/y, render: (m) => `~${inline(m[1] as string)}~` },
  { pattern: /\*(?=[^\s*])([^*\n]*?[^\s*])\*/y, render: (m) => `_${inline(m[1] as string)}_` },
  {
    pattern: /_(?=[^\s_])([^_\n]*?[^\s_])_(?![\p{L}\p{N}])/uy,
    render: (m) => `_${inline(m[1] as string)}_`,
    wordStart: true,
  },
];

/** One line (or a part of one) of inline markdown. */
function inline(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const rule = matchAt(text, i);
    if (rule) {
      out += rule.rendered;
      i += rule.length;
      continue;
    }
    out += escapeText(text[i] as string);
    i += 1;
  }
  return out;
}

function matchAt(text: string, at: number): { rendered: string; length: number } | undefined {
  for (const rule of INLINE_RULES) {
    if (rule.wordStart && at > 0 && /[\p{L}\p{N}]/u.test(text[at - 1] as string)) continue;
    rule.pattern.lastIndex = at;
    const match = rule.pattern.exec(text);
    if (match) return { rendered: rule.render(match), length: match[0].length };
  }
  return undefined;
}

const FENCE = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

function tableCells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((cell) => cell.trim().replace(/\*\*|__|`/g, ""));
}

/** A markdown table as aligned plain columns. */
export function renderTable(rows: string[]): string {
  const cells = rows.filter((row) => !TABLE_DIVIDER.test(row)).map(tableCells);
  const columns = Math.max(...cells.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, col) => Math.max(...cells.map((row) => (row[col] ?? "").length)));
  const line = (row: string[]) =>
    widths
      .map((width, col) => (row[col] ?? "").padEnd(width))
      .join(" | ")
      .trimEnd();
  const [head, ...body] = cells;
  const divider = widths.map((width) => "-".repeat(width)).join("-+-");
  return [line(head ?? []), divider, ...body.map(line)].join("\n");
}

function preBlock(language: string, body: string): string {
  return `\`\`\`${language}\n${escapeCode(body)}\n\`\`\``;
}

function blockLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return heading[1] ? `*${inline(heading[1])}*` : "";
  const quote = /^\s*>\s?(.*)$/.exec(line);
  if (quote) return `>${inline(quote[1] as string)}`;
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1]}• ${inline(bullet[2] as string)}`;
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return "──────────";
  return inline(line);
}

/** Markdown as MarkdownV2. An unclosed code fence runs to the end (a reply still streaming). */
export function toMarkdownV2(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] as string;
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && !(lines[j] as string).trim().startsWith(marker)) body.push(lines[j++] as string);
      out.push(preBlock(fence[2] ?? "", body.join("\n")));
      i = j;
      continue;
    }
    if (TABLE_ROW.test(line) && TABLE_DIVIDER.test(lines[i + 1] ?? "")) {
      const rows: string[] = [];
      let j = i;
      while (j < lines.length && TABLE_ROW.test(lines[j] as string)) rows.push(lines[j++] as string);
      out.push(preBlock("", renderTable(rows)));
      i = j - 1;
      continue;
    }
    out.push(blockLine(line));
  }
  return out.join("\n");
}

const NEVER_A_MARKER = new Set(["#", "+", "-", "=", "{", "}", ".", "!", "(", ")"]);

/**
 * Whether `text` already reads as MarkdownV2 we wrote: no character that can only appear escaped
 * stands unescaped outside code and link targets. Text that fails this is plain markdown (a
 * streamed preview, a progress line) and is converted before it is sent.
 */
export function isMarkdownV2(text: string): boolean {
  let i = 0;
  let lineStart = true;
  while (i < text.length) {
    const char = text[i] as string;
    if (char === "\\") {
      i += 2;
      lineStart = false;
      continue;
    }
    if (char === "`") {
      const fence = text.startsWith("```", i) ? "```" : "`";
      const end = closing(text, i + fence.length, fence);
      if (end < 0) return false;
      i = end + fence.length;
      lineStart = false;
      continue;
    }
    if (char === "]" && text[i + 1] === "(") {
      const end = closing(text, i + 2, ")");
      if (end < 0) return false;
      i = end + 1;
      lineStart = false;
      continue;
    }
    if (NEVER_A_MARKER.has(char) || (char === ">" && !lineStart)) return false;
    lineStart = char === "\n";
    i += 1;
  }
  return true;
}

/** Index of the next unescaped `marker` from `from`, or -1. */
function closing(text: string, from: number, marker: string): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") {
      i += 1;
      continue;
    }
    if (text.startsWith(marker, i)) return i;
  }
  return -1;
}

/** MarkdownV2 as plain text, for when Telegram refuses to parse it: the escapes go, the words stay. */
export function markdownV2ToPlain(text: string): string {
  return text.replace(/\\([\x21-\x7e])/g, "$1");
}

/** What to send for a text the core wrote: MarkdownV2, converting plain markdown first. */
export function renderForTelegram(text: string): string {
  return isMarkdownV2(text) ? text : toMarkdownV2(text);
}
