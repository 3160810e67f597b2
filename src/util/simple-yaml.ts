/**
 * An exact reader for the small YAML subset that front matter is usually written in, so the
 * common case does not need a full YAML parser:
 *
 * - `key: value` mappings, nested by indenting with spaces;
 * - string values: plain, 'single-quoted' and "double-quoted" without escapes, on one line;
 * - in block context, also `null`/`~`, `true`/`false` (in the three spellings YAML allows),
 *   and decimal numbers such as `3`, `-2` or `0.5`;
 * - one-line flow sequences of strings (`[a, "b c"]`) and block sequences (`- a` lines);
 * - blank lines, whole-line `#` comments, and a `# comment` after a block value.
 *
 * That covers front matter and the config.yaml files the agent itself writes. For that subset
 * the result equals what the `yaml` package's `parse` returns (YAML 1.2, core schema). Anything
 * else (other numbers such as `1e3`, `+1`, `0x1F` or `.inf`, anchors, tags, block scalars,
 * values spread over lines, escapes, tabs, CR line ends, repeated keys) makes it return
 * undefined, so the caller can use the full parser.
 */

export type SimpleYamlScalar = string | number | boolean | null;
export type SimpleYamlValue = SimpleYamlScalar | SimpleYamlScalar[] | SimpleYamlMapping;
export interface SimpleYamlMapping {
  [key: string]: SimpleYamlValue;
}

/** Printable characters other than tab and CR; lone surrogates and BOMs are left to the full parser. */
const READABLE = /^[\n\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\u{10000}-\u{10ffff}]*$/u;
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
/** Keys the full parser may treat as something other than a plain string key. */
const SPECIAL_KEY = /^(?:null|true|false|__proto__)$/i;
/** Characters that may not start a plain scalar (YAML indicators), in block and flow context. */
const INDICATORS = "-?:,[]{}#&*!|>'\"%@`";
/**
 * A superset of the plain scalars the core schema reads as null, a boolean or a number: such a
 * value is left to the full parser.
 */
const NOT_A_STRING =
  /^(?:~|null|true|false|[-+]?(?:(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)(?:e[-+]?[0-9]+)?|0[box][0-9a-f_]*|\.inf|\.nan))$/i;

interface Read<T> {
  value: T;
  /** Index of the first line not consumed. */
  next: number;
}

/** The mapping `text` holds, or undefined when it uses YAML beyond the simple subset. */
export function readSimpleYaml(text: string): SimpleYamlMapping | undefined {
  if (!READABLE.test(text)) return undefined;
  const lines = text.split("\n").map((line) => line.replace(/ +$/, ""));
  const read = readMapping(lines, 0, 0);
  if (!read || read.next < lines.length || Object.keys(read.value).length === 0) return undefined;
  return read.value;
}

function indentOf(line: string): number {
  let n = 0;
  while (line[n] === " ") n++;
  return n;
}

/** The index of the first line at or after `from` that is neither blank nor a comment. */
function nextContent(lines: string[], from: number): number {
  let i = from;
  while (i < lines.length) {
    const line = lines[i]!;
    const body = line.slice(indentOf(line));
    if (body !== "" && !body.startsWith("#")) break;
    i++;
  }
  return i;
}

function readMapping(lines: string[], start: number, indent: number): Read<SimpleYamlMapping> | undefined {
  const mapping: SimpleYamlMapping = {};
  let i = nextContent(lines, start);
  while (i < lines.length) {
    const line = lines[i]!;
    const own = indentOf(line);
    if (own < indent) break;
    if (own > indent) return undefined;
    const match = KEY_LINE.exec(line.slice(indent));
    if (!match) return undefined;
    const key = match[1]!;
    if (SPECIAL_KEY.test(key) || Object.hasOwn(mapping, key)) return undefined;
    if (match[2] !== undefined) {
      const value = match[2].startsWith("[") ? readFlowSequence(match[2]) : readScalar(match[2]);
      if (value === undefined) return undefined;
      mapping[key] = value;
      i = nextContent(lines, i + 1);
      continue;
    }
    const childLine = nextContent(lines, i + 1);
    const child = lines[childLine];
    const childIndent = child === undefined ? -1 : indentOf(child);
    let read: Read<SimpleYamlValue> | undefined;
    if (child !== undefined && childIndent >= indent && child.startsWith("- ", childIndent)) {
      read = readBlockSequence(lines, childLine, childIndent);
    } else if (child !== undefined && childIndent > indent) {
      read = readMapping(lines, childLine, childIndent);
    } else {
      read = { value: null, next: childLine };
    }
    if (!read) return undefined;
    mapping[key] = read.value;
    i = read.next;
  }
  return { value: mapping, next: i };
}

function readBlockSequence(lines: string[], start: number, indent: number): Read<SimpleYamlScalar[]> | undefined {
  const items: SimpleYamlScalar[] = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i]!;
    const own = indentOf(line);
    if (own < indent) break;
    if (own > indent) return undefined;
    if (!line.startsWith("- ", indent)) break;
    const item = readScalar(line.slice(indent + 2).replace(/^ +/, ""));
    if (item === undefined) return undefined;
    items.push(item);
    i = nextContent(lines, i + 1);
  }
  return { value: items, next: i };
}

/**
 * A whole one-line block value, optionally followed by ` # comment`: a quoted string, null, a
 * boolean, a decimal number, or a plain string.
 */
function readScalar(text: string): SimpleYamlScalar | undefined {
  if (text.startsWith('"') || text.startsWith("'")) {
    const quoted = readQuoted(text, 0);
    if (!quoted || !/^(?: +#.*)?$/.test(text.slice(quoted.end))) return undefined;
    return quoted.value;
  }
  const comment = text.indexOf(" #");
  const body = comment < 0 ? text : text.slice(0, comment).replace(/ +$/, "");
  const typed = typedScalar(body);
  if (typed !== PLAIN) return typed;
  return isPlainString(body, false) ? body : undefined;
}

const PLAIN = Symbol("plain string");
const NULLS = new Set(["~", "null", "Null", "NULL"]);
const TRUES = new Set(["true", "True", "TRUE"]);
const FALSES = new Set(["false", "False", "FALSE"]);
/** Decimal integers and fractions without a sign other than `-`, leading zeros or an exponent. */
const DECIMAL = /^-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?$/;

/** The null, boolean or number a plain value stands for; PLAIN for a string; undefined when unsure. */
function typedScalar(body: string): SimpleYamlScalar | typeof PLAIN | undefined {
  if (NULLS.has(body)) return null;
  if (TRUES.has(body)) return true;
  if (FALSES.has(body)) return false;
  if (DECIMAL.test(body)) {
    const value = Number(body);
    return Object.is(value, -0) ? undefined : value;
  }
  return NOT_A_STRING.test(body) ? undefined : PLAIN;
}

/** A quoted string starting at `at`, and the index just past its closing quote. */
function readQuoted(text: string, at: number): { value: string; end: number } | undefined {
  const quote = text[at];
  if (quote === '"') {
    const close = text.indexOf('"', at + 1);
    if (close < 0) return undefined;
    const value = text.slice(at + 1, close);
    return value.includes("\\") ? undefined : { value, end: close + 1 };
  }
  let value = "";
  let i = at + 1;
  while (i < text.length) {
    const close = text.indexOf("'", i);
    if (close < 0) return undefined;
    value += text.slice(i, close);
    if (text[close + 1] !== "'") return { value, end: close + 1 };
    value += "'";
    i = close + 2;
  }
  return undefined;
}

function readFlowSequence(text: string): string[] | undefined {
  if (!text.endsWith("]")) return undefined;
  const inner = text.slice(1, -1);
  const items: string[] = [];
  if (inner.trim() === "") return /^ *$/.test(inner) ? items : undefined;
  let i = 0;
  while (true) {
    while (inner[i] === " ") i++;
    let item: string;
    if (inner[i] === '"' || inner[i] === "'") {
      const quoted = readQuoted(inner, i);
      if (!quoted) return undefined;
      item = quoted.value;
      i = quoted.end;
      while (inner[i] === " ") i++;
    } else {
      const comma = inner.indexOf(",", i);
      const end = comma < 0 ? inner.length : comma;
      item = inner.slice(i, end).replace(/ +$/, "");
      if (!isPlainString(item, true)) return undefined;
      i = end;
    }
    items.push(item);
    if (i === inner.length) return items;
    // Anything but a comma followed by another item (a trailing comma included) is left to the full parser.
    if (inner[i] !== "," || /^ *$/.test(inner.slice(i + 1))) return undefined;
    i++;
  }
}

function isPlainString(text: string, inFlow: boolean): boolean {
  if (text === "" || INDICATORS.includes(text[0]!)) return false;
  if (text.includes(": ") || text.endsWith(":") || text.includes(" #")) return false;
  if (inFlow && /[,[\]{}:#"']/.test(text)) return false;
  return !NOT_A_STRING.test(text);
}
