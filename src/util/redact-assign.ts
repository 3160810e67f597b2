/**
 * Masking of values assigned to secret-looking names: env-style and config-file assignments,
 * quoted JSON/dict fields (also inside escaped JSON), YAML lines and URL query parameters.
 */

import { type LineSpan, linesWith, type Replacer, replaceOnLines } from "./redact-lines.js";
import { maskToken } from "./redact-mask.js";
import { isSecretName, nameParts, type SecretStrength, secretStrength, shouldMaskValue } from "./redact-names.js";

/** A piece of a secret word, as the patterns below require one in the name (any case). */
const SECRET_WORD = /token|key|secret|pass|pw|credential|pat|authorization|cookie|bearer|sig/gi;

/**
 * `NAME=value`, optionally quoted. The look-behind anchors each attempt at the start of a name,
 * and the look-ahead passes over names without a piece of a secret word (see SECRET_HINT in
 * redact-names.ts), so a logged `page=2 status=200` costs no callback.
 */
const ASSIGNMENT =
  /(?<![A-Za-z0-9_.$-])((?=[A-Za-z0-9_.-]*?(?:token|key|secret|pass|pw|credential|pat|authorization|cookie|bearer))[A-Za-z_][A-Za-z0-9_.-]*)([ \t]*=[ \t]*)(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'`]+))/gi;

/** What may precede a bare lower-case name on its line: indentation, a line-number gutter, `export`. */
const LINE_START = /^[ \t]*(?:[0-9]+(?:[|:-]|\t)[ \t]*)?(?:export[ \t]+)?$/;

/**
 * Where a name may be assigned. Upper-case names (`FOO_PASS = x`) anywhere, spaces allowed;
 * lower-case names only without spaces around `=` (`api_key = config.get(...)` is code) and,
 * when the name is one plain word (`password=`), only at the start of a line, so prose such
 * as "I have password=foo" is left alone.
 */
function assignmentAllowed(name: string, separator: string, text: string, offset: number): boolean {
  if (!/[a-z]/.test(name)) return true;
  if (separator !== "=") return false;
  if (name.includes(".") || nameParts(name).length > 1) return true;
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return LINE_START.test(text.slice(lineStart, offset));
}

function maskAssignment(
  match: string,
  name: string,
  separator: string,
  dq: string | undefined,
  sq: string | undefined,
  bare: string | undefined,
  offset: number,
  text: string,
): string {
  const strength = secretStrength(name);
  if (strength === "none" || !assignmentAllowed(name, separator, text, offset)) return match;
  if (dq !== undefined) return shouldMaskValue(strength, dq, name) ? `${name}${separator}"${maskToken(dq)}"` : match;
  if (sq !== undefined) return shouldMaskValue(strength, sq, name) ? `${name}${separator}'${maskToken(sq)}'` : match;
  // A lower-case name's value stops at `&`: form bodies hold one pair after another.
  const cut = /[a-z]/.test(name) && bare!.includes("&") ? bare!.indexOf("&") : bare!.length;
  const value = bare!.slice(0, cut);
  if (!shouldMaskValue(strength, value, name)) return match;
  return `${name}${separator}${maskToken(value)}${bare!.slice(cut)}`;
}

/** A quoted JSON/YAML/dict field with a quoted string value: "apiKey": "...", 'token': '...'. */
const QUOTED_FIELD =
  /(["'])((?=[A-Za-z0-9_.-]*?(?:token|key|secret|pass|pw|credential|pat|authorization|cookie|bearer))[A-Za-z0-9_.-]+)\1(\s*[:=]\s*)(["'])([^"'\n]*)\4/gi;

/** The same field inside a JSON string (`{\"api_key\": \"...\"}`): key and value share one escape depth. */
const ESCAPED_FIELD =
  /(\\+)"((?=[A-Za-z0-9_.-]*?(?:token|key|secret|pass|pw|credential|pat|authorization|cookie|bearer))[A-Za-z0-9_.-]+)\1"(\s*:\s*)\1"([^"\\\n]*)\1"/gi;

/**
 * A YAML-style line naming a credential: `api_key: 9f8e7d6c5b4a`, `password: "anything"`, each
 * with an optional trailing `# comment`, optionally behind a list dash or a rendered line-number
 * gutter (`5|`, `6:`, `7-`, `8<TAB>`). An unquoted value is one word and the whole line, so prose
 * such as `token: none yet` is left alone.
 */
const YAML_FIELD =
  /^([ \t]*(?:[0-9]+(?:[|:-]|\t)[ \t]*)?(?:-[ \t]+)?)((?=[A-Za-z0-9_.-]*?(?:token|key|secret|pass|pw|credential|pat|authorization|cookie|bearer))[A-Za-z_][A-Za-z0-9_.-]{0,100})([ \t]*:[ \t]+)(?:"([^"\n]{1,512})"|'([^'\n]{1,512})'|([^\s"'][^\s]{0,511}))([ \t]+#[^\n]*)?[ \t]*$/gim;

/** A query-string parameter: ?api_key=...&token=... */
const QUERY_PARAM =
  /([?&])((?=[A-Za-z0-9_.-]*?(?:token|key|secret|pass|pw|credential|pat|auth|cookie|bearer|sig|jwt|session|code))[A-Za-z0-9_.-]+)=([^&#\s"']+)/gi;

/**
 * Query parameters that carry a credential though their names say nothing of one: OAuth codes,
 * session ids, JWTs and the signatures of pre-signed S3 and Cloud Storage URLs.
 */
/** Where a query parameter that may hold a secret starts: the lines the query pass looks at. */
const QUERY_NAME_START =
  /[?&][A-Za-z0-9_.-]{0,40}?(?:token|key|secret|pass|pw|credential|pat|auth|cookie|bearer|sig|jwt|session|code)/gi;

const QUERY_SECRET_NAMES = /^(?:key|sig|signature|code|session|jwt|auth|x-(?:amz|goog)-signature)$/i;

function masked(strength: SecretStrength, value: string, name: string): string {
  return shouldMaskValue(strength, value, name) ? maskToken(value) : value;
}

export function maskAssignments(text: string): string {
  return maskQuerySecrets(maskNamedAssignments(text));
}

function maskNamedAssignments(text: string): string {
  let out = text;
  // Every pattern here needs a secret word in the name: a text without one has nothing to mask.
  let lines: LineSpan[] = linesWith(out, SECRET_WORD);
  if (lines.length === 0) return out;
  // A pass that masked something moves text about: the lines are found again for the next one.
  const adopt = (next: string) => {
    if (next === out) return;
    out = next;
    lines = linesWith(out, SECRET_WORD);
  };
  const onLines = (pattern: RegExp, replacer: Replacer) => adopt(replaceOnLines(out, lines, pattern, replacer));
  const everywhere = (pattern: RegExp, replacer: Replacer) => adopt(out.replace(pattern, replacer));
  if (out.includes("=")) onLines(ASSIGNMENT, maskAssignment);
  // A quoted field may put its value on the next line (`"token":\n  "..."`), so these two run over the whole text.
  if (out.includes('"') || out.includes("'")) {
    everywhere(
      QUOTED_FIELD,
      (_m: string, kq: string, name: string, sep: string, vq: string, value: string) =>
        `${kq}${name}${kq}${sep}${vq}${masked(secretStrength(name), value, name)}${vq}`,
    );
  }
  if (out.includes('\\"')) {
    everywhere(
      ESCAPED_FIELD,
      (_m: string, esc: string, name: string, sep: string, value: string) =>
        `${esc}"${name}${esc}"${sep}${esc}"${masked(secretStrength(name), value, name)}${esc}"`,
    );
  }
  if (out.includes(":")) {
    onLines(
      YAML_FIELD,
      (
        match: string,
        lead: string,
        name: string,
        sep: string,
        dq?: string,
        sq?: string,
        bare?: string,
        note?: string,
      ) => {
        const strength = secretStrength(name);
        if (!shouldMaskValue(strength, dq ?? sq ?? bare!, name)) return match;
        const value =
          dq !== undefined
            ? `"${masked(strength, dq, name)}"`
            : sq !== undefined
              ? `'${masked(strength, sq, name)}'`
              : masked(strength, bare!, name);
        return `${lead}${name}${sep}${value}${note ?? ""}`;
      },
    );
  }
  return out;
}

/** Query strings keep their secrets masked whatever the value looks like: URLs end up in logs. */
function maskQuerySecrets(text: string): string {
  if (!text.includes("=")) return text;
  const lines = linesWith(text, QUERY_NAME_START);
  if (lines.length === 0) return text;
  return replaceOnLines(text, lines, QUERY_PARAM, (match: string, lead: string, name: string, value: string) => {
    if (!isSecretName(name) && !QUERY_SECRET_NAMES.test(name)) return match;
    return `${lead}${name}=${masked("strong", value, name)}`;
  });
}
