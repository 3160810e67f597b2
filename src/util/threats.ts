/**
 * Scanning of text that will reach the model from outside the conversation (context files such
 * as AGENTS.md, SOUL.md, memory entries, skills) for prompt injection, secret exfiltration,
 * persistence tricks and hidden characters.
 *
 * The patterns and their scopes are in threat-patterns.ts.
 */

export type ThreatScope = "all" | "context" | "strict";

/** Only this many characters of a text are scanned. */
export const THREAT_SCAN_LIMIT = 65_536;

import { ALWAYS, CONTEXT_ONLY, STRICT_ONLY, type ThreatPattern } from "./threat-patterns.js";

export type { ThreatPattern } from "./threat-patterns.js";

/** Every pattern of the strictest scope, in scan order. */
export const THREAT_PATTERNS: readonly ThreatPattern[] = [...ALWAYS, ...CONTEXT_ONLY, ...STRICT_ONLY];

const SCOPES: Record<ThreatScope, readonly ThreatPattern[]> = {
  all: ALWAYS,
  context: [...ALWAYS, ...CONTEXT_ONLY],
  strict: THREAT_PATTERNS,
};

/**
 * Zero-width, bidirectional-control and other invisible characters used to hide instructions
 * from a human reviewer. All of them are dropped before matching so they cannot split a key
 * word; only zero-width joiners and spaces, the word joiner, invisible operators, the byte-order
 * mark and the bidi embeddings, overrides and isolates are reported. Soft hyphens, the
 * Mongolian vowel separator, LRM/RLM, U+2061 and tag characters turn up in ordinary text.
 */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;
const REPORTED_INVISIBLE = /[\u200b-\u200d\u202a-\u202e\u2060\u2062-\u2064\u2066-\u2069\ufeff]/g;

function invisibleIds(raw: string): string[] {
  const ids: string[] = [];
  for (const match of raw.matchAll(REPORTED_INVISIBLE)) {
    const id = `invisible_unicode_U+${match[0].charCodeAt(0).toString(16).toUpperCase()}`;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

function isScope(scope: unknown): scope is ThreatScope {
  return typeof scope === "string" && Object.hasOwn(SCOPES, scope);
}

/**
 * Returns one `invisible_unicode_U+XXXX` id per distinct invisible character, in order of first
 * appearance, followed by the ids of the threat patterns found in `text` for `scope`. Throws on
 * an unknown scope.
 */
export function scanForThreats(text: string, scope: ThreatScope): string[] {
  if (!isScope(scope)) throw new Error(`unknown threat scan scope: ${String(scope)} (expected all, context or strict)`);
  const raw = text.slice(0, THREAT_SCAN_LIMIT);
  const found = [...invisibleIds(raw), ...matchPatterns(raw, scope)];
  if (scope !== "all") {
    if (MIXED_SCRIPT_WORD.test(raw.normalize("NFKC"))) found.push("homoglyph_mixed_script");
    if (encodedThreat(raw, scope)) found.push("encoded_payload");
  }
  return found;
}

function matchPatterns(raw: string, scope: ThreatScope): string[] {
  // Fold full-width and other compatibility forms, drop invisible characters so they cannot
  // split key words apart, and read look-alike letters from other scripts as the Latin ones.
  const folded = foldConfusables(raw.normalize("NFKC").replace(INVISIBLE, "").toLowerCase());
  const found: string[] = [];
  for (const { id, keywords, pattern } of SCOPES[scope]) {
    if (found.includes(id) || !keywords.some((word) => folded.includes(word))) continue;
    if (pattern.test(folded)) found.push(id);
  }
  return found;
}

/** Cyrillic and Greek letters that look like Latin ones, as the Latin letter they imitate. */
const CONFUSABLES: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  і: "i",
  ї: "i",
  ј: "j",
  ѕ: "s",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  һ: "h",
  ӏ: "l",
  α: "a",
  β: "b",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ω: "w",
};
const CONFUSABLE_CHARS = new RegExp(`[${Object.keys(CONFUSABLES).join("")}]`, "g");

/** Only words that mix scripts are folded, so Russian or Greek prose stays as it is. */
function foldConfusables(text: string): string {
  return text.replace(/[\p{L}\p{M}]+/gu, (word) =>
    /[a-z]/.test(word) ? word.replace(CONFUSABLE_CHARS, (c) => CONFUSABLES[c] ?? c) : word,
  );
}

/**
 * A Latin letter next to a Cyrillic or Greek look-alike inside one word: the usual homoglyph
 * disguise. Other Greek letters (μ in "10μs", math) are not look-alikes and do not count.
 */
const LOOKALIKES = Object.keys(CONFUSABLES).join("");
const MIXED_SCRIPT_WORD = new RegExp(`[a-z][${LOOKALIKES}]|[${LOOKALIKES}][a-z]`, "i");

const BASE64_RUN = /[A-Za-z0-9+/]{32,}={0,2}/g;

/** A long base64 run that decodes to text matching a threat pattern. */
function encodedThreat(raw: string, scope: ThreatScope): boolean {
  let checked = 0;
  for (const match of raw.matchAll(BASE64_RUN)) {
    if (++checked > 20) break;
    const decoded = Buffer.from(match[0], "base64").toString("utf8");
    if (!/^[\p{L}\p{N}\p{P}\p{S}\s]+$/u.test(decoded)) continue;
    if (matchPatterns(decoded, scope).length > 0) return true;
  }
  return false;
}
