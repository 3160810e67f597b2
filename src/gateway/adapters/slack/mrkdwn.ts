/**
 * Standard markdown to Slack's mrkdwn. Slack reads `&`, `<` and `>` as control characters in
 * every text field (code included), so they are escaped everywhere; links become `<url|text>`,
 * `**bold**` becomes `*bold*`, `*italic*` becomes `_italic_`, `~~strike~~` becomes `~strike~`,
 * headings become bold lines, and tables (which Slack cannot draw) become code blocks.
 */

const FENCE = /^\s*(```|~~~)/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const BOLD_MARK = "\u0001";
const LINK_MARK = "\u0002";

export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function codeBlock(lines: string[]): string {
  return ["```", escapeMrkdwn(lines.join("\n")), "```"].join("\n");
}

function styleSpans(text: string): string {
  return text
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, `${BOLD_MARK}$1${BOLD_MARK}`)
    .replace(/(^|[^\w])__(?=\S)(.+?)(?<=\S)__(?!\w)/g, `$1${BOLD_MARK}$2${BOLD_MARK}`)
    .replace(/(^|[^\w*])\*([^\s*](?:[^*\n]*?[^\s*])?)\*(?![\w*])/g, "$1_$2_")
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "~$1~")
    .replaceAll(BOLD_MARK, "*");
}

/** One line's inline markup: code spans are kept, links are protected while the rest is styled. */
function inline(line: string): string {
  return line
    .split(/(`[^`\n]+`)/)
    .map((part, index) => {
      if (index % 2 === 1) return escapeMrkdwn(part);
      const links: string[] = [];
      const keep = (link: string) => `${LINK_MARK}${links.push(link) - 1}${LINK_MARK}`;
      let text = part
        .replace(/!?\[([^\]\n]*)\]\((\S+?)(?:\s+"[^"]*")?\)/g, (_all, label: string, url: string) =>
          keep(`<${escapeMrkdwn(url)}|${escapeMrkdwn(label.replaceAll("|", "¦")) || escapeMrkdwn(url)}>`),
        )
        .replace(/<((?:https?|mailto):[^\s<>]+)>/g, (_all, url: string) => keep(`<${escapeMrkdwn(url)}>`));
      text = styleSpans(escapeMrkdwn(text));
      return text.replace(
        new RegExp(`${LINK_MARK}(\\d+)${LINK_MARK}`, "g"),
        (_all, n: string) => links[Number(n)] ?? "",
      );
    })
    .join("");
}

function blockLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) {
    const title = (heading[1] as string).replace(/\*\*|__/g, "");
    return title ? `*${inline(title)}*` : "";
  }
  const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
  if (quote) return `> ${inline(quote[1] as string)}`;
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet && !/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return `${bullet[1]}• ${inline(bullet[2] as string)}`;
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return "──────────";
  return inline(line);
}

export function markdownToMrkdwn(markdown: string): string {
  const lines = markdown.replaceAll("\r\n", "\n").split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && !(lines[j] as string).trim().startsWith(fence[1] as string)) {
        body.push(lines[j] as string);
        j++;
      }
      out.push(codeBlock(body));
      i = j;
      continue;
    }
    if (TABLE_ROW.test(line) && TABLE_RULE.test(lines[i + 1] ?? "")) {
      const rows: string[] = [];
      let j = i;
      while (j < lines.length && TABLE_ROW.test(lines[j] as string)) {
        rows.push((lines[j] as string).trim());
        j++;
      }
      out.push(codeBlock(rows));
      i = j - 1;
      continue;
    }
    out.push(blockLine(line));
  }
  return out.join("\n");
}
