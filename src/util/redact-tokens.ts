/**
 * Token shapes that are secrets wherever they appear (vendor API keys, JWTs, bot tokens), and
 * their masking in free text, including tokens split apart by control or zero-width characters.
 */

import { maskToken } from "./redact-mask.js";
import { maskSplitTokens } from "./redact-split.js";

export interface TokenShape {
  /**
   * Literal pieces of the pattern of which any match holds at least one (case-sensitive).
   * Shapes whose keywords are all absent are skipped, so ordinary text never pays for
   * compiling them.
   */
  keywords: readonly string[];
  pattern: RegExp;
  /** How a match is masked; `maskToken` when absent. */
  mask?: (match: string) => string;
  /** Whether a match may start right after a letter, digit, `_` or `-` (default: no). */
  anywhere?: boolean;
}

/** Token shapes that are secrets wherever they appear. Order matters: longer prefixes first. */
export const TOKEN_SHAPES: readonly TokenShape[] = [
  // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), OpenRouter (sk-or-v1-) and other sk- keys, some
  // with single dots between body characters (sk-ws-H.EEPX...). A digit is required so prose
  // such as "sk-learn-compatible" is left alone; the body never ends on a dot.
  { keywords: ["sk-"], pattern: /sk-(?=[A-Za-z0-9_.-]{0,200}\d)[A-Za-z0-9_-](?:\.?[A-Za-z0-9_-]){9,}/g },
  // Stripe-style live/test keys.
  { keywords: ["live", "test"], pattern: /(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/g },
  // ElevenLabs.
  { keywords: ["sk_"], pattern: /sk_[A-Za-z0-9_]{30,}/g },
  // GitHub classic, OAuth, user-to-server, server-to-server and refresh tokens; fine-grained PATs.
  { keywords: ["gh"], pattern: /gh[pousr]_[A-Za-z0-9]{10,}/g },
  { keywords: ["github_pat_"], pattern: /github_pat_[A-Za-z0-9_]{10,}/g },
  // GitLab token families; runner tokens may be dotted.
  { keywords: ["gl"], pattern: /gl(?:pat|oas|dt|cbt|ptt|ft|imt|agent|soat|ffct|wt)-[A-Za-z0-9_-]{10,}/g },
  { keywords: ["glrt"], pattern: /glrtr?-[A-Za-z0-9_-](?:\.?[A-Za-z0-9_-]){9,}/g },
  { keywords: ["GR1348941"], pattern: /GR1348941[A-Za-z0-9_-]{10,}/g },
  // Slack bot/user/app tokens.
  { keywords: ["xox"], pattern: /xox[abposr]-[A-Za-z0-9-]{10,}/g },
  { keywords: ["xapp-"], pattern: /xapp-[A-Za-z0-9-]{10,}/g },
  // AWS access key ids.
  { keywords: ["AKIA", "ASIA"], pattern: /(?:AKIA|ASIA)[0-9A-Z]{16}/g },
  // age identities and recipients: exactly 58 bech32 characters (no b, i, o or 1), either case.
  // Recipients are public, but they look the same as identities and hiding one costs nothing.
  { keywords: ["AGE-SECRET-KEY-1"], pattern: /AGE-SECRET-KEY-1[02-9ac-hj-np-zAC-HJ-NP-Z]{58}(?![A-Za-z0-9_-])/g },
  { keywords: ["age1"], pattern: /age1[02-9ac-hj-np-zAC-HJ-NP-Z]{58}(?![A-Za-z0-9_-])/g },
  // Google API keys.
  { keywords: ["AIza"], pattern: /AIza[0-9A-Za-z_-]{30,}/g },
  // Google OAuth access tokens (Vertex AI, ...) and refresh tokens.
  { keywords: ["ya29."], pattern: /ya29\.[0-9A-Za-z_-]{20,}/g },
  { keywords: ["1//"], pattern: /1\/\/[0-9A-Za-z_-]{30,}/g },
  // Hugging Face, Replicate, npm, PyPI, DigitalOcean, Groq, Perplexity, fal, Notion, Tavily,
  // Firecrawl, Exa, Matrix, SendGrid.
  { keywords: ["hf_"], pattern: /hf_[A-Za-z0-9]{10,}/g },
  { keywords: ["r8_"], pattern: /r8_[A-Za-z0-9]{10,}/g },
  { keywords: ["npm_"], pattern: /npm_[A-Za-z0-9]{10,}/g },
  { keywords: ["pypi-"], pattern: /pypi-[A-Za-z0-9_-]{10,}/g },
  { keywords: ["_v1_"], pattern: /do[opr]_v1_[A-Za-z0-9]{10,}/g },
  { keywords: ["gsk_"], pattern: /gsk_[A-Za-z0-9]{10,}/g },
  { keywords: ["pplx-"], pattern: /pplx-[A-Za-z0-9]{10,}/g },
  { keywords: ["fal_"], pattern: /fal_(?=[A-Za-z0-9_-]{0,200}\d)[A-Za-z0-9_-]{10,}/g },
  { keywords: ["ntn_"], pattern: /ntn_[A-Za-z0-9]{10,}/g },
  { keywords: ["tvly-"], pattern: /tvly-[A-Za-z0-9_-]{10,}/g },
  { keywords: ["fc-"], pattern: /fc-[A-Za-z0-9]{10,}/g },
  { keywords: ["exa_"], pattern: /exa_(?=[A-Za-z0-9_-]{0,200}\d)[A-Za-z0-9_-]{10,}/g },
  { keywords: ["syt_"], pattern: /syt_(?=[A-Za-z0-9_]{0,200}\d)[A-Za-z0-9_]{10,}/g },
  { keywords: ["SG."], pattern: /SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g },
  // BrowserBase, Codex encrypted tokens, Hindsight, Mem0, ByteRover, RetainDB, Langfuse public keys.
  { keywords: ["bb_live_"], pattern: /bb_live_[A-Za-z0-9_-]{10,}/g },
  { keywords: ["gAAAA"], pattern: /gAAAA[A-Za-z0-9_=-]{20,}/g },
  { keywords: ["hsk-"], pattern: /hsk-[A-Za-z0-9]{10,}/g },
  { keywords: ["mem0_"], pattern: /mem0_[A-Za-z0-9]{10,}/g },
  { keywords: ["brv_"], pattern: /brv_[A-Za-z0-9]{10,}/g },
  { keywords: ["retaindb_"], pattern: /retaindb_[A-Za-z0-9]{10,}/g },
  { keywords: ["pk-lf-"], pattern: /pk-lf-[A-Za-z0-9-]{8,}/g },
  // AgentMail: the body has no `_` or `-`, which keeps `am_example_identifier_123` apart.
  { keywords: ["am_"], pattern: /am_(?:org_)?[A-Za-z0-9]{20,}(?![A-Za-z0-9_-])/g },
  // xAI and Fireworks.
  { keywords: ["xai-"], pattern: /xai-[A-Za-z0-9]{40,}/g },
  { keywords: ["fw", "fpk_"], pattern: /(?:fw[-_]|fpk_)[A-Za-z0-9]{30,}/g },
  // JSON Web Tokens: a header alone, or with one or two more dot parts.
  { keywords: ["eyJ"], pattern: /eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2}/g },
  // Telegram bot tokens: the bot id stays readable, the secret after the colon goes.
  {
    keywords: [":"],
    // A `bot` prefix stays as it is, so the match starts at the digits (quicker to find).
    pattern: /(?<![0-9])[0-9]{8,}:[A-Za-z0-9_-]{30,}/g,
    mask: (match) => `${match.slice(0, match.indexOf(":") + 1)}***`,
    anywhere: true,
  },
];

/** Characters that may continue a token: a match must not start inside a longer word. */
const TOKEN_CHAR = /[A-Za-z0-9_-]/;

/**
 * Ends with an escape sequence of JSON or log text (`\n`, `\u00e9`, `\x1b`): a token written
 * right after one (a JSONL transcript line) starts a new word even though a letter or digit
 * precedes it.
 */
const ESCAPE_BEFORE = /\\(?:[A-Za-z]|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2})$/;

function startsInsideWord(shape: TokenShape, text: string, offset: number): boolean {
  const before = text[offset - 1];
  if (shape.anywhere || before === undefined || !TOKEN_CHAR.test(before)) return false;
  return !ESCAPE_BEFORE.test(text.slice(Math.max(0, offset - 6), offset));
}

const KEYWORDS = [...new Set(TOKEN_SHAPES.flatMap((shape) => shape.keywords))];
/** Longest first, so that a keyword holding another (`glrt`, `gl`) is the one an alternation finds. */
const LONG_KEYWORDS = KEYWORDS.filter((word) => word.length > 1).sort((a, b) => b.length - a.length);
const ONE_CHARACTER_KEYWORDS = KEYWORDS.filter((word) => word.length === 1);
/** For each keyword, the shorter keywords inside it: found too wherever it is (`gl` in `glrt`). */
const INNER_KEYWORDS = new Map(
  LONG_KEYWORDS.map((word) => [
    word,
    LONG_KEYWORDS.filter((other) => other.length < word.length && word.includes(other)),
  ]),
);
let keywordScan: RegExp | undefined;

/**
 * The shapes' keywords that occur in `text`, found in one pass over it (searching for each of
 * some forty keywords in turn cost a 100 KB tool output about 1.5 ms).
 */
export function keywordsIn(text: string): Set<string> {
  keywordScan ??= new RegExp(LONG_KEYWORDS.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
  const found = new Set<string>();
  for (const match of text.matchAll(keywordScan)) {
    if (found.has(match[0])) continue;
    found.add(match[0]);
    for (const inner of INNER_KEYWORDS.get(match[0]) ?? []) found.add(inner);
  }
  for (const word of ONE_CHARACTER_KEYWORDS) if (text.includes(word)) found.add(word);
  return found;
}

/**
 * Zhipu keys carry no prefix: a 32-digit lower-case hex id, a dot and 16+ letters or digits.
 * A dot, dash or word character on either side means a file name such as `<md5>.sqlite3` or a
 * longer id instead.
 */
const ZHIPU_KEY = /(?<![A-Za-z0-9_.-])[0-9a-f]{32}\.[A-Za-z0-9]{16,}(?![A-Za-z0-9_.-])/g;

function isLowerHex(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 102);
}

/**
 * Whether some dot of `text` follows 32 lower-case hex digits. Almost every text has dots and
 * almost no dot follows even one hex digit run that long, so this costs far less than the
 * pattern itself.
 */
function mayHoldZhipuKey(text: string): boolean {
  for (let dot = text.indexOf(".", 32); dot !== -1; dot = text.indexOf(".", dot + 1)) {
    let digits = 0;
    while (digits < 32 && isLowerHex(text.charCodeAt(dot - 1 - digits))) digits++;
    if (digits === 32) return true;
  }
  return false;
}

/** Masks every known token shape in `text`, also where control characters split one. */
export function maskKnownTokens(text: string): string {
  let out = maskSplitTokens(text, TOKEN_SHAPES, keywordsIn, startsInsideWord);
  const present = keywordsIn(out);
  for (const shape of TOKEN_SHAPES) {
    if (!shape.keywords.some((word) => present.has(word))) continue;
    const mask = shape.mask ?? maskToken;
    out = out.replace(shape.pattern, (match: string, offset: number, whole: string) =>
      startsInsideWord(shape, whole, offset) ? match : mask(match),
    );
  }
  return mayHoldZhipuKey(out) ? out.replace(ZHIPU_KEY, maskToken) : out;
}
