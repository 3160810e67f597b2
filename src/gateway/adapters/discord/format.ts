/**
 * Standard markdown as Discord renders it. Discord already shows bold, italics, strike-through,
 * inline code, fenced code, block quotes, lists, masked links and `#`–`###` headings, so those
 * pass through untouched. What it does not render is rewritten: tables become aligned code
 * blocks, deeper headings become bold lines, and images become their link.
 */

const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((cell) => cell.trim());
}

function renderTable(rows: string[][]): string {
  const width = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: width }, (_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (row: string[]) =>
    widths
      .map((w, column) => (row[column] ?? "").padEnd(w))
      .join(" | ")
      .trimEnd();
  const [header, ...body] = rows;
  return ["```", line(header ?? []), widths.map((w) => "-".repeat(w)).join("-+-"), ...body.map(line), "```"].join("\n");
}

function formatLine(line: string): string {
  const deepHeading = /^#{4,6}\s+(.+?)\s*#*\s*$/.exec(line);
  if (deepHeading) return `**${deepHeading[1]}**`;
  return line.replaceAll(/!\[([^\]\n]*)\]\(([^)\s]+)\)/g, (_whole, alt: string, url: string) =>
    alt ? `${alt}: ${url}` : url,
  );
}

export function toDiscordMarkdown(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let inFence = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      out.push(line);
      continue;
    }
    if (inFence) {
      out.push(line);
      continue;
    }
    const next = lines[index + 1];
    if (line.includes("|") && next !== undefined && TABLE_RULE.test(next)) {
      const rows = [cells(line)];
      index += 2;
      while (index < lines.length && (lines[index] as string).includes("|") && (lines[index] as string).trim()) {
        rows.push(cells(lines[index] as string));
        index++;
      }
      index--;
      out.push(renderTable(rows));
      continue;
    }
    out.push(formatLine(line));
  }
  return out.join("\n");
}
