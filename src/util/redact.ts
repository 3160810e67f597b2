/**
 * Masking of secrets in free text (logs, tool output, transcripts) and in JSON-like values.
 *
 * A masked token of 18 or more characters keeps its first 6 and last 4 characters so a person
 * can still tell which credential was involved; shorter ones become "***".
 */

import { maskAssignments } from "./redact-assign.js";
import { maskKnownSecretValues } from "./redact-known.js";
import { type LineSpan, linesContaining, replaceOnLines } from "./redact-lines.js";
import { looksMasked, maskToken } from "./redact-mask.js";
import { secretStrength, shouldMaskValue } from "./redact-names.js";
import { maskKnownTokens } from "./redact-tokens.js";

export { maskToken } from "./redact-mask.js";
export { isSecretName } from "./redact-names.js";
export { TOKEN_SHAPES, type TokenShape } from "./redact-tokens.js";

const PRIVATE_KEY_BLOCK = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;

/** `scheme://user:password@host`: the password goes, the user and host stay. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s:/@]{1,256}):([^\s@/]{1,256})@/gi;

/**
 * `scheme://TOKEN@host`: a lone userinfo of 8+ characters is a credential (`git remote set-url
 * origin https://<token>@github.com/...`); short ones such as `git@` are user names.
 */
const URL_BARE_TOKEN = /\b((?:https?|wss?|git|ssh|ftps?|sftp):\/\/)([^\s:@/]{8,256})(?=@\S)/gi;

/** `Authorization: Bearer <token>` and bare `Bearer <token>` (a token has at least one digit). */
const BEARER = /\b(Bearer|Basic|Token)(\s+)(?=[A-Za-z0-9._~+/=-]{0,256}\d)([A-Za-z0-9._~+/=-]{12,})/gi;

/** An Authorization header with any scheme word (Digest, Negotiate, ...) and a token with a digit. */
const AUTH_HEADER =
  /\b((?:proxy-)?authorization[ \t]*[:=][ \t]*["']?[A-Za-z][A-Za-z0-9_.+-]*[ \t]+)(?=[A-Za-z0-9._~+/=-]{0,256}\d)([A-Za-z0-9._~+/=-]{12,})/gi;

/**
 * API-key headers, which carry one opaque value and no scheme word (`curl -H 'x-api-key: ...'`).
 * The value stops at white space or a quote, so a quoted header keeps its closing quote.
 */
const SECRET_HEADER =
  /\b((?:x-goog-api-key|x-api-key|x-api-token|x-auth-token|x-access-token|api-key|apikey)[ \t]*:[ \t]*)([^\s"']+)/gi;

/**
 * A phone number in E.164 form: `+`, a non-zero digit and 6 to 14 more. A longer digit run or
 * one running on into letters (an id, a hex string) is no phone number.
 */
const E164_PHONE = /\+[1-9][0-9]{6,14}(?![A-Za-z0-9])/y;

/** Keeps the first and last 4 characters of a phone number, 2 when it has 8 or fewer: `+141****2671`. */
function maskPhone(phone: string): string {
  const keep = phone.length <= 8 ? 2 : 4;
  return `${phone.slice(0, keep)}****${phone.slice(-keep)}`;
}

function maskValue(value: string): string {
  return shouldMaskValue("strong", value) ? maskToken(value) : value;
}

/** Whether `text` holds a word that can start an Authorization scheme, in any case. */
function mentionsAuthScheme(text: string): boolean {
  const lower = text.toLowerCase();
  return lower.includes("bearer") || lower.includes("basic") || lower.includes("token");
}

/** The lines that may hold a URL credential: both URL patterns need `://` and an `@` and hold no white space. */
function urlLines(text: string): LineSpan[] {
  if (!text.includes("@")) return [];
  return linesContaining(text, "://").filter(([start, end]) => text.slice(start, end).includes("@"));
}

function maskUrlCredentials(text: string): string {
  const lines = urlLines(text);
  if (lines.length === 0) return text;
  const out = replaceOnLines(
    text,
    lines,
    URL_CREDENTIALS,
    (_m: string, scheme: string, user: string, password: string) =>
      looksMasked(password) ? `${scheme}${user}:${password}@` : `${scheme}${user}:***@`,
  );
  const maskBare = (_m: string, scheme: string, token: string) => `${scheme}${maskValue(token)}`;
  return replaceOnLines(out, out === text ? lines : urlLines(out), URL_BARE_TOKEN, maskBare);
}

/** Masks phone numbers; a match can only start at a `+`, so the pattern is tried at each one. */
function maskPhones(text: string): string {
  let out = "";
  let copied = 0;
  for (let at = text.indexOf("+"); at !== -1; at = text.indexOf("+", at + 1)) {
    const next = text.charCodeAt(at + 1);
    if (next < 49 || next > 57) continue;
    E164_PHONE.lastIndex = at;
    const phone = E164_PHONE.exec(text)?.[0];
    if (phone === undefined) continue;
    out += text.slice(copied, at) + maskPhone(phone);
    copied = at + phone.length;
    at = copied - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function maskAuthorization(text: string): string {
  let out = text;
  const lower = out.toLowerCase();
  if (lower.includes("authorization")) {
    out = out.replace(AUTH_HEADER, (_m: string, header: string, token: string) => `${header}${maskValue(token)}`);
  }
  if (lower.includes("key") || lower.includes("-token")) {
    out = out.replace(SECRET_HEADER, (_m: string, header: string, value: string) => `${header}${maskValue(value)}`);
  }
  if (!mentionsAuthScheme(out)) return out;
  return out.replace(
    BEARER,
    (match: string, scheme: string, space: string, token: string, offset: number, whole: string) => {
      // "Basic" and "Token" are ordinary words; they are schemes only right after an Authorization header.
      const afterHeader = /authorization\s*[:=]\s*["']?$/i.test(whole.slice(Math.max(0, offset - 40), offset));
      if (!/^bearer$/i.test(scheme) && !afterHeader) return match;
      return `${scheme}${space}${maskValue(token)}`;
    },
  );
}

/** Masks secrets in free text. Text without secrets comes back unchanged. */
export function redactSecrets(text: string): string {
  if (typeof text !== "string" || text === "") return text;
  // Each pass runs only when the text holds a literal its pattern needs, so ordinary text
  // skips compiling patterns it cannot match.
  let out = text.includes("PRIVATE KEY-----") ? text.replace(PRIVATE_KEY_BLOCK, "[REDACTED PRIVATE KEY]") : text;
  out = maskKnownSecretValues(out);
  if (out.includes("://")) out = maskUrlCredentials(out);
  out = maskAssignments(out);
  out = maskAuthorization(out);
  out = maskKnownTokens(out);
  return maskPhones(out);
}

/**
 * Deep-redacts a JSON-like value: every string is passed through `redactSecrets`, and a string
 * stored under a secret-looking key is masked whatever its shape when the key is a strong one
 * (password, apiKey, ...), and when it looks like a credential under a weak one (token).
 */
export function redactObject<T>(value: T): T {
  return redactValue(value, undefined) as T;
}

function redactValue(value: unknown, key: string | undefined): unknown {
  if (typeof value === "string") {
    const strength = key === undefined ? "none" : secretStrength(key);
    return shouldMaskValue(strength, value, key) ? maskToken(value) : redactSecrets(value);
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, key));
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, k);
    return out;
  }
  return value;
}
