/**
 * The HTML a Matrix message carries beside its plain body (`format: org.matrix.custom.html`).
 * Replies are written in markdown; this turns the common parts into HTML (fenced code blocks,
 * inline code, bold, italics, links, line breaks) and escapes everything else, so text from a
 * model can never inject markup of its own.
 */

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

const SAFE_LINK = /^(https?:|mailto:|matrix:)/i;

/** Inline markdown of one stretch of text outside code blocks. */
function inline(text: string): string {
  const codeSpans: string[] = [];
  // Code spans first, so nothing inside them is read as markdown.
  const withoutCode = text.replaceAll("\u0000", "").replaceAll(/`([^`\n]+)`/g, (_all, code: string) => {
    codeSpans.push(`<code>${escapeHtml(code)}</code>`);
    return `\u0000${codeSpans.length - 1}\u0000`;
  });
  let html = escapeHtml(withoutCode);
  html = html.replaceAll(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (all, label: string, href: string) => {
    const target = href.replaceAll("&amp;", "&");
    return SAFE_LINK.test(target) ? `<a href="${escapeHtml(target)}">${label}</a>` : all;
  });
  html = html.replaceAll(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>");
  html = html.replaceAll(/__([^_\n]+)__/g, "<strong>$1</strong>");
  html = html.replaceAll(/(^|[^*\w])\*([^*\n]+)\*(?!\w)/g, "$1<em>$2</em>");
  html = html.replaceAll(/(^|[^_\w])_([^_\n]+)_(?!\w)/g, "$1<em>$2</em>");
  html = html.replaceAll("\n", "<br>");
  return html.replaceAll(/\u0000(\d+)\u0000/g, (_all, index: string) => codeSpans[Number(index)] ?? "");
}

/** Markdown as Matrix HTML. */
export function markdownToHtml(markdown: string): string {
  const parts: string[] = [];
  const fence = /```([\w+.-]*)[^\n]*\n([\s\S]*?)(?:\n```|$)/g;
  let last = 0;
  for (const match of markdown.matchAll(fence)) {
    parts.push(inline(markdown.slice(last, match.index)));
    const language = match[1] ? ` class="language-${escapeHtml(match[1])}"` : "";
    parts.push(`<pre><code${language}>${escapeHtml(match[2] ?? "")}</code></pre>`);
    last = match.index + match[0].length;
  }
  parts.push(inline(markdown.slice(last)));
  return parts.join("");
}
