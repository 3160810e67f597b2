/**
 * Masking of secrets in free text (logs, tool output, transcripts) and in JSON-like values.
 *
 * A masked token of 18 or more characters keeps its first 6 and last 4 characters so a person
 * can still tell which credential was involved; shorter ones become "***".
 */

const MIN_PARTIAL_MASK_LENGTH = 18;

/** Masks one secret value. */
export function maskToken(token: string): string {
  if (token.length < MIN_PARTIAL_MASK_LENGTH) return "***";
  return `${token.slice(0, 6)}...${token.slice(-4)}`;
}

function looksMasked(value: string): boolean {
  return value === "***" || /^[^\s]{0,6}\.\.\.[^\s]{0,4}$/.test(value);
}

/** Word pieces of a field or variable name: `apiKey`, `API_KEY` and `api-key` all give [api, key]. */
function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const SECRET_WORDS = new Set([
  "apikey",
  "token",
  "secret",
  "password",
  "passwd",
  "passphrase",
  "credential",
  "credentials",
  "pat",
  "authorization",
  "cookie",
]);
const SECRET_PAIRS = new Set(["api_key", "access_key", "private_key", "secret_key", "client_secret", "auth_key"]);

/** Whether a field or variable name says that its value is a secret (API_KEY, accessToken, db_password...). */
export function isSecretName(name: string): boolean {
  const parts = nameParts(name);
  for (let i = 0; i < parts.length; i++) {
    if (SECRET_WORDS.has(parts[i]!)) return true;
    if (i > 0 && SECRET_PAIRS.has(`${parts[i - 1]}_${parts[i]}`)) return true;
  }
  return false;
}

export interface TokenShape {
  /**
   * Literal pieces of the pattern of which any match holds at least one (case-sensitive).
   * Shapes whose keywords are all absent are skipped, so ordinary text never pays for
   * compiling them.
   */
  keywords: readonly string[];
  pattern: RegExp;
}

/** Token shapes that are secrets wherever they appear. Order matters: longer prefixes first. */
export const TOKEN_SHAPES: readonly TokenShape[] = [
  // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), OpenRouter (sk-or-v1-) and other sk- keys.
  // A digit is required so prose such as "sk-learn-compatible" is left alone.
  { keywords: ["sk-"], pattern: /sk-(?=[A-Za-z0-9_-]{0,200}\d)[A-Za-z0-9_-]{10,}/g },
  // Stripe-style live/test keys.
  { keywords: ["live", "test"], pattern: /(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/g },
  // GitHub classic, OAuth, user-to-server, server-to-server and refresh tokens; fine-grained PATs.
  { keywords: ["gh"], pattern: /gh[pousr]_[A-Za-z0-9]{20,}/g },
  { keywords: ["github_pat_"], pattern: /github_pat_[A-Za-z0-9_]{20,}/g },
  // GitLab personal access tokens.
  { keywords: ["glpat-"], pattern: /glpat-[A-Za-z0-9_-]{16,}/g },
  // Slack bot/user/app tokens.
  { keywords: ["xox"], pattern: /xox[abposr]-[A-Za-z0-9-]{10,}/g },
  { keywords: ["xapp-"], pattern: /xapp-[A-Za-z0-9-]{10,}/g },
  // AWS access key ids.
  { keywords: ["AKIA", "ASIA"], pattern: /(?:AKIA|ASIA)[0-9A-Z]{16}/g },
  // Google API keys.
  { keywords: ["AIza"], pattern: /AIza[0-9A-Za-z_-]{30,}/g },
  // Hugging Face, Replicate, npm, PyPI, DigitalOcean, Groq, Perplexity, fal, Notion, Tavily,
  // Firecrawl, Exa, Matrix, SendGrid.
  { keywords: ["hf_"], pattern: /hf_[A-Za-z0-9]{20,}/g },
  { keywords: ["r8_"], pattern: /r8_[A-Za-z0-9]{20,}/g },
  { keywords: ["npm_"], pattern: /npm_[A-Za-z0-9]{20,}/g },
  { keywords: ["pypi-"], pattern: /pypi-[A-Za-z0-9_-]{20,}/g },
  { keywords: ["_v1_"], pattern: /do[opr]_v1_[A-Za-z0-9]{20,}/g },
  { keywords: ["gsk_"], pattern: /gsk_[A-Za-z0-9]{20,}/g },
  { keywords: ["pplx-"], pattern: /pplx-[A-Za-z0-9]{20,}/g },
  { keywords: ["fal_"], pattern: /fal_(?=[A-Za-z0-9_-]{0,200}\d)[A-Za-z0-9_-]{16,}/g },
  { keywords: ["ntn_"], pattern: /ntn_[A-Za-z0-9]{20,}/g },
  { keywords: ["tvly-"], pattern: /tvly-[A-Za-z0-9_-]{16,}/g },
  { keywords: ["fc-"], pattern: /fc-[A-Za-z0-9]{20,}/g },
  { keywords: ["exa_"], pattern: /exa_(?=[A-Za-z0-9_-]{0,200}\d)[A-Za-z0-9_-]{16,}/g },
  { keywords: ["syt_"], pattern: /syt_(?=[A-Za-z0-9_]{0,200}\d)[A-Za-z0-9_]{16,}/g },
  { keywords: ["SG."], pattern: /SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g },
  // JSON Web Tokens.
  { keywords: ["eyJ"], pattern: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // Telegram bot tokens.
  { keywords: [":AA"], pattern: /\d{8,10}:AA[A-Za-z0-9_-]{30,}/g },
];

/** Characters that may continue a token: a match must not start or end inside a longer word. */
const TOKEN_CHAR = /[A-Za-z0-9_-]/;

function maskKnownTokens(text: string): string {
  let out = text;
  for (const { keywords, pattern } of TOKEN_SHAPES) {
    if (!keywords.some((word) => out.includes(word))) continue;
    out = out.replace(pattern, (match: string, offset: number, whole: string) => {
      const before = whole[offset - 1];
      if (before !== undefined && TOKEN_CHAR.test(before)) return match;
      return maskToken(match);
    });
  }
  return out;
}

const PRIVATE_KEY_BLOCK = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;

/** `scheme://user:password@host`: the password goes, the user and host stay. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s:/@]{1,256}):([^\s@/]{1,256})@/gi;

/** `Authorization: Bearer <token>` and bare `Bearer <token>` (a token has at least one digit). */
const BEARER = /\b(Bearer|Basic|Token)(\s+)(?=[A-Za-z0-9._~+/=-]{0,256}\d)([A-Za-z0-9._~+/=-]{12,})/gi;

/** Env-style assignment: an upper-case name, optional `export `, then a quoted or bare value. */
const ENV_ASSIGNMENT = /\b([A-Z][A-Z0-9_]*)=("([^"\n]*)"|'([^'\n]*)'|([^\s"'`]+))/g;

/** A quoted JSON/YAML/dict field with a quoted string value: "apiKey": "...", 'token': '...'. */
const QUOTED_FIELD = /(["'])([A-Za-z0-9_.-]+)\1(\s*[:=]\s*)(["'])([^"'\n]*)\4/g;

/**
 * A YAML-style line naming a credential: `api_key: 9f8e7d6c5b4a`, `password: "anything"`, each
 * with an optional trailing `# comment`. An unquoted value must look like a token (a digit, 8+
 * characters), so prose such as `token: none yet` is left alone; a quoted one is taken whole.
 */
const YAML_FIELD =
  /^([ \t]*(?:-[ \t]+)?)([A-Za-z_][A-Za-z0-9_.-]{0,100})([ \t]*:[ \t]+)(?:"([^"\n]{1,512})"|'([^'\n]{1,512})'|(?=[^\s]{0,256}\d)([A-Za-z0-9_\-.+/=]{8,}))([ \t]+#[^\n]*)?[ \t]*$/gm;

/** A query-string parameter: ?api_key=...&token=... */
const QUERY_PARAM = /([?&])([A-Za-z0-9_.-]+)=([^&#\s"']+)/g;

function maskValue(value: string): string {
  if (value === "" || looksMasked(value) || /^\$[({A-Za-z_]/.test(value)) return value;
  return maskToken(value);
}

function maskAssignments(text: string): string {
  let out = text;
  if (out.includes("=")) {
    out = out.replace(
      ENV_ASSIGNMENT,
      (match: string, name: string, _q: string, dq?: string, sq?: string, bare?: string) => {
        if (!isSecretName(name)) return match;
        if (dq !== undefined) return `${name}="${maskValue(dq)}"`;
        if (sq !== undefined) return `${name}='${maskValue(sq)}'`;
        return `${name}=${maskValue(bare ?? "")}`;
      },
    );
  }
  if (out.includes('"') || out.includes("'")) {
    out = out.replace(
      QUOTED_FIELD,
      (match: string, kq: string, name: string, sep: string, vq: string, value: string) => {
        if (!isSecretName(name)) return match;
        return `${kq}${name}${kq}${sep}${vq}${maskValue(value)}${vq}`;
      },
    );
  }
  if (out.includes(":")) {
    out = out.replace(
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
        if (!isSecretName(name)) return match;
        const value =
          dq !== undefined ? `"${maskValue(dq)}"` : sq !== undefined ? `'${maskValue(sq)}'` : maskValue(bare ?? "");
        return `${lead}${name}${sep}${value}${note ?? ""}`;
      },
    );
  }
  if (out.includes("=")) {
    out = out.replace(QUERY_PARAM, (match: string, lead: string, name: string, value: string) => {
      if (!isSecretName(name) && !/^(?:key|sig|signature)$/i.test(name)) return match;
      return `${lead}${name}=${maskValue(value)}`;
    });
  }
  return out;
}

/** Whether `text` holds a word that can start an Authorization scheme, in any case. */
function mentionsAuthScheme(text: string): boolean {
  const lower = text.toLowerCase();
  return lower.includes("bearer") || lower.includes("basic") || lower.includes("token");
}

/** Masks secrets in free text. Text without secrets comes back unchanged. */
export function redactSecrets(text: string): string {
  if (typeof text !== "string" || text === "") return text;
  // Each pass runs only when the text holds a literal its pattern needs, so ordinary text
  // skips compiling patterns it cannot match.
  let out = text.includes("PRIVATE KEY-----") ? text.replace(PRIVATE_KEY_BLOCK, "[REDACTED PRIVATE KEY]") : text;
  if (out.includes("://")) {
    out = out.replace(URL_CREDENTIALS, (_m: string, scheme: string, user: string, password: string) =>
      looksMasked(password) ? `${scheme}${user}:${password}@` : `${scheme}${user}:***@`,
    );
  }
  out = maskAssignments(out);
  if (mentionsAuthScheme(out)) {
    out = out.replace(
      BEARER,
      (match: string, scheme: string, space: string, token: string, offset: number, whole: string) => {
        // "Basic" and "Token" are ordinary words; they are schemes only right after an Authorization header.
        const afterHeader = /authorization\s*[:=]\s*["']?$/i.test(whole.slice(Math.max(0, offset - 40), offset));
        if (!/^bearer$/i.test(scheme) && !afterHeader) return match;
        return `${scheme}${space}${maskValue(token)}`;
      },
    );
  }
  return maskKnownTokens(out);
}

/**
 * Deep-redacts a JSON-like value: every string is passed through `redactSecrets`, and a string
 * stored under a secret-looking key (apiKey, password, ...) is masked whatever its shape.
 */
export function redactObject<T>(value: T): T {
  return redactValue(value, undefined) as T;
}

function redactValue(value: unknown, key: string | undefined): unknown {
  if (typeof value === "string") {
    return key !== undefined && isSecretName(key) ? maskValue(value) : redactSecrets(value);
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, key));
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, k);
    return out;
  }
  return value;
}
