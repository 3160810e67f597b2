/**
 * A strict shell reader. Unlike the forgiving lexer the approval rules use, it gives up (null)
 * on anything it does not fully understand: unbalanced quotes, command or process substitution,
 * heredocs, complex parameter expansions, control characters.
 */

export interface ShellWord {
  /** The word with quotes removed and escapes applied (expansions left as written). */
  value: string;
  /** The word as written. */
  raw: string;
  /** The shell will expand it (a variable, an unquoted glob or brace): its value is unknown. */
  dynamic: boolean;
}

export interface ShellRedirect {
  /** The file descriptor number written before the operator, or "". */
  fd: string;
  /** ">", ">>", ">|", ">&", "&>", "&>>", "<", "<&" or "<<<". */
  op: string;
  target: ShellWord;
}

export interface ShellPart {
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** The simple command as written, whitespace runs folded to one space. */
  text: string;
}

export interface ShellParse {
  /** The simple commands, in order; parentheses and separators are dropped. */
  parts: ShellPart[];
  /** The operators between them: ";", "&&", "||", "|", "|&", "&". */
  separators: string[];
}

const REDIRECT_AT = /^(\d*)(&>>|&>|>>|>\||>&|>|<<<|<<-|<<|<>|<&|<)/;
const WORD_END = new Set([" ", "\t", "\n", "|", "&", ";", "<", ">", "(", ")"]);
const SPECIAL_PARAMETER = /[0-9@*#?$!-]/;
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;

class Unparseable extends Error {}

function fail(): never {
  throw new Unparseable();
}

/** Splits a command line into simple commands, or null when it cannot be read with certainty. */
export function parseShellStrict(source: string): ShellParse | null {
  try {
    return new StrictReader(source).read();
  } catch (error) {
    if (error instanceof Unparseable) return null;
    throw error;
  }
}

class StrictReader {
  private i = 0;
  private readonly parts: ShellPart[] = [];
  private readonly separators: string[] = [];
  private words: ShellWord[] = [];
  private redirects: ShellRedirect[] = [];
  private start = -1;
  private end = -1;
  /** For each open `(`, how many parts had been read before it. */
  private readonly groups: number[] = [];
  /** A binary operator (`&&`, `||`, `|`) was read and no command has followed yet. */
  private needCommand = false;
  /** The last thing read closed a `( ... )` group, which may be followed by a binary operator. */
  private closedGroup = false;

  constructor(private readonly s: string) {}

  read(): ShellParse {
    const s = this.s;
    for (let k = 0; k < s.length; k++) {
      const code = s.charCodeAt(k);
      if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || code === 0x7f) fail();
    }
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === " " || c === "\t") {
        this.i++;
      } else if (c === "\\" && s[this.i + 1] === "\n") {
        this.i += 2;
      } else if (c === "#") {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
      } else if (c === "\n") {
        this.i++;
        // A newline after `&&` or `|` continues the command list; blank lines are fine.
        if (!this.needCommand) this.endPart(";");
      } else if (c === ";") {
        if (s[this.i + 1] === ";" || this.partIsEmpty()) fail();
        this.i++;
        this.endPart(";");
      } else if (s.startsWith("&&", this.i) || s.startsWith("||", this.i) || s.startsWith("|&", this.i)) {
        this.binary(s.slice(this.i, this.i + 2));
      } else if (c === "|") {
        this.binary("|");
      } else if (c === "&" && s[this.i + 1] !== ">") {
        if (this.partIsEmpty()) fail();
        this.i++;
        this.endPart("&");
      } else if (c === "(") {
        // A group opens only where a command could start: `ls (` and `(a) (b)` are syntax errors.
        if (this.words.length > 0 || this.redirects.length > 0 || this.closedGroup) fail();
        this.i++;
        this.groups.push(this.parts.length);
      } else if (c === ")") {
        const opened = this.groups.pop();
        if (opened === undefined || this.needCommand) fail();
        if (this.words.length === 0 && this.redirects.length === 0 && this.parts.length === opened) fail();
        this.i++;
        this.endPart(null);
        this.closedGroup = true;
      } else if (!this.readRedirect()) {
        const from = this.i;
        this.words.push(this.readWord());
        this.mark(from);
      }
    }
    if (this.groups.length > 0 || this.needCommand) fail();
    this.endPart(null);
    return { parts: this.parts, separators: this.separators };
  }

  private partIsEmpty(): boolean {
    return this.words.length === 0 && this.redirects.length === 0 && !this.closedGroup;
  }

  private binary(op: string): void {
    if (this.partIsEmpty()) fail();
    this.i += op.length;
    this.endPart(op);
    this.needCommand = true;
  }

  private endPart(separator: string | null): void {
    if (separator !== null && this.needCommand) fail();
    if (this.words.length > 0 || this.redirects.length > 0) {
      const text = this.s.slice(this.start, this.end).replace(/\s+/g, " ").trim();
      this.parts.push({ words: this.words, redirects: this.redirects, text });
    }
    if (separator !== null) this.separators.push(separator);
    this.words = [];
    this.redirects = [];
    this.start = -1;
    this.closedGroup = false;
  }

  private mark(from: number): void {
    if (this.start < 0) this.start = from;
    this.end = this.i;
    this.needCommand = false;
    this.closedGroup = false;
  }

  private readRedirect(): boolean {
    const s = this.s;
    if (s.startsWith("<(", this.i) || s.startsWith(">(", this.i)) fail();
    const match = REDIRECT_AT.exec(s.slice(this.i, this.i + 24));
    if (!match) return false;
    const from = this.i;
    const fd = match[1] ?? "";
    const op = match[2]!;
    if (op === "<<" || op === "<<-" || op === "<>") fail();
    if (fd !== "" && op.startsWith("&")) fail();
    this.i += match[0].length;
    while (s[this.i] === " " || s[this.i] === "\t") this.i++;
    if (this.i >= s.length || WORD_END.has(s[this.i]!)) fail();
    this.redirects.push({ fd, op, target: this.readWord() });
    this.mark(from);
    return true;
  }

  private readWord(): ShellWord {
    const s = this.s;
    const from = this.i;
    let value = "";
    let dynamic = false;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (WORD_END.has(c)) break;
      if (c === "'") {
        const close = s.indexOf("'", this.i + 1);
        if (close < 0) fail();
        value += s.slice(this.i + 1, close);
        this.i = close + 1;
      } else if (c === '"') {
        this.i++;
        for (;;) {
          if (this.i >= s.length) fail();
          const d = s[this.i]!;
          if (d === '"') {
            this.i++;
            break;
          }
          if (d === "`") fail();
          if (d === "\\") {
            const next = s[this.i + 1];
            if (next === undefined) fail();
            if ('$`"\\\n'.includes(next)) {
              if (next !== "\n") value += next;
              this.i += 2;
            } else {
              value += "\\";
              this.i++;
            }
          } else if (d === "$") {
            const expansion = this.readDollar();
            if (expansion === null) {
              value += "$";
              this.i++;
            } else {
              value += expansion;
              dynamic = true;
            }
          } else {
            value += d;
            this.i++;
          }
        }
      } else if (c === "\\") {
        const next = s[this.i + 1];
        if (next === undefined) fail();
        if (next !== "\n") value += next;
        this.i += 2;
      } else if (c === "`") {
        fail();
      } else if (c === "$") {
        if (s[this.i + 1] === "'") fail();
        if (s[this.i + 1] === '"') {
          // $"..." is a translatable string: the same as "..." here.
          this.i++;
          continue;
        }
        const expansion = this.readDollar();
        if (expansion === null) {
          value += "$";
          this.i++;
        } else {
          value += expansion;
          dynamic = true;
        }
      } else {
        if (c === "*" || c === "?" || c === "[") dynamic = true;
        // `{a,b}` and `{1..3}` expand into several words; a lone `{}` (xargs -I{}) stays as it is.
        if (c === "{" && this.braceExpands()) dynamic = true;
        value += c;
        this.i++;
      }
    }
    return { value, raw: s.slice(from, this.i), dynamic };
  }

  /** Whether the `{` at `i` starts a brace expansion (a comma or `..` before `}`); long ones count. */
  private braceExpands(): boolean {
    const s = this.s;
    for (let j = this.i + 1; j < Math.min(s.length, this.i + 256); j++) {
      const c = s[j]!;
      if (c === "}" || WORD_END.has(c)) return false;
      if (c === "," || (c === "." && s[j + 1] === ".")) return true;
    }
    return this.i + 256 < s.length;
  }

  /** A `$` expansion at `i`: its text (moving past it), or null when the `$` is literal. */
  private readDollar(): string | null {
    const s = this.s;
    const next = s[this.i + 1];
    if (next === "(") fail();
    if (next === "{") {
      const close = s.indexOf("}", this.i + 2);
      if (close < 0) fail();
      const inner = s.slice(this.i + 2, close);
      // Only a plain `${NAME}`: operators inside braces can assign or expand prompts.
      if (!/^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$/.test(inner)) fail();
      const out = s.slice(this.i, close + 1);
      this.i = close + 1;
      return out;
    }
    if (next !== undefined && NAME_START.test(next)) {
      let j = this.i + 1;
      while (j < s.length && NAME_CHAR.test(s[j]!)) j++;
      const out = s.slice(this.i, j);
      this.i = j;
      return out;
    }
    if (next !== undefined && SPECIAL_PARAMETER.test(next)) {
      const out = s.slice(this.i, this.i + 2);
      this.i += 2;
      return out;
    }
    return null;
  }
}

const OUTPUT_OPS = new Set([">", ">>", ">|", ">&", "&>", "&>>"]);

/** Whether a redirection writes to a file (anything but /dev/null or a descriptor copy). */
export function redirectWritesFile(redirect: ShellRedirect): boolean {
  const { op, target } = redirect;
  if (op === "<" || op === "<<<") return false;
  if (op === "<&" || op === ">&") {
    if (!target.dynamic && /^(?:\d+|-)$/.test(target.value)) return false;
    if (op === "<&") return true;
  }
  if (!OUTPUT_OPS.has(op)) return true;
  return target.dynamic || target.value !== "/dev/null";
}
