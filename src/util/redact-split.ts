/**
 * Tokens whose body is broken by control or zero-width characters (`ghp_abc` ESC `123...`, a key
 * wrapped onto the next line): the token shapes are matched on a copy without those characters
 * and the matching span of the original is masked.
 *
 * A span that is masked holds nothing but token characters and controls, so it lies inside one
 * run of such characters that has a control with token characters on both sides (a junction).
 * Only those runs are searched, joined by spaces (which no shape matches across) into one short
 * text; an ordinary multi-line text has few of them, and searching the whole text without its
 * line breaks cost a 100 KB log about as much as all the other shapes together.
 */

import { maskToken } from "./redact-mask.js";
import type { TokenShape } from "./redact-tokens.js";

function isTokenCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    code === 95 || // _
    code === 46 || // .
    code === 45 // -
  );
}

/** Control and zero-width characters that can split a token without being seen. */
export function isControlCode(code: number): boolean {
  return (
    code <= 0x1f ||
    code === 0x7f ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202f) ||
    code === 0x2060 ||
    code === 0xfeff
  );
}

function isRunCode(code: number): boolean {
  return isTokenCode(code) || isControlCode(code);
}

/** A run searched: `text[start, end)`, which begins at `offset` in the joined runs. */
interface Run {
  start: number;
  end: number;
  offset: number;
  /** For each control in the run, how many kept characters precede it; built on the first lookup. */
  keptBefore?: number[];
}

/** The runs searched, each without its controls, joined by spaces. */
interface JunctionRuns {
  joined: string;
  runs: Run[];
}

/** No token shape matches fewer characters (`sk-`, `hf_`, `fc-`, `eyJ` and ten more); shorter runs are not searched. */
export const SHORTEST_TOKEN = 13;

/** A token character, controls, and a token character after them. */
const JUNCTION = /[A-Za-z0-9_.-][\x00-\x1f\x7f\u200b-\u200f\u2028-\u202f\u2060\ufeff]+(?=[A-Za-z0-9_.-])/g;
const CONTROLS = /[\x00-\x1f\x7f\u200b-\u200f\u2028-\u202f\u2060\ufeff]/;

/** Where the character at `index` of the joined runs is in `text` (looked up only for matches). */
function originOf(text: string, runs: JunctionRuns, index: number): number {
  let lo = 0;
  let hi = runs.runs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (runs.runs[mid]!.offset <= index) lo = mid;
    else hi = mid - 1;
  }
  const run = runs.runs[lo]!;
  if (!run.keptBefore) {
    run.keptBefore = [];
    for (let at = run.start; at < run.end; at++) {
      if (isControlCode(text.charCodeAt(at))) run.keptBefore.push(at - run.start - run.keptBefore.length);
    }
  }
  // Non-decreasing, so the controls before the kept character are found by binary search.
  const kept = index - run.offset;
  let before = 0;
  let after = run.keptBefore.length;
  while (before < after) {
    const mid = (before + after) >> 1;
    if (run.keptBefore[mid]! <= kept) before = mid + 1;
    else after = mid;
  }
  return run.start + kept + before;
}

function junctionRuns(text: string): JunctionRuns | undefined {
  const pieces: string[] = [];
  const runs: Run[] = [];
  let length = 0;
  JUNCTION.lastIndex = 0;
  for (let found = JUNCTION.exec(text); found !== null; found = JUNCTION.exec(text)) {
    let start = found.index;
    while (start > 0 && isRunCode(text.charCodeAt(start - 1))) start--;
    let end = found.index + found[0].length;
    while (end < text.length && isRunCode(text.charCodeAt(end))) end++;
    JUNCTION.lastIndex = end;
    let controls = 0;
    for (let k = start; k < end; k++) if (isControlCode(text.charCodeAt(k))) controls++;
    if (end - start - controls < SHORTEST_TOKEN) continue;
    const kept = text.slice(start, end).split(CONTROLS).join("");
    if (length > 0) {
      pieces.push(" ");
      length++;
    }
    runs.push({ start, end, offset: length });
    pieces.push(kept);
    length += kept.length;
  }
  return length === 0 ? undefined : { joined: pieces.join(""), runs };
}

/**
 * Masks the split tokens of `text`: those of the shapes without a mask of their own. A span is
 * joined only when it is not followed by `=` (a `NAME=` on the next line) and, when it crosses
 * a line break, its first piece is not already a token on its own. `keywordsIn` finds which
 * keywords a text holds, `startsInsideWord` whether a match at an offset continues a longer
 * word, as for whole tokens.
 */
export function maskSplitTokens(
  text: string,
  shapes: readonly TokenShape[],
  keywordsIn: (text: string) => ReadonlySet<string>,
  startsInsideWord: (shape: TokenShape, text: string, offset: number) => boolean,
): string {
  const runs = junctionRuns(text);
  if (!runs) return text;
  const present = keywordsIn(runs.joined);
  const spans: Array<[number, number, string]> = [];
  for (const shape of shapes) {
    if (shape.mask || !shape.keywords.some((word) => present.has(word))) continue;
    for (const m of runs.joined.matchAll(shape.pattern)) {
      const start = originOf(text, runs, m.index);
      const end = originOf(text, runs, m.index + m[0].length - 1) + 1;
      if (end - start === m[0].length || startsInsideWord(shape, text, start)) continue;
      const span = text.slice(start, end);
      if (text[end] === "=") continue;
      if (/[\n\r]/.test(span) && shapes.some((other) => span.search(other.pattern) >= 0)) continue;
      spans.push([start, end, maskToken(m[0])]);
    }
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [start, end, masked] of spans) {
    if (start < at) continue;
    out += text.slice(at, start) + masked;
    at = end;
  }
  return out + text.slice(at);
}
