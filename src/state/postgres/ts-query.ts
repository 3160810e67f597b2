/**
 * What a user types into session search, as a PostgreSQL tsquery built from bound parameters,
 * with the same language as the embedded store's search (fts-query.ts): words, "quoted phrases",
 * `OR` between terms (binding tighter than the implicit AND), `prefix*`. Nothing typed can
 * become tsquery syntax: every term is a parameter of a function that parses plain text.
 */

const WORD = /[\p{L}\p{N}]/u;

export interface TsQuerySql {
  /** A SQL expression of type tsquery using $1..$n. */
  sql: string;
  params: string[];
  /** The query when it is one plain word: searched as a substring when no whole word matches. */
  fragment?: string;
}

interface Term {
  text: string;
  kind: "word" | "phrase" | "prefix";
}

export function tsQuerySql(input: string): TsQuerySql | null {
  const tokens = input.match(/"[^"]*"?|\S+/g) ?? [];
  const groups: Term[][] = [];
  let orPending = false;
  for (const token of tokens) {
    if (token === "OR" || token === "|" || token === "||") {
      orPending = groups.length > 0;
      continue;
    }
    if (token === "AND" || token === "&&") continue;
    const isPhrase = token.startsWith('"');
    let text = token.replace(/"/g, "").trim();
    let kind: Term["kind"] = isPhrase ? "phrase" : "word";
    if (!isPhrase && text.endsWith("*")) {
      kind = "prefix";
      text = text.replace(/\*+$/, "");
    }
    if (!WORD.test(text)) continue;
    if (orPending) groups.at(-1)!.push({ text, kind });
    else groups.push([{ text, kind }]);
    orPending = false;
  }
  if (groups.length === 0) return null;
  const params: string[] = [];
  const termSql = (term: Term): string => {
    if (term.kind === "prefix") {
      const words = term.text.match(/[\p{L}\p{N}]+/gu) ?? [];
      params.push(words.map((word) => `${word}:*`).join(" & "));
      return `to_tsquery('english', $${params.length})`;
    }
    params.push(term.text);
    return `${term.kind === "phrase" ? "phraseto_tsquery" : "plainto_tsquery"}('english', $${params.length})`;
  };
  const sql = groups
    .map((group) => (group.length === 1 ? termSql(group[0]!) : `(${group.map(termSql).join(" || ")})`))
    .join(" && ");
  const only = groups.length === 1 && groups[0]!.length === 1 ? groups[0]![0]! : undefined;
  const fragment = only?.kind === "word" && !/\s/.test(only.text) ? only.text : undefined;
  return { sql, params, ...(fragment ? { fragment } : {}) };
}
