/**
 * Whether a command line runs a program whose name exists only once the shell has expanded
 * something: `$(echo rm) ./x -rf`, `` `echo rm` ./x ``, `$X ./x`, `${X} ./x`, `r$(echo m) ./x`.
 *
 * The shared parser ends a word at `$(` or a backtick, so where a substitution stood (program or
 * argument) is lost. This lexer keeps each substitution inside its word, and reads the text
 * inside it as a command line of its own.
 */
import type { Word } from "../../util/shell-words.js";
import { unwrap } from "./command-analysis.js";

const OPERATORS = ["&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")"];
const REDIRECT = /^(?:\d*|&)(?:>>|>\||>&|>|<<<|<<-|<<|<>|<&|<)/;
const EXPANSION = /[$`]/;
const ARRAY_NAME = /^[A-Za-z_]\w*(?:\[[^\]]*\])?\+?$/;
/** Substitutions nested deeper than this are not read; the command then counts as computed. */
const MAX_NESTING = 8;
/** Quotes and parentheses nested deeper than this are taken to run to the end of the text. */
const MAX_BRACKETING = 100;

interface Lexed {
  /** The words of each simple command, redirections and their targets left out. */
  commands: Word[][];
  /** The text inside each command or process substitution. */
  nested: string[];
}

/** The index just past the `)` that closes the `(` at `open`, honouring quotes and escapes. */
function closeParen(source: string, open: number, bracketing = 0): number {
  if (bracketing > MAX_BRACKETING) return source.length;
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "'") i = endOf(source.indexOf("'", i + 1), source);
    else if (c === '"') i = closeDoubleQuote(source, i, bracketing + 1) - 1;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return source.length;
}

function closeBrace(source: string, open: number): number {
  const close = source.indexOf("}", open);
  return close < 0 ? source.length : close + 1;
}

function closeBacktick(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "`") return i + 1;
  }
  return source.length;
}

/** The index just past the `"` that closes the one at `open`. */
function closeDoubleQuote(source: string, open: number, bracketing = 0): number {
  if (bracketing > MAX_BRACKETING) return source.length;
  for (let i = open + 1; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === '"') return i + 1;
    else if (c === "$" && source[i + 1] === "(") i = closeParen(source, i + 1, bracketing + 1) - 1;
    else if (c === "`") i = closeBacktick(source, i) - 1;
  }
  return source.length;
}

const endOf = (close: number, source: string) => (close < 0 ? source.length : close);

/** `$(...)` or `` `...` `` starting at `i`: the command text inside and the index past it. */
function substitutionAt(source: string, i: number): { inner: string | null; end: number } | null {
  if (source[i] === "`") {
    const end = closeBacktick(source, i);
    return { inner: source.slice(i + 1, end - 1), end };
  }
  if (source[i] !== "$") return null;
  if (source[i + 1] === "(") {
    const end = closeParen(source, i + 1);
    // `$((...))` is arithmetic, not a command.
    return { inner: source[i + 2] === "(" ? null : source.slice(i + 2, end - 1), end };
  }
  if (source[i + 1] === "{") return { inner: null, end: closeBrace(source, i + 1) };
  return null;
}

/** One word from `start`, with every substitution it contains added to `nested`. */
function readWord(source: string, start: number, nested: string[]): { word: Word; end: number } {
  let i = start;
  let value = "";
  while (i < source.length) {
    const c = source[i]!;
    const substitution = substitutionAt(source, i);
    if (substitution) {
      if (substitution.inner !== null) nested.push(substitution.inner);
      value += source.slice(i, substitution.end);
      i = substitution.end;
    } else if (c === "'" || (c === "$" && source[i + 1] === "'")) {
      const close = endOf(source.indexOf("'", c === "$" ? i + 2 : i + 1), source);
      value += source.slice(c === "$" ? i + 2 : i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      const end = closeDoubleQuote(source, i);
      collectSubstitutions(source.slice(i + 1, end - 1), nested);
      value += source.slice(i + 1, end - 1);
      i = end;
    } else if (c === "\\") {
      value += source[i + 1] ?? "";
      i += 2;
    } else if (c === "=" && source[i + 1] === "(" && ARRAY_NAME.test(value)) {
      // `files=($(ls))`: an array assignment, its elements are words, not commands.
      const end = closeParen(source, i + 1);
      collectSubstitutions(source.slice(i + 2, end - 1), nested);
      value += source.slice(i, end);
      i = end;
    } else if (/[\s;&|()<>]/.test(c)) {
      break;
    } else {
      value += c;
      i++;
    }
  }
  return { word: { value, raw: source.slice(start, i) }, end: i };
}

/** The substitutions inside a double-quoted string or an array's elements. */
function collectSubstitutions(text: string, nested: string[]): void {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    const substitution = substitutionAt(text, i);
    if (!substitution) continue;
    if (substitution.inner !== null) nested.push(substitution.inner);
    i = substitution.end - 1;
  }
}

function lex(source: string): Lexed {
  const commands: Word[][] = [];
  const nested: string[] = [];
  const heredocs: string[] = [];
  let words: Word[] = [];
  let pendingRedirect: string | null = null;
  let i = 0;
  const endCommand = () => {
    if (words.length > 0) commands.push(words);
    words = [];
    pendingRedirect = null;
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\\" && source[i + 1] === "\n") {
      i += 2;
      continue;
    }
    if (c !== "\n" && /\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "#") {
      i = endOf(source.indexOf("\n", i), source);
      continue;
    }
    if (words.length === 0 && source.startsWith("((", i)) {
      // `(( n > 3 ))`: an arithmetic command, its `$n` is no program.
      i = closeParen(source, i);
      continue;
    }
    if ((c === "<" || c === ">") && source[i + 1] === "(") {
      const end = closeParen(source, i + 1);
      nested.push(source.slice(i + 2, end - 1));
      i = end;
      continue;
    }
    const redirect = REDIRECT.exec(source.slice(i, i + 8));
    if (redirect) {
      pendingRedirect = redirect[0];
      i += redirect[0].length;
      continue;
    }
    const operator = OPERATORS.find((op) => source.startsWith(op, i));
    if (operator) {
      i += operator.length;
      endCommand();
      if (operator === "\n") i = skipHeredocBodies(source, i, heredocs);
      continue;
    }
    const { word, end } = readWord(source, i, nested);
    i = end;
    if (pendingRedirect === null) words.push(word);
    else if (pendingRedirect.startsWith("<<") && pendingRedirect !== "<<<") heredocs.push(word.value);
    pendingRedirect = null;
  }
  endCommand();
  return { commands, nested };
}

/** Heredoc bodies are data for their command, whatever they look like. */
function skipHeredocBodies(source: string, from: number, delimiters: string[]): number {
  let i = from;
  while (delimiters.length > 0 && i < source.length) {
    const delimiter = delimiters.shift()!;
    while (i < source.length) {
      const newline = source.indexOf("\n", i);
      const line = source.slice(i, endOf(newline, source));
      i = newline < 0 ? source.length : newline + 1;
      if (line.trim() === delimiter) break;
    }
  }
  return i;
}

/** Whether some command in `source`, or in a substitution inside it, has a computed program name. */
export function runsComputedProgram(source: string, nesting = 0): boolean {
  if (!EXPANSION.test(source)) return false;
  if (nesting > MAX_NESTING) return true;
  const { commands, nested } = lex(source);
  for (const words of commands) {
    const program = unwrap(words).words[0];
    if (program && EXPANSION.test(program.raw)) return true;
  }
  return nested.some((inner) => runsComputedProgram(inner, nesting + 1));
}
