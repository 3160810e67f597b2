/**
 * Searching a transformed copy of a text (whitespace collapsed, typography folded to ASCII)
 * while keeping track of where each character came from, so matches map back to the original.
 */

export interface Mapped {
  text: string;
  /** For each character of `text`, where its source starts and ends in the original. */
  from: number[];
  to: number[];
}

export function mapped(source: string, step: (source: string, at: number) => [string, number]): Mapped {
  let text = "";
  const from: number[] = [];
  const to: number[] = [];
  let i = 0;
  while (i < source.length) {
    const [out, length] = step(source, i);
    for (const ch of out) {
      text += ch;
      from.push(i);
      to.push(i + length);
    }
    i += length;
  }
  return { text, from, to };
}

export function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  if (needle === "") return found;
  let at = haystack.indexOf(needle);
  while (at >= 0) {
    found.push(at);
    at = haystack.indexOf(needle, at + needle.length);
  }
  return found;
}

/** A run of spaces and tabs as one space; line breaks stay, so matched lines still line up. */
export function collapseBlanks(source: string, at: number): [string, number] {
  let end = at;
  while (end < source.length && (source[end] === " " || source[end] === "\t")) end++;
  return end > at ? [" ", end - at] : [source[at]!, 1];
}

/** Typographic characters and the ASCII a model usually types for them. */
export const UNICODE_FOLDS: Record<string, string> = {
  "\u2014": "--",
  "\u2013": "-",
  "\u2012": "-",
  "\u2010": "-",
  "\u2011": "-",
  "\u2212": "-",
  "\u2026": "...",
  "\u2018": "'",
  "\u2019": "'",
  "\u201a": "'",
  "\u201b": "'",
  "\u2032": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u201e": '"',
  "\u2033": '"',
  "\u00a0": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2007": " ",
  "\u2009": " ",
  "\u202f": " ",
  // More space separators; CJK text uses U+3000 between words.
  "\u2000": " ",
  "\u2001": " ",
  "\u2004": " ",
  "\u2005": " ",
  "\u2006": " ",
  "\u2008": " ",
  "\u200a": " ",
  "\u205f": " ",
  "\u3000": " ",
};

export function foldUnicode(source: string, at: number): [string, number] {
  const ch = source[at]!;
  return [UNICODE_FOLDS[ch] ?? ch, 1];
}

export const foldText = (text: string) => mapped(text, foldUnicode).text;

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Cuts a folded offset back to the start of the original character it came from. */
function originalOffset(map: Mapped, foldedAt: number, whole: number): number {
  if (foldedAt >= map.text.length) return whole;
  return map.from[foldedAt]!;
}

/**
 * Writes a replacement found through unicode folding back in the file's own characters: the
 * part shared with the old text is copied from the file, and ASCII stand-ins for multi-
 * character typography ("--", "...") in the new part become what the file used.
 */
export function unicodeAdapter(original: string): (replacement: string) => string {
  const fileMap = mapped(original, foldUnicode);
  const reverse = new Map<string, string>();
  for (const ch of original) {
    const fold = UNICODE_FOLDS[ch];
    if (fold && fold.length > 1) reverse.set(fold, ch);
  }
  return (replacement: string) => {
    const newMap = mapped(replacement, foldUnicode);
    const a = fileMap.text;
    const b = newMap.text;
    let prefix = commonPrefix(a, b);
    let suffix = 0;
    while (
      suffix < a.length - prefix &&
      suffix < b.length - prefix &&
      a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
    ) {
      suffix++;
    }
    // Keep both cuts on character boundaries of the original and the replacement.
    while (
      prefix > 0 &&
      (fileMap.from[prefix] === fileMap.from[prefix - 1] || newMap.from[prefix] === newMap.from[prefix - 1])
    ) {
      prefix--;
    }
    const aTail = a.length - suffix;
    const bTail = b.length - suffix;
    while (
      suffix > 0 &&
      (fileMap.from[aTail] === fileMap.from[aTail - 1] || newMap.from[bTail] === newMap.from[bTail - 1])
    ) {
      suffix--;
    }
    const head = original.slice(0, originalOffset(fileMap, prefix, original.length));
    const tail = original.slice(originalOffset(fileMap, a.length - suffix, original.length));
    let middle = replacement.slice(
      originalOffset(newMap, prefix, replacement.length),
      originalOffset(newMap, b.length - suffix, replacement.length),
    );
    for (const [ascii, typographic] of [...reverse].sort((x, y) => y[0].length - x[0].length)) {
      middle = middle.split(ascii).join(typographic);
    }
    return head + middle + tail;
  };
}
