/**
 * Which field and variable names hold secrets, and which values under them get masked.
 *
 * A name is "strong" when whatever it holds is a credential (password, secret, api_key,
 * id_token...) and "weak" when it often holds ordinary data (token, key: tensor names, model
 * limits, cache keys), so a weak name's value is masked only when it looks like a credential.
 */

import { looksMasked } from "./redact-mask.js";

export type SecretStrength = "none" | "weak" | "strong";

/** Word pieces of a field or variable name: `apiKey`, `API_KEY`, `api-key` and `APIKey` all give [api, key]. */
export function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const STRONG_WORDS = new Set([
  "apikey",
  "authtoken",
  "authkey",
  "secretkey",
  "secret",
  "secrets",
  "password",
  "passwords",
  "passwd",
  "passphrase",
  "pass",
  "pw",
  "credential",
  "credentials",
  "pat",
  "authorization",
  "cookie",
  "bearer",
]);
const WEAK_WORDS = new Set(["token"]);
const STRONG_PAIRS = new Set([
  "api_key",
  "api_token",
  "access_key",
  "access_token",
  "auth_key",
  "auth_token",
  "refresh_token",
  "session_key",
  "session_token",
  "id_token",
  "bearer_token",
  "private_key",
  "secret_key",
  "client_secret",
  "key_material",
]);
/** A piece every secret word and pair holds: names without one are skipped cheaply. */
const SECRET_HINT = /token|key|secret|pass|pw|credential|pat|authorization|cookie|bearer/i;
/** Words after a secret word that still name its value (`secret_value`), unlike `token_count`. */
const VALUE_SUFFIXES = new Set(["value", "input", "material", "data", "raw", "plain", "plaintext", "string", "str"]);

/**
 * How strongly a name says its value is a secret. A secret word counts when it ends the name,
 * follows another word (`MY_TOKEN_COUNT`), or is followed only by words naming its value; a
 * name that merely starts with one (`token_count`, `password_policy`) is not secret. `key`
 * alone is too common: it counts only as the last word after another (`openai_key`).
 */
export function secretStrength(name: string): SecretStrength {
  if (!SECRET_HINT.test(name)) return "none";
  const parts = nameParts(name);
  const last = parts.length - 1;
  let anchored = false;
  let strong = false;
  for (let i = 0; i <= last; i++) {
    const word = parts[i]!;
    if (i > 0 && STRONG_PAIRS.has(`${parts[i - 1]}_${word}`)) {
      anchored = true;
      strong = true;
      continue;
    }
    const isStrong = STRONG_WORDS.has(word);
    if (!isStrong && !WEAK_WORDS.has(word) && !(word === "key" && i > 0 && i === last)) continue;
    if (isStrong) strong = true;
    if (i === last || i > 0 || parts.slice(i + 1).every((rest) => VALUE_SUFFIXES.has(rest))) anchored = true;
  }
  if (!anchored) return "none";
  return strong ? "strong" : "weak";
}

/** Whether a field or variable name says that its value is a secret (API_KEY, accessToken, db_password...). */
export function isSecretName(name: string): boolean {
  return secretStrength(name) !== "none";
}

/**
 * Whether a value has the shape of a credential rather than an ordinary word or number:
 * a long hex string, a long run of token characters, or 12+ characters mixing letter cases or
 * letters and digits.
 */
export function looksLikeCredential(value: string): boolean {
  if (value.length >= 16 && /^[A-Fa-f0-9]+$/.test(value)) return true;
  if (value.length >= 20 && /^[A-Za-z0-9_./+=-]+$/.test(value)) return true;
  if (value.length < 12) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((re) => re.test(value)).length;
  return classes >= 2;
}

/** A value that names where a secret comes from (`os.getenv(...)`, `process.env.X`), not the secret. */
const ENV_LOOKUP = /^(?:os\.(?:getenv|environ)|process\.env|\$ENV\{)/;

/** Type names and empty markers: `password: str` is an annotation, `token: null` holds nothing. */
const PLACEHOLDERS = /^(?:str|string|int|number|bool|boolean|float|bytes|any|none|null|nil|true|false|undefined)$/i;

const PASSWORD_WORDS = new Set(["password", "passwords", "passwd", "pass", "pw", "pws", "passphrase"]);

/** Whether a name says it holds a password (`DB_PASSWORD`, `mysqlPass`, `PW`), whatever it is assigned. */
export function isPasswordName(name: string): boolean {
  return nameParts(name).some((part) => PASSWORD_WORDS.has(part));
}

/** The start of a shell reference; the rest of its name is matched as ordinary path characters. */
const SHELL_VAR = "\\$(?:\\{[A-Za-z_][^}]*\\}|[A-Za-z_])";
/**
 * The whole value is a shell reference (`$HOME/.ssh/agent.sock`, `${XDG_RUNTIME_DIR}/gpg`, the
 * `$(gpgconf` of a command substitution) or a `/` or `~` path, possibly with more references in it.
 */
const PATH_OR_VAR = new RegExp(`^(?:${SHELL_VAR}|\\$\\(|~|/)(?:[\\w./:-]|${SHELL_VAR})*$`);
/** A path segment that is really a secret: 16+ characters without a dot mixing both cases and digits. */
const OPAQUE_SEGMENT = /^(?=[^.]*[a-z])(?=[^.]*[A-Z])(?=[^.]*[0-9])[^.]{16,}$/;

/**
 * Whether a value names a variable or a file rather than holding a secret. A reference always
 * does; a path does while none of its segments looks like a secret (an AWS secret key can start
 * with `/`).
 */
function isPathOrReference(value: string): boolean {
  if (!PATH_OR_VAR.test(value)) return false;
  return value[0] === "$" || !value.split("/").some((segment) => OPAQUE_SEGMENT.test(segment));
}

/**
 * Whether a value assigned to a name of the given strength should be masked. `name`, when
 * given, lets a password name mask a path or variable reference too (`DB_PASSWORD=$HOME/x`),
 * which other names (`SSH_AUTH_SOCK=$HOME/.ssh/agent.sock`) keep.
 */
export function shouldMaskValue(strength: SecretStrength, value: string, name?: string): boolean {
  if (strength === "none" || value === "" || looksMasked(value) || PLACEHOLDERS.test(value)) return false;
  // Env lookups and URLs (whose credentials the URL passes handle) are not credentials themselves.
  if (ENV_LOOKUP.test(value) || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false;
  if (isPathOrReference(value) && !(name !== undefined && isPasswordName(name))) return false;
  return strength === "strong" || looksLikeCredential(value);
}
