/**
 * Telegram's MarkdownV2 parsing, as the Bot API does it: the plain text and its entities, or the
 * error Telegram answers with ("can't parse entities: ..."). Covers bold, italic, underline,
 * strikethrough, spoiler, inline code, pre blocks with a language, inline links and quotes.
 */

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  language?: string;
  url?: string;
}

export class EntityParseError extends Error {}

const RESERVED = new Set("_*[]()~`>#+-=|{}.!".split(""));

interface Open {
  type: string;
  marker: string;
  start: number;
  at: number;
}

export function parseMarkdownV2(source: string): { text: string; entities: MessageEntity[] } {
  let text = "";
  const entities: MessageEntity[] = [];
  const stack: Open[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new EntityParseError(`Bad Request: can't parse entities: ${why}`);
  };
  const toggle = (type: string, marker: string) => {
    const top = stack.at(-1);
    if (top?.type === type) {
      stack.pop();
      if (text.length > top.start) entities.push({ type, offset: top.start, length: text.length - top.start });
    } else {
      stack.push({ type, marker, start: text.length, at: i });
    }
    i += marker.length;
  };
  while (i < source.length) {
    const char = source[i] as string;
    const lineStart = i === 0 || source[i - 1] === "\n";
    if (char === "\\") {
      const next = source[i + 1];
      if (next === undefined) fail(`Character '\\' at byte offset ${i} can't be the last`);
      text += next;
      i += 2;
      continue;
    }
    if (source.startsWith("```", i)) {
      const newline = source.indexOf("\n", i + 3);
      const language = newline >= 0 ? source.slice(i + 3, newline) : "";
      const bodyStart = /^[\w+#.-]*$/.test(language) && newline >= 0 ? newline + 1 : i + 3;
      const { body, end } = readCode(source, bodyStart, "```", fail);
      entities.push({
        type: "pre",
        offset: text.length,
        length: body.length,
        ...(language && bodyStart !== i + 3 ? { language } : {}),
      });
      text += body;
      i = end + 3;
      continue;
    }
    if (char === "`") {
      const { body, end } = readCode(source, i + 1, "`", fail);
      entities.push({ type: "code", offset: text.length, length: body.length });
      text += body;
      i = end + 1;
      continue;
    }
    if (char === ">" && lineStart) {
      // A quote line; the entity spans the line.
      const lineEnd = source.indexOf("\n", i);
      const start = text.length;
      const inner = parseMarkdownV2(source.slice(i + 1, lineEnd < 0 ? source.length : lineEnd));
      for (const entity of inner.entities) entities.push({ ...entity, offset: entity.offset + start });
      text += inner.text;
      entities.push({ type: "blockquote", offset: start, length: inner.text.length });
      i = lineEnd < 0 ? source.length : lineEnd;
      continue;
    }
    if (char === "*") toggle("bold", "*");
    else if (source.startsWith("__", i)) toggle("underline", "__");
    else if (char === "_") toggle("italic", "_");
    else if (char === "~") toggle("strikethrough", "~");
    else if (source.startsWith("||", i)) toggle("spoiler", "||");
    else if (char === "[") {
      stack.push({ type: "text_link", marker: "[", start: text.length, at: i });
      i += 1;
    } else if (char === "]" && stack.at(-1)?.type === "text_link") {
      const open = stack.pop() as Open;
      if (source[i + 1] !== "(") fail(`Character ']' is reserved and must be escaped with the preceding '\\'`);
      const { body: url, end } = readCode(source, i + 2, ")", fail);
      entities.push({ type: "text_link", offset: open.start, length: text.length - open.start, url });
      i = end + 1;
    } else if (RESERVED.has(char)) {
      fail(`Character '${char}' is reserved and must be escaped with the preceding '\\'`);
    } else {
      text += char;
      i += 1;
    }
  }
  const unclosed = stack.at(-1);
  if (unclosed) fail(`Can't find end of ${unclosed.type} entity at byte offset ${unclosed.at}`);
  entities.sort((a, b) => a.offset - b.offset);
  return { text, entities };
}

/** Reads code (or a link target) up to an unescaped `closer`; inside, only escapes of ` \ ) count. */
function readCode(
  source: string,
  from: number,
  closer: string,
  fail: (why: string) => never,
): { body: string; end: number } {
  let body = "";
  for (let i = from; i < source.length; i++) {
    const char = source[i] as string;
    if (char === "\\" && i + 1 < source.length) {
      body += source[i + 1];
      i += 1;
      continue;
    }
    if (source.startsWith(closer, i)) return { body: closer === "```" ? body.replace(/\n$/, "") : body, end: i };
    body += char;
  }
  return fail(`Can't find end of ${closer === ")" ? "a URL" : "the code entity"} at byte offset ${from}`);
}
