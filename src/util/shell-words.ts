/**
 * A small, forgiving shell lexer for safety checks. It does not run or expand anything; it
 * undoes the tricks that hide a command from a naive pattern match (ANSI escapes, full-width
 * letters, `$IFS`, quoting and backslashes inside words) and splits a command line into simple
 * commands with their words and redirections.
 */

/** Strips terminal escapes and NULs, folds compatibility characters and expands `$IFS`. */
export function normalizeCommand(command: string): string {
  return hasAnythingToNormalize(command) ? normalizeEverything(command) : command;
}

/**
 * Whether `normalizeCommand` could change `command`: every step needs a NUL, an ESC, a `$` or
 * a character outside ASCII (which NFKC leaves as it is).
 */
function hasAnythingToNormalize(command: string): boolean {
  for (let i = 0; i < command.length; i++) {
    const code = command.charCodeAt(i);
    if (code === 0x00 || code === 0x1b || code === 0x24 || code > 0x7e) return true;
  }
  return false;
}

function normalizeEverything(command: string): string {
  return (
    command
      // CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks), other ESC pairs.
      .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "")
      .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "")
      .replace(/\x1b[@-_]/g, "")
      .replace(/[\x00\x1b]/g, "")
      .normalize("NFKC")
      // Invisible characters that could split a word without changing how it looks.
      .replace(/[\u200b-\u200d\u2060\ufeff]/g, "")
      .replace(/\$\{IFS\}|\$IFS(?![A-Za-z0-9_])/g, " ")
      // Empty positional parameters ($9, ${9}) are a common padding trick.
      .replace(/\$\{?[1-9]\}?/g, "")
  );
}

export interface Word {
  /** The word with quotes removed and escapes applied. */
  value: string;
  /** The word as written, quotes and backslashes included. */
  raw: string;
}

export interface Redirect {
  /** The operator as written: ">", ">>", "&>", "2>", "<", "<<", "<<<", ">|"... */
  op: string;
  target: Word;
}

export interface SimpleCommand {
  words: Word[];
  redirects: Redirect[];
  /** The operator that ended this command: ";", "&&", "||", "|", "&", "\n", "(", ")", "`", "$(" or "". */
  terminator: string;
}

const OPERATORS = ["&&", "||", ";;", "$(", "<(", ">(", "|&", ";", "|", "&", "\n", "(", ")", "`"];
const REDIRECT = /^(?:\d*|&)(?:>>|>\||>&|>|<<<|<<-|<<|<>|<&|<)/;

function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|[0-7]{1,3}|.)/g, (_m, esc: string) => {
    if (esc[0] === "x" || esc[0] === "u") return String.fromCodePoint(Number.parseInt(esc.slice(1), 16));
    if (/^[0-7]/.test(esc)) return String.fromCodePoint(Number.parseInt(esc, 8));
    const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", e: "\x1b", a: "\x07", "0": "\0" };
    return simple[esc] ?? esc;
  });
}

/**
 * Splits a command line into simple commands. Heredoc bodies are skipped (they are data for
 * the command, not commands); unknown or unbalanced syntax never throws.
 */
export function parseCommandLine(source: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], redirects: [], terminator: "" };
  let pendingRedirect: string | null = null;
  const heredocs: string[] = [];
  let i = 0;

  const finish = (terminator: string) => {
    current.terminator = terminator;
    if (current.words.length > 0 || current.redirects.length > 0) commands.push(current);
    current = { words: [], redirects: [], terminator: "" };
    pendingRedirect = null;
  };
  const pushWord = (word: Word) => {
    if (pendingRedirect !== null) {
      current.redirects.push({ op: pendingRedirect, target: word });
      if (pendingRedirect.startsWith("<<") && pendingRedirect !== "<<<") heredocs.push(word.value);
      pendingRedirect = null;
    } else {
      current.words.push(word);
    }
  };
  const skipHeredocBodies = () => {
    while (heredocs.length > 0 && i < source.length) {
      const delimiter = heredocs.shift()!;
      while (i < source.length) {
        const nl = source.indexOf("\n", i);
        const line = source.slice(i, nl < 0 ? source.length : nl);
        i = nl < 0 ? source.length : nl + 1;
        if (line.trim() === delimiter) break;
      }
    }
  };

  while (i < source.length) {
    const ch = source[i]!;
    // Any blank a word ends at (a vertical tab, a Unicode space) is skipped here too, or the
    // same empty word would be read again forever.
    if (ch === " " || ch === "\t" || ch === "\r" || (ch !== "\n" && /\s/.test(ch))) {
      i++;
      continue;
    }
    if (ch === "\\" && source[i + 1] === "\n") {
      i += 2;
      continue;
    }
    if (ch === "#") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    const substitution = source.startsWith("<(", i) || source.startsWith(">(", i);
    const redirect = substitution ? null : REDIRECT.exec(source.slice(i, i + 8));
    if (redirect) {
      pendingRedirect = redirect[0];
      i += redirect[0].length;
      continue;
    }
    const operator = OPERATORS.find((op) => source.startsWith(op, i));
    if (operator) {
      i += operator.length;
      finish(operator);
      if (operator === "\n") skipHeredocBodies();
      continue;
    }
    // A word: runs until unquoted whitespace or an operator.
    let value = "";
    const start = i;
    while (i < source.length) {
      const c = source[i]!;
      if (c === "'") {
        const close = source.indexOf("'", i + 1);
        const end = close < 0 ? source.length : close;
        value += source.slice(i + 1, end);
        i = end + 1;
      } else if (c === "$" && source[i + 1] === "'") {
        const close = source.indexOf("'", i + 2);
        const end = close < 0 ? source.length : close;
        value += decodeAnsiC(source.slice(i + 2, end));
        i = end + 1;
      } else if (c === '"') {
        i++;
        while (i < source.length && source[i] !== '"') {
          if (source[i] === "\\" && i + 1 < source.length && '"\\$`\n'.includes(source[i + 1]!)) i++;
          value += source[i];
          i++;
        }
        i++;
      } else if (c === "\\") {
        if (i + 1 < source.length) value += source[i + 1];
        i += 2;
      } else if (/[\s;&|()<>`]/.test(c) || (c === "$" && source[i + 1] === "(")) {
        break;
      } else {
        value += c;
        i++;
      }
    }
    pushWord({ value, raw: source.slice(start, Math.min(i, source.length)) });
  }
  finish("");
  return commands;
}

/** The last path segment of a command word, lower-cased, without a Windows `.exe`. */
export function commandName(word: string): string {
  const base = word.split(/[\\/]/).pop() ?? word;
  return base.toLowerCase().replace(/\.exe$/, "");
}
