/**
 * Turning what a user types into a safe FTS5 query. Every term is quoted, so characters
 * that mean something to FTS5 (parentheses, colons, stray quotes, AND at the end) can never
 * produce a syntax error. Kept on purpose: "quoted phrases", `OR` between terms, `prefix*`.
 */

export function toFtsQuery(input: string): string | null {
  const tokens = input.match(/"[^"]*"?|\S+/g) ?? [];
  const parts: string[] = [];
  let orPending = false;
  for (const token of tokens) {
    if (token === "OR" || token === "|" || token === "||") {
      orPending = parts.length > 0;
      continue;
    }
    if (token === "AND" || token === "&&") continue;
    const isPhrase = token.startsWith('"');
    let body = token.replace(/"/g, "").trim();
    let prefix = false;
    if (!isPhrase && body.endsWith("*")) {
      prefix = true;
      body = body.replace(/\*+$/, "");
    }
    // Written here rather than at module scope: a Unicode property class costs its first
    // creation a lookup of the character tables, which a run that never searches should not pay.
    if (!/[\p{L}\p{N}]/u.test(body)) continue;
    if (orPending) parts.push("OR");
    orPending = false;
    parts.push(`"${body}"${prefix ? "*" : ""}`);
  }
  return parts.length > 0 ? parts.join(" ") : null;
}
