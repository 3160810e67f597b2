/**
 * `display.final_response_markdown: strip`: a reply as plain text, without the markdown marks
 * (`#`, `**`, backticks, fences, link syntax), keeping its words, lists, code and line breaks.
 */

const FENCE = /^\s*(```|~~~)/;

function stripInline(line: string): string {
  return (
    line
      // Images and links keep their text; a link keeps its address after it.
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_match, label: string, url: string) =>
        label === url ? url : `${label} (${url})`,
      )
      .replace(/`([^`]+)`/g, "$1")
      .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
      .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "$1")
      // Single * or _ emphasis, but not inside words (snake_case, 2*3*4).
      .replace(/(^|[^\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])/g, "$1$2")
      .replace(/(^|[^\w])_(?=\S)([^_\n]+?)(?<=\S)_(?!\w)/g, "$1$2")
  );
}

export function stripMarkdown(text: string): string {
  const out: string[] = [];
  let inFence = false;
  for (const line of text.split("\n")) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      out.push(line);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push("─".repeat(20));
      continue;
    }
    // A table's separator row (|---|:--:|) says nothing in plain text.
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$/.test(line)) continue;
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      out.push(stripInline(heading[1]!));
      continue;
    }
    const quoted = line.replace(/^(\s*)>\s?/, "$1│ ");
    // Bullets stay as "- " (a "*" bullet would read as emphasis), task boxes as ☐ and ☑.
    const bulleted = quoted.replace(/^(\s*)[-*+]\s+(\[[ xX]\]\s+)?/, (_m, indent: string, box?: string) => {
      const mark = box ? (box.trim().toLowerCase() === "[x]" ? "☑ " : "☐ ") : "";
      return `${indent}- ${mark}`;
    });
    out.push(stripInline(bulleted));
  }
  return out.join("\n");
}
