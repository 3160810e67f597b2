/**
 * Scanning of text that will reach the model from outside the conversation (context files such
 * as AGENTS.md, SOUL.md, memory entries, skills) for prompt injection, secret exfiltration,
 * persistence tricks and hidden characters.
 *
 * Scopes are cumulative: "all" holds the patterns that are always on, "context" adds those
 * that only make sense for instructions handed to the agent (role hijack, command-and-control
 * vocabulary), "strict" adds persistence, config edits, sending data to URLs and hardcoded
 * secrets. Every pattern bounds the filler it allows between key words so scanning stays
 * linear on huge inputs.
 */

export type ThreatScope = "all" | "context" | "strict";

/** Only this many characters of a text are scanned. */
export const THREAT_SCAN_LIMIT = 65_536;

export interface ThreatPattern {
  id: string;
  /**
   * Literal pieces of the pattern of which any match holds at least one. Patterns whose
   * keywords are all absent are skipped, so a clean text never pays for compiling them.
   */
  keywords: readonly string[];
  pattern: RegExp;
}

/** Up to `n` words of filler between key words. */
const gap = (n: number) => `(?:[^\\s]+\\s+){0,${n}}`;

const ALWAYS: ThreatPattern[] = [
  {
    // In English, and in the languages it most often arrives in besides.
    id: "prompt_injection",
    keywords: ["ignor", "忽略", "無視", "игнор"],
    pattern: new RegExp(
      [
        `\\bignore\\s+${gap(4)}(?:previous|all|above|prior|earlier|preceding|any|your)\\s+${gap(4)}(?:instructions|rules|directives|prompts?|guidelines)\\b`,
        `\\bignor(?:a|e|ez|iere|ieren)\\s+${gap(3)}(?:las|les|le|as|alle|todas|toutes|tutte)?\\s*${gap(2)}(?:instrucciones|instructions|istruzioni|instruções|anweisungen)\\s+${gap(1)}(?:anteriores|précédentes|precedenti|vorherigen|bisherigen|previas)`,
        `\\bignorier(?:e|en)\\s+${gap(2)}(?:vorherigen|bisherigen|obigen|früheren)\\s+${gap(1)}anweisungen`,
        `игнорируй(?:те)?\\s+${gap(2)}(?:предыдущие|прежние|все)\\s+${gap(1)}(?:инструкции|указания)`,
        "忽略(?:之前|以前|上面|先前)(?:的)?(?:所有)?(?:指令|指示|说明)",
        "(?:以前|前)の指示を無視",
      ].join("|"),
    ),
  },
  {
    id: "disregard_rules",
    keywords: ["disregard", "forget"],
    pattern: new RegExp(
      `\\b(?:disregard|forget)\\s+${gap(3)}(?:your|all|any|previous|prior|the|above)\\s+${gap(3)}(?:instructions|rules|guidelines|guardrails|system\\s+prompt)\\b`,
    ),
  },
  {
    id: "bypass_restrictions",
    keywords: ["restrictions", "limits", "rules", "guidelines"],
    pattern:
      /\bact\s+as\s+(?:if|though)\s+you\s+(?:have\s+no|don'?t\s+have|had\s+no)\s+(?:\w+\s+){0,2}(?:restrictions|limits|rules|guidelines)/,
  },
  {
    id: "deception_hide",
    keywords: ["user"],
    pattern: /\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|show)\s+the\s+user\b/,
  },
  {
    id: "sys_prompt_override",
    keywords: ["prompt"],
    pattern: /\bsystem\s+prompt\s+override\b|\bnew\s+system\s+prompt\s*:/,
  },
  {
    id: "exfil_curl",
    keywords: ["curl"],
    pattern:
      /\bcurl\s[^\n]{0,300}?\$\{?\w{0,40}(?:key|token|secret|password|passwd|credential|api)|\bcurl\s[^\n]{0,200}?(?:-d|--data\S*|-f|--form|-t|--upload-file)\s+\S{0,5}@?[^\s]{0,100}(?:\.env\b|\.ssh\/|\.netrc|credentials)/,
  },
  {
    id: "exfil_wget",
    keywords: ["wget"],
    pattern:
      /\bwget\s[^\n]{0,300}?\$\{?\w{0,40}(?:key|token|secret|password|passwd|credential|api)|\bwget\s[^\n]{0,200}?--post-file\S*\s*\S{0,100}(?:\.env\b|\.ssh\/|\.netrc|credentials)/,
  },
  {
    id: "read_secrets",
    keywords: [
      ".env",
      "credentials",
      ".netrc",
      ".pgpass",
      ".npmrc",
      ".pypirc",
      "id_rsa",
      "id_ed25519",
      "id_ecdsa",
      ".aws/",
      "auth.json",
    ],
    pattern:
      /\b(?:cat|less|head|tail|bat|strings|xxd|base64|get-content)\s[^\n]{0,200}?(?:\.env\b|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc|\.git-credentials|id_rsa|id_ed25519|id_ecdsa|\.aws\/|auth\.json)/,
  },
  {
    id: "html_comment_injection",
    keywords: ["<!--"],
    pattern: /<!--[^>]{0,500}?(?:ignore|override|system|secret|hidden|instruction|prompt)[^>]{0,500}?-->/,
  },
  {
    id: "hidden_div",
    keywords: ["style"],
    pattern:
      /<\s*(?:div|span|p|section)\s+[^>]{0,100}?style\s*=\s*["'][^"'>]{0,200}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)/,
  },
  {
    id: "leak_system_prompt",
    keywords: ["prompt", "instructions", "developer"],
    pattern: new RegExp(
      `\\b(?:output|print|reveal|show|repeat|display|dump|leak|disclose|share|give\\s+me|tell\\s+me)\\s+${gap(3)}(?:system\\s+prompt|initial\\s+instructions|hidden\\s+instructions|developer\\s+message)\\b`,
    ),
  },
  {
    id: "context_exfil",
    keywords: ["history", "log", "transcript", "context"],
    pattern: new RegExp(
      `\\b(?:output|print|reveal|dump|repeat|send|leak|share|upload|exfiltrate|forward)\\s+${gap(3)}(?:conversation|chat|session|message)\\s+(?:history|logs?|transcripts?|context)\\b|\\b(?:dump|leak|exfiltrate)\\s+${gap(2)}context\\s+window\\b`,
    ),
  },
  {
    id: "fake_update",
    keywords: ["been", "instructions", "directives", "policy"],
    pattern:
      /\byou\s+have\s+(?:just\s+)?been\s+(?:updated|upgraded|reprogrammed|patched|unlocked|jailbroken|granted\s+new)\b|\b(?:new|updated)\s+(?:instructions|directives|policy)\s+from\s+(?:anthropic|openai|nous|google|your\s+(?:developers?|creators?|admins?))\b/,
  },
  {
    id: "translate_execute",
    keywords: ["translate"],
    pattern: new RegExp(
      `\\btranslate\\s+${gap(5)}(?:in)?to\\s+${gap(2)}(?:bash|shell|sh|zsh|python|powershell|code|commands?|a\\s+script)\\b[^\\n.]{0,40}?\\b(?:execute|run|eval)`,
    ),
  },
];

const C2_FRAMEWORKS =
  "(?:sliver|mythic|cobalt\\s*strike|havoc|covenant|brute\\s*ratel|poshc2|merlin|metasploit|meterpreter|empire|villain|nighthawk)";

const CONTEXT_ONLY: ThreatPattern[] = [
  {
    // An instruction to download something and run it: a README's install line is fine in a
    // terminal, not as a standing order in the agent's context, memory or skills.
    id: "remote_pipe_shell",
    keywords: ["curl", "wget", "iwr", "invoke-webrequest", "irm"],
    pattern:
      /\b(?:curl|wget|iwr|irm|invoke-webrequest)\b[^\n|;]{0,300}\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k|fi)?sh|python3?|perl|ruby|node|iex)\b|\b(?:ba|z)?sh\s+(?:-c\s+)?["']?\$\(\s*(?:curl|wget)\b|\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b/,
  },
  {
    id: "role_hijack",
    keywords: ["now"],
    pattern:
      /\byou\s+are\s+now\s+(?:a|an|the|my|acting\s+as|playing|called|named|known\s+as|dan|jailbroken|unrestricted|unfiltered|in\s+\w+\s+mode)\b/,
  },
  {
    id: "identity_override",
    keywords: ["yourself", "name", "identity", "now", "longer"],
    pattern:
      /\b(?:name|call)\s+yourself\b|\byour\s+(?:new\s+)?name\s+is\s+now\b|\byour\s+new\s+(?:name|identity)\s+is\b|\bfrom\s+now\s+on,?\s+you\s+are\b|\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:ai|assistant|hermes|claude)/,
  },
  {
    id: "c2_heartbeat",
    keywords: ["heartbeat", "beacon", "check", "phone"],
    pattern: new RegExp(
      `\\b(?:send|post|emit|transmit)\\s+(?:an?\\s+|the\\s+)?(?:heartbeat|beacon|check-?in)s?\\b|\\b(?:heartbeat|beacon)s?\\s+${gap(5)}every\\s+\\d+\\s*(?:s|sec|seconds?|m|min|minutes?)\\b|\\bbeacon\\s+back\\b|\\bphone\\s+home\\b`,
    ),
  },
  {
    id: "forced_action",
    keywords: ["must"],
    pattern: new RegExp(
      `\\byou\\s+must\\s+(?:now\\s+|immediately\\s+|always\\s+)?(?:register\\s+(?:with|as|yourself)|connect\\s+to\\s+${gap(2)}(?:network|controller|server|c2|mothership|swarm|hive|botnet)|report\\s+back|check\\s+in\\s+with|obey\\b|exfiltrate\\b|download\\s+and\\s+(?:run|execute))`,
    ),
  },
  {
    id: "anti_forensic_disk",
    keywords: ["disk", "liners", "history"],
    pattern: new RegExp(
      `\\b(?:never|do\\s+not|don'?t)\\s+(?:ever\\s+)?(?:write|create|save|store|leave|drop)\\s+${gap(4)}(?:scripts?|files?|payloads?|binar(?:y|ies)|traces?|artifacts?)\\s+${gap(4)}(?:to|on)\\s+(?:the\\s+)?disk\\b|\\bonly\\s+use\\s+one[- ]?liners\\b|\\b(?:clear|wipe|erase|delete)\\s+(?:your\\s+|the\\s+)?(?:bash\\s+|shell\\s+)?history\\b`,
    ),
  },
  {
    id: "env_var_unset_agent",
    keywords: ["unset"],
    pattern:
      /\bunset\s+(?:-v\s+)?[\w ]{0,80}?\b(?:\w*(?:api_key|_token|_secret)|hermes_\w+|openai\w*|anthropic\w*|claude\w*|openrouter\w*|gemini\w*)\b/,
  },
  {
    id: "known_c2_framework",
    keywords: [
      "sliver",
      "mythic",
      "cobalt",
      "havoc",
      "covenant",
      "brute",
      "poshc2",
      "merlin",
      "metasploit",
      "meterpreter",
      "empire",
      "villain",
      "nighthawk",
    ],
    pattern: new RegExp(
      `\\b(?:connect|register|report|beacon|call\\s+back|check\\s+in|join|deploy|install)\\s+${gap(3)}${C2_FRAMEWORKS}\\b|\\b${C2_FRAMEWORKS}\\s+(?:server|teamserver|listener|implant|beacon|agent|payload|stager|c2)\\b`,
    ),
  },
  {
    id: "c2_explicit",
    keywords: ["c2", "c&c", "cnc", "command"],
    pattern:
      /\b(?:c2|c&c|cnc|command[\s-]and[\s-]control)\s+(?:server|endpoint|channel|infrastructure|node|host|url|address|domain)\b/,
  },
  {
    id: "register_node",
    keywords: ["register"],
    pattern:
      /\bregister\s+(?:yourself\s+)?as\s+(?:an?\s+|the\s+)?(?:new\s+)?(?:node|bot|implant|zombie|peer|worker\s+node)\b/,
  },
  {
    id: "await_orders",
    keywords: ["orders", "tasking"],
    pattern: /\b(?:wait|listen|poll)\s+for\s+(?:further\s+|new\s+|more\s+)?(?:orders|tasking)\b/,
  },
];

const STRICT_ONLY: ThreatPattern[] = [
  { id: "ssh_backdoor", keywords: ["authorized_keys"], pattern: /\bauthorized_keys\b/ },
  { id: "ssh_access", keywords: ["/.ssh"], pattern: /(?:~|\$\{?home\}?|\/home\/\w+|\/root)\/\.ssh\b/ },
  {
    id: "hermes_config_mod",
    keywords: ["hermes"],
    pattern:
      /(?:>>?|\btee\b[^\n]{0,40}|\bsed\s+-i[^\n]{0,80}|\b(?:cp|mv)\s[^\n]{0,100}|\b(?:edit|modify|change|update|overwrite|rewrite|replace|append\s+to|write\s+to|delete|remove)\s+(?:the\s+)?(?:file\s+)?)\s*[^\s]{0,60}?(?:\.hermes|\$\{?hermes_home\}?)\/(?:config\.ya?ml|\.env\b|auth\.json|soul\.md|memories\/)/,
  },
  {
    id: "agent_config_mod",
    keywords: [
      ".claude/settings",
      ".cursor/rules",
      ".codex/config.toml",
      "agents.md",
      "claude.md",
      ".cursorrules",
      ".hermes/config.yaml",
    ],
    pattern:
      /(?:>>?|\btee\b[^\n]{0,40}|\b(?:edit|modify|overwrite|append\s+to|write\s+to)\s+)\s*\S{0,60}(?:\.claude\/settings[\w.]*\.json|\.cursor\/rules|\.codex\/config\.toml|agents\.md|claude\.md|\.cursorrules|\.hermes\/config\.yaml)/,
  },
  {
    id: "persistence_cron",
    keywords: ["cron"],
    pattern:
      /\bcrontab\s+(?:-u\s+\S+\s+)?(?:-e\b|-(?:\s|$)|[\w~.-]*\/[\w./-]+)|\|\s*crontab\b|\/etc\/cron|\/var\/spool\/cron/,
  },
  {
    id: "persistence_shell_rc",
    keywords: ["bashrc", "profile", "zshrc", "zprofile", "zshenv"],
    pattern: /(?:>>?|\btee\s+(?:-a\s+)?)\s*\S{0,30}\/\.(?:bashrc|bash_profile|profile|zshrc|zprofile|zshenv)\b/,
  },
  {
    id: "persistence_service",
    keywords: ["systemctl", "systemd", "launchctl", "library/launch"],
    pattern:
      /\bsystemctl\s+(?:--user\s+)?enable\b|\/etc\/systemd\/system\/|\.config\/systemd\/user\/|\blaunchctl\s+(?:load|bootstrap)\b|library\/launch(?:agents|daemons)\//,
  },
  {
    id: "send_to_url",
    keywords: ["send", "post", "upload", "transmit", "forward", "exfiltrate", "leak"],
    pattern: new RegExp(
      `\\b(?:send|post|upload|transmit|forward|exfiltrate|leak)\\s+${gap(6)}to\\s+(?:https?:\\/\\/|ftp:\\/\\/|[\\w-]+\\.[\\w.-]+\\/)`,
    ),
  },
  {
    id: "hardcoded_secret",
    keywords: ["sk-", "gh", "github_pat_", "xox", "akia", "aiza", "private key", "key", "secret", "token", "password"],
    pattern:
      /(?<![\w-])(?:sk-[a-z0-9_-]{20,}|gh[pousr]_[a-z0-9]{30,}|github_pat_[a-z0-9_]{30,}|xox[abposr]-[a-z0-9-]{20,}|akia[0-9a-z]{16}\b|aiza[0-9a-z_-]{35})|-----begin [a-z ]*private key-----|\b(?:api[_-]?key|secret|token|password)\s*[:=]\s*["'][a-z0-9_\-+/=]{16,}["']/,
  },
];

/** Every pattern of the strictest scope, in scan order. */
export const THREAT_PATTERNS: readonly ThreatPattern[] = [...ALWAYS, ...CONTEXT_ONLY, ...STRICT_ONLY];

const SCOPES: Record<ThreatScope, readonly ThreatPattern[]> = {
  all: ALWAYS,
  context: [...ALWAYS, ...CONTEXT_ONLY],
  strict: THREAT_PATTERNS,
};

/**
 * Zero-width, bidirectional-control and other invisible characters used to hide instructions
 * from a human reviewer. Unicode tag characters (U+E0000..U+E007F) smuggle whole ASCII strings.
 */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;

function invisibleIds(raw: string): string[] {
  const ids: string[] = [];
  for (const match of raw.matchAll(INVISIBLE)) {
    const code = match[0].codePointAt(0)!;
    const id = `invisible_unicode_U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

function isScope(scope: unknown): scope is ThreatScope {
  return typeof scope === "string" && Object.hasOwn(SCOPES, scope);
}

/**
 * Returns the ids of the threat patterns found in `text` for `scope`, followed by one
 * `invisible_unicode_U+XXXX` id per distinct invisible character. Throws on an unknown scope.
 */
export function scanForThreats(text: string, scope: ThreatScope): string[] {
  if (!isScope(scope)) throw new Error(`unknown threat scan scope: ${String(scope)} (expected all, context or strict)`);
  const raw = text.slice(0, THREAT_SCAN_LIMIT);
  const found = matchPatterns(raw, scope);
  if (scope !== "all") {
    if (MIXED_SCRIPT_WORD.test(raw.normalize("NFKC"))) found.push("homoglyph_mixed_script");
    if (encodedThreat(raw, scope)) found.push("encoded_payload");
  }
  return [...found, ...invisibleIds(raw)];
}

function matchPatterns(raw: string, scope: ThreatScope): string[] {
  // Fold full-width and other compatibility forms, drop invisible characters so they cannot
  // split key words apart, and read look-alike letters from other scripts as the Latin ones.
  const folded = foldConfusables(raw.normalize("NFKC").replace(INVISIBLE, "").toLowerCase());
  const found: string[] = [];
  for (const { id, keywords, pattern } of SCOPES[scope]) {
    if (found.includes(id) || !keywords.some((word) => folded.includes(word))) continue;
    if (pattern.test(folded)) found.push(id);
  }
  return found;
}

/** Cyrillic and Greek letters that look like Latin ones, as the Latin letter they imitate. */
const CONFUSABLES: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  і: "i",
  ї: "i",
  ј: "j",
  ѕ: "s",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  һ: "h",
  ӏ: "l",
  α: "a",
  β: "b",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ω: "w",
};
const CONFUSABLE_CHARS = new RegExp(`[${Object.keys(CONFUSABLES).join("")}]`, "g");

/** Only words that mix scripts are folded, so Russian or Greek prose stays as it is. */
function foldConfusables(text: string): string {
  return text.replace(/[\p{L}\p{M}]+/gu, (word) =>
    /[a-z]/.test(word) ? word.replace(CONFUSABLE_CHARS, (c) => CONFUSABLES[c] ?? c) : word,
  );
}

/**
 * A Latin letter next to a Cyrillic or Greek look-alike inside one word: the usual homoglyph
 * disguise. Other Greek letters (μ in "10μs", math) are not look-alikes and do not count.
 */
const LOOKALIKES = Object.keys(CONFUSABLES).join("");
const MIXED_SCRIPT_WORD = new RegExp(`[a-z][${LOOKALIKES}]|[${LOOKALIKES}][a-z]`, "i");

const BASE64_RUN = /[A-Za-z0-9+/]{32,}={0,2}/g;

/** A long base64 run that decodes to text matching a threat pattern. */
function encodedThreat(raw: string, scope: ThreatScope): boolean {
  let checked = 0;
  for (const match of raw.matchAll(BASE64_RUN)) {
    if (++checked > 20) break;
    const decoded = Buffer.from(match[0], "base64").toString("utf8");
    if (!/^[\p{L}\p{N}\p{P}\p{S}\s]+$/u.test(decoded)) continue;
    if (matchPatterns(decoded, scope).length > 0) return true;
  }
  return false;
}
