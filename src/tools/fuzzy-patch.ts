/**
 * Find-and-replace for the patch tool. Models often get whitespace, indentation, escapes or
 * typography slightly wrong when quoting the text to replace, so the search falls back through
 * a chain of increasingly tolerant strategies before giving up.
 */
import { describeLocations, escapeDriftError, restoreControlEscapes, suspiciousIndentError } from "./fuzzy-guards.js";
import { PATCH_STRATEGIES, SIMILARITY_STRATEGIES } from "./fuzzy-strategies.js";

export { unifiedDiff } from "../util/unified-diff.js";

export interface FuzzyReplaceOptions {
  /** Replace every match instead of requiring exactly one. */
  replaceAll?: boolean;
}

export interface FuzzyReplaceResult {
  /** The new content, or the unchanged content on error. */
  content: string;
  /** How many places were replaced (0 on error). */
  count: number;
  /** Name of the strategy that found the match, or null. */
  strategy: string | null;
  /** What went wrong, or null. */
  error: string | null;
}

function failure(content: string, error: string): FuzzyReplaceResult {
  return { content, count: 0, strategy: null, error };
}

/** Gives LF-only old/new text the file's CRLF line endings. */
function matchLineEndings(content: string, text: string): string {
  if (!content.includes("\r\n") || text.includes("\r")) return text;
  return text.replace(/\n/g, "\r\n");
}

/**
 * Replaces `oldText` with `newText` in `content`. Exactly one match is required unless
 * `replaceAll` is set; several matches or none give an error and leave the content unchanged.
 * A match that was not verbatim is refused when the new text looks damaged in transit (escaped
 * quotes the file lacks) or carries a likely indentation slip; replace_all never applies several
 * merely similar matches.
 */
export function fuzzyFindAndReplace(
  content: string,
  oldText: string,
  newText: string,
  options: FuzzyReplaceOptions = {},
): FuzzyReplaceResult {
  if (oldText === "") return failure(content, "old_string is empty: give the exact text to replace");
  if (oldText.trim() === "") {
    return failure(content, "old_string is only whitespace, which matches too loosely: give non-blank text to replace");
  }
  if (oldText === newText) return failure(content, "old_string and new_string are identical: nothing to change");

  const oldInFile = matchLineEndings(content, oldText);
  const newInFile = matchLineEndings(content, newText);

  for (const strategy of PATCH_STRATEGIES) {
    const matches = strategy.find(content, oldInFile);
    if (matches.length === 0) continue;
    if (matches.length > 1 && !options.replaceAll) {
      return failure(
        content,
        `Found ${matches.length} matches for old_string. Provide more context (neighbouring lines) to make it unique, ` +
          `or use replace_all=true to change every one. Matches:\n${describeLocations(
            content,
            matches.map((m) => m.start),
          )}`,
      );
    }
    if (matches.length > 1 && SIMILARITY_STRATEGIES.has(strategy.name)) {
      return failure(
        content,
        `Found ${matches.length} approximate matches (${strategy.name}); replace_all only applies to text that ` +
          "matches exactly. Give the precise text, whitespace included.",
      );
    }
    const replaced = matches.map((m) => content.slice(m.start, m.end)).join("");
    const verbatim = strategy.name === "exact" && oldInFile === oldText;
    if (!verbatim) {
      const refusal = escapeDriftError(replaced, oldText, newText) ?? suspiciousIndentError(oldText, newText);
      if (refusal) return failure(content, refusal);
    }
    const replacement = restoreControlEscapes(newInFile, replaced);
    let result = content;
    for (const match of [...matches].sort((a, b) => b.start - a.start)) {
      result = result.slice(0, match.start) + match.adapt(replacement) + result.slice(match.end);
    }
    return { content: result, count: matches.length, strategy: strategy.name, error: null };
  }
  return failure(
    content,
    escapeDriftError(content, oldText) ??
      "Could not find old_string in the file, even allowing for whitespace, indentation and typography differences. Read the file again and copy the text exactly.",
  );
}
