/**
 * HTML to markdown for `web_extract`: headings, paragraphs, links, lists, code, quotes and
 * simple tables, with scripts, styles, navigation and other page chrome left out. When the
 * page marks its main content (<main>, or a single <article>) only that part is kept.
 */
import { findAll, findElement, type HtmlElement, type HtmlNode, parseHtml, textContent } from "./html-parse.js";

const SKIPPED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "nav",
  "footer",
  "svg",
  "canvas",
  "iframe",
  "head",
  "button",
  "select",
  "input",
  "textarea",
  "dialog",
]);
const BLOCK = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "aside",
  "figure",
  "figcaption",
  "details",
  "summary",
  "address",
  "dl",
  "dt",
  "dd",
  "form",
  "fieldset",
  "body",
  "html",
  "center",
]);
/** Marks one level of list indentation; turned into spaces after whitespace is normalized. */
const INDENT = "\u0001";
/** Placeholder for a preformatted block, so its whitespace survives normalization. */
const PRE_MARK = "\u0002";

interface RenderState {
  base: string | undefined;
  pre: string[];
  listDepth: number;
}

export interface MarkdownPage {
  title: string;
  markdown: string;
}

export function htmlToMarkdown(html: string, baseUrl?: string): MarkdownPage {
  const root = parseHtml(html);
  const titleElement = findElement(root, ["title"]);
  const title = titleElement ? collapse(textContent(titleElement)).trim() : "";
  const articles = findAll(root, "article");
  const main = findElement(root, ["main"]) ?? (articles.length === 1 ? (articles[0] ?? null) : null);
  const state: RenderState = { base: baseUrl, pre: [], listDepth: 0 };
  const raw = renderChildren(main ?? root, state);
  return { title, markdown: normalize(raw, state) };
}

function collapse(text: string): string {
  return text.replace(/[\s\u00a0]+/g, " ");
}

function renderChildren(element: HtmlElement, state: RenderState): string {
  return element.children.map((child) => renderNode(child, state)).join("");
}

function block(text: string): string {
  const trimmed = text.trim();
  return trimmed ? `\n\n${trimmed}\n\n` : "";
}

function renderNode(node: HtmlNode, state: RenderState): string {
  if (typeof node === "string") return collapse(node);
  const { tag } = node;
  if (SKIPPED.has(tag) || node.attrs.hidden !== undefined || node.attrs["aria-hidden"] === "true") return "";
  const heading = /^h([1-6])$/.exec(tag);
  if (heading) {
    const text = collapse(renderChildren(node, state)).trim();
    return text ? `\n\n${"#".repeat(Number(heading[1]))} ${text}\n\n` : "";
  }
  switch (tag) {
    case "br":
      return "\n";
    case "hr":
      return "\n\n---\n\n";
    case "a":
      return renderLink(node, state);
    case "img":
      return renderImage(node, state);
    case "strong":
    case "b":
      return wrapInline(renderChildren(node, state), "**");
    case "em":
    case "i":
      return wrapInline(renderChildren(node, state), "*");
    case "del":
    case "s":
    case "strike":
      return wrapInline(renderChildren(node, state), "~~");
    case "code":
    case "kbd":
    case "samp":
      return renderInlineCode(textContent(node));
    case "pre":
      return renderPre(node, state);
    case "ul":
    case "ol":
    case "menu":
      return renderList(node, state);
    case "blockquote":
      return renderQuote(node, state);
    case "table":
      return renderTable(node, state);
    default:
      return BLOCK.has(tag) ? block(renderChildren(node, state)) : renderChildren(node, state);
  }
}

function wrapInline(text: string, mark: string): string {
  const trimmed = text.trim();
  if (!trimmed) return text;
  const lead = text.startsWith(" ") ? " " : "";
  const trail = text.endsWith(" ") ? " " : "";
  return `${lead}${mark}${trimmed}${mark}${trail}`;
}

function renderInlineCode(text: string): string {
  const code = collapse(text).trim();
  if (!code) return "";
  const fence = code.includes("`") ? "``" : "`";
  return `${fence}${code}${fence}`;
}

function resolveUrl(href: string, base: string | undefined): string {
  try {
    return base ? new URL(href, base).toString() : href;
  } catch {
    return href;
  }
}

function renderLink(node: HtmlElement, state: RenderState): string {
  const text = collapse(renderChildren(node, state)).trim();
  const href = node.attrs.href?.trim();
  if (!text) return "";
  if (!href || href.startsWith("#") || /^javascript:/i.test(href)) return text;
  return `[${text}](${resolveUrl(href, state.base)})`;
}

function renderImage(node: HtmlElement, state: RenderState): string {
  const src = node.attrs.src?.trim();
  const alt = collapse(node.attrs.alt ?? "").trim();
  if (!src || src.startsWith("data:") || !alt) return alt;
  return `![${alt}](${resolveUrl(src, state.base)})`;
}

function codeLanguage(node: HtmlElement): string {
  const inner = node.children.find((child): child is HtmlElement => typeof child !== "string" && child.tag === "code");
  const classes = `${node.attrs.class ?? ""} ${inner?.attrs.class ?? ""}`;
  return /(?:^|\s)(?:language|lang)-([\w+#-]+)/.exec(classes)?.[1] ?? "";
}

function renderPre(node: HtmlElement, state: RenderState): string {
  const code = textContent(node).replace(/^\n/, "").replace(/\s+$/, "");
  const fence = code.includes("```") ? "````" : "```";
  state.pre.push(`${fence}${codeLanguage(node)}\n${code}\n${fence}`);
  return `\n\n${PRE_MARK}${state.pre.length - 1}${PRE_MARK}\n\n`;
}

function renderList(node: HtmlElement, state: RenderState): string {
  const ordered = node.tag === "ol";
  let number = Number.parseInt(node.attrs.start ?? "1", 10) || 1;
  const indent = INDENT.repeat(state.listDepth);
  state.listDepth++;
  const items: string[] = [];
  for (const child of node.children) {
    if (typeof child === "string" || child.tag !== "li") {
      // Stray text or elements directly inside a list are rendered as they are.
      const loose = renderNode(child, state).trim();
      if (loose) items.push(`${indent}${loose}`);
      continue;
    }
    const marker = ordered ? `${number++}.` : "-";
    const body = normalizeBlock(renderChildren(child, state));
    const [first = "", ...rest] = body.split("\n");
    // Nested lists already carry their own indentation; other continuation lines get the item's.
    const continuation = rest.map((line) => (line && !line.startsWith(INDENT) ? `${indent}${INDENT}${line}` : line));
    items.push([`${indent}${marker} ${first}`, ...continuation].join("\n"));
  }
  state.listDepth--;
  const text = items.join("\n");
  return state.listDepth > 0 ? `\n${text}\n` : `\n\n${text}\n\n`;
}

function renderQuote(node: HtmlElement, state: RenderState): string {
  const body = normalizeBlock(renderChildren(node, state));
  if (!body) return "";
  return `\n\n${body
    .split("\n")
    .map((line) => (line ? `> ${line}` : ">"))
    .join("\n")}\n\n`;
}

function renderTable(node: HtmlElement, state: RenderState): string {
  const rows = findAll(node, "tr").map((row) =>
    row.children
      .filter((cell): cell is HtmlElement => typeof cell !== "string" && (cell.tag === "td" || cell.tag === "th"))
      .map((cell) => collapse(renderChildren(cell, state)).trim().replace(/\|/g, "\\|")),
  );
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (width === 0) return block(renderChildren(node, state));
  const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`;
  const [header = [], ...body] = rows;
  const separator = `| ${Array.from({ length: width }, () => "---").join(" | ")} |`;
  return `\n\n${[line(header), separator, ...body.map(line)].join("\n")}\n\n`;
}

/** Tidy a fragment: no spaces around line breaks, at most one blank line, no outer blank lines. */
function normalizeBlock(text: string): string {
  return text
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n[ \t]+/g, "\n")
    .replace(/ {2,}/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function normalize(text: string, state: RenderState): string {
  const PRE_TOKEN = new RegExp(`${PRE_MARK}(\\d+)${PRE_MARK}`, "g");
  return normalizeBlock(text)
    .replace(new RegExp(INDENT, "g"), "  ")
    .replace(PRE_TOKEN, (_, index: string) => state.pre[Number(index)] ?? "");
}
