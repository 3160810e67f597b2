/**
 * A forgiving HTML parser, enough to turn web pages into markdown: it builds an element tree,
 * skips the bodies of script and style, knows void elements, and closes the elements real
 * pages leave open (p, li, td, ...). It is not a conforming HTML5 parser.
 */

export interface HtmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
}

export type HtmlNode = HtmlElement | string;

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
/** Elements whose content is raw text up to the matching close tag. */
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "noscript"]);
/** Opening one of these closes an open <p>. */
const CLOSES_P = new Set([
  "p",
  "div",
  "ul",
  "ol",
  "dl",
  "table",
  "pre",
  "blockquote",
  "section",
  "article",
  "header",
  "footer",
  "nav",
  "aside",
  "main",
  "figure",
  "form",
  "hr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
]);
/** An element closes an open sibling of the listed kinds, unless a boundary element comes first. */
const IMPLIED_END: Record<string, { closes: string[]; boundary: string[] }> = {
  li: { closes: ["li"], boundary: ["ul", "ol", "menu"] },
  dt: { closes: ["dt", "dd"], boundary: ["dl"] },
  dd: { closes: ["dt", "dd"], boundary: ["dl"] },
  tr: { closes: ["tr", "td", "th"], boundary: ["table", "thead", "tbody", "tfoot"] },
  td: { closes: ["td", "th"], boundary: ["tr", "table"] },
  th: { closes: ["td", "th"], boundary: ["tr", "table"] },
  option: { closes: ["option"], boundary: ["select", "datalist"] },
  thead: { closes: ["thead", "tbody", "tfoot", "tr", "td", "th"], boundary: ["table"] },
  tbody: { closes: ["thead", "tbody", "tfoot", "tr", "td", "th"], boundary: ["table"] },
};

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  copy: "©",
  reg: "®",
  trade: "™",
  laquo: "«",
  raquo: "»",
  ldquo: "“",
  rdquo: "”",
  lsquo: "‘",
  rsquo: "’",
  bull: "•",
  middot: "·",
  times: "×",
  deg: "°",
  euro: "€",
  pound: "£",
  yen: "¥",
  sect: "§",
  para: "¶",
  larr: "←",
  rarr: "→",
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const TOKEN =
  /<!--[\s\S]*?(?:-->|$)|<![^>]*>|<\?[^>]*>|<\/([a-zA-Z][\w:-]*)[^>]*>|<([a-zA-Z][\w:-]*)((?:\s*[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*\/?>/g;
const ATTR = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

function parseAttrs(text: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const match of text.matchAll(ATTR)) {
    const name = (match[1] ?? "").toLowerCase();
    if (name && !(name in attrs)) attrs[name] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? "");
  }
  return attrs;
}

export function parseHtml(html: string): HtmlElement {
  const root: HtmlElement = { tag: "#root", attrs: {}, children: [] };
  const stack: HtmlElement[] = [root];
  const top = () => stack[stack.length - 1] ?? root;
  const closeUpTo = (index: number) => {
    stack.length = Math.max(1, index);
  };
  const findOpen = (tags: string[], boundary: string[]) => {
    for (let i = stack.length - 1; i > 0; i--) {
      const tag = stack[i]?.tag ?? "";
      if (tags.includes(tag)) return i;
      if (boundary.includes(tag)) return -1;
    }
    return -1;
  };
  let last = 0;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(html); match; match = TOKEN.exec(html)) {
    if (match.index > last) top().children.push(decodeEntities(html.slice(last, match.index)));
    last = TOKEN.lastIndex;
    const closing = match[1]?.toLowerCase();
    const opening = match[2]?.toLowerCase();
    if (closing) {
      const index = findOpen([closing], []);
      if (index > 0) closeUpTo(index);
      continue;
    }
    if (!opening) continue;
    if (CLOSES_P.has(opening) && top().tag === "p") stack.pop();
    const implied = IMPLIED_END[opening];
    if (implied) {
      const index = findOpen(implied.closes, implied.boundary);
      if (index > 0) closeUpTo(index);
    }
    const element: HtmlElement = { tag: opening, attrs: parseAttrs(match[3] ?? ""), children: [] };
    top().children.push(element);
    if (VOID.has(opening) || match[0].endsWith("/>")) continue;
    if (RAW_TEXT.has(opening)) {
      const closer = new RegExp(`</${opening}`, "gi");
      closer.lastIndex = last;
      const end = closer.exec(html)?.index ?? -1;
      const stop = end < 0 ? html.length : end;
      const raw = html.slice(last, stop);
      if (raw) element.children.push(opening === "title" || opening === "textarea" ? decodeEntities(raw) : raw);
      const close = end < 0 ? html.length : html.indexOf(">", end);
      last = close < 0 ? html.length : close + 1;
      TOKEN.lastIndex = last;
      continue;
    }
    stack.push(element);
  }
  if (last < html.length) top().children.push(decodeEntities(html.slice(last)));
  return root;
}

/** Depth-first search for the first element with one of the given tags. */
export function findElement(node: HtmlElement, tags: string[]): HtmlElement | null {
  for (const child of node.children) {
    if (typeof child === "string") continue;
    if (tags.includes(child.tag)) return child;
    const found = findElement(child, tags);
    if (found) return found;
  }
  return null;
}

export function findAll(node: HtmlElement, tag: string, out: HtmlElement[] = []): HtmlElement[] {
  for (const child of node.children) {
    if (typeof child === "string") continue;
    if (child.tag === tag) out.push(child);
    findAll(child, tag, out);
  }
  return out;
}

export function textContent(node: HtmlNode): string {
  if (typeof node === "string") return node;
  return node.children.map(textContent).join("");
}
