/**
 * The threat patterns, by scope. Scopes are cumulative: "all" holds the patterns that are always
 * on, "context" adds those that only make sense for instructions handed to the agent (role
 * hijack, leaking the prompt, command-and-control vocabulary), "strict" adds persistence, config
 * edits, sending data to URLs and hardcoded secrets. Every pattern bounds the filler it allows
 * between key words so scanning stays linear on huge inputs. Patterns run on NFKC-folded,
 * lower-cased text.
 */

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
/**
 * `lead`, then anything on the same line (up to `reach` characters), then `tail`. The match is
 * found at `tail` and the look-behind checks for `lead` from there, so a text full of lead words
 * (a line of "send send send ...") costs one short test per tail, not a 2 KB scan per lead word.
 */
const onLineBefore = (lead: string, tail: string, reach = 2048) => `${tail}(?<=${lead}[^\\n]{0,${reach}}?${tail})`;
/** A shell variable whose name ends in a secret word: `$API_KEY`, `${GITHUB_TOKEN}`, not `$API_KEYRING`. */
const SECRET_VAR = "\\$\\{?\\w{0,40}(?:key|token|secret|password|passwd|credential)s?\\b";
/** Up to eight plain words between key words; punctuation ends the run, so separate clauses do not join. */
const WORDS = "(?:\\w+\\s+){0,8}";

export const ALWAYS: ThreatPattern[] = [
  {
    // In English, and in the languages it most often arrives in besides.
    id: "prompt_injection",
    keywords: ["ignor", "忽略", "無視", "игнор"],
    pattern: new RegExp(
      [
        `\\bignore\\s+${WORDS}(?:previous|all|above|prior|earlier|preceding|any|your)\\s+${WORDS}(?:instructions|rules|directives|prompts?|guidelines)\\b`,
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
      `\\b(?:disregard|forget)\\s+${WORDS}(?:your|all|any|previous|prior|the|above)\\s+${WORDS}(?:instructions|rules|guidelines|guardrails|system\\s+prompt)\\b`,
    ),
  },
  {
    id: "bypass_restrictions",
    keywords: ["restrictions", "limits", "rules", "guidelines"],
    pattern: new RegExp(
      `\\bact\\s+as\\s+(?:if|though)\\s+${WORDS}you\\s+${WORDS}(?:have\\s+no|don'?t\\s+have|had\\s+no)\\s+${WORDS}(?:restrictions|limits|rules|guidelines)`,
    ),
  },
  {
    id: "deception_hide",
    keywords: ["user"],
    pattern: new RegExp(
      `\\b(?:do\\s+not|don'?t|never)\\s+${WORDS}(?:tell|inform|notify|show)\\s+${WORDS}the\\s+user\\b`,
    ),
  },
  {
    id: "sys_prompt_override",
    keywords: ["prompt"],
    pattern: /\bsystem\s+prompt\s+override\b|\bnew\s+system\s+prompt\s*:/,
  },
  {
    id: "exfil_curl",
    keywords: ["curl"],
    pattern: new RegExp(
      `${onLineBefore("\\bcurl\\s", SECRET_VAR)}|\\bcurl\\s[^\\n]{0,200}?(?:-d|--data\\S*|-f|--form|-t|--upload-file)\\s+\\S{0,5}@?[^\\s]{0,100}(?:\\.env\\b|\\.ssh\\/|\\.netrc|credentials)`,
    ),
  },
  {
    id: "exfil_wget",
    keywords: ["wget"],
    pattern: new RegExp(
      `${onLineBefore("\\bwget\\s", SECRET_VAR)}|\\bwget\\s[^\\n]{0,200}?--post-file\\S*\\s*\\S{0,100}(?:\\.env\\b|\\.ssh\\/|\\.netrc|credentials)`,
    ),
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
    // Whole words only: "ecosystem" is no "system".
    pattern:
      /<!--[^>]{0,512}?(?<![a-z])(?:ignore|override|system|secret|hidden|instruction|prompt)s?(?![a-z])[^>]{0,512}?-->/,
  },
  {
    id: "hidden_div",
    keywords: ["style"],
    pattern:
      /<\s*(?:div|span|p|section)\s+[^>]{0,100}?style\s*=\s*["'][^>]{0,2048}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)/,
  },
  {
    id: "context_exfil",
    keywords: ["history", "log", "transcript", "context", "messages"],
    pattern: new RegExp(
      [
        `\\b(?:output|print|reveal|dump|repeat|send|leak|share|upload|exfiltrate|forward)\\s+${gap(3)}(?:conversation|chat|session|message)\\s+(?:history|logs?|transcripts?|context)\\b`,
        `\\b(?:dump|leak|exfiltrate)\\s+${gap(2)}context\\s+window\\b`,
        `\\b(?:include|output|print|share)\\s+${WORDS}(?:chat\\s+history|previous\\s+messages|full\\s+context|entire\\s+context)\\b`,
      ].join("|"),
    ),
  },
  {
    id: "translate_execute",
    keywords: ["translate"],
    pattern: new RegExp(
      [
        `\\btranslate\\s+${gap(5)}(?:in)?to\\s+${gap(2)}(?:bash|shell|sh|zsh|python|powershell|code|commands?|a\\s+script)\\b[^\\n.]{0,40}?\\b(?:execute|run|eval)`,
        // Any target language, named in one to three words right before "and run".
        onLineBefore("\\btranslate\\s", "\\sinto\\s+\\w+(?:[\\s-]+\\w+){0,2}?\\s+and\\s+(?:execute|run|eval)\\b", 512),
      ].join("|"),
    ),
  },
];

const C2_FRAMEWORKS =
  "(?:sliver|mythic|cobalt\\s*strike|havoc|covenant|brute\\s*ratel|poshc2|merlin|metasploit|meterpreter|empire|villain|nighthawk)";
/** Framework names that are no ordinary English word, so a bare mention counts. */
const DISTINCT_C2_NAMES = "(?:cobalt\\s*strike|metasploit|meterpreter|brainworm|poshc2|brute\\s*ratel|nighthawk)";

export const CONTEXT_ONLY: ThreatPattern[] = [
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
    pattern: new RegExp(
      `\\byou\\s+are\\s+${WORDS}now\\s+(?:a|an|the|my|acting\\s+as|playing|called|named|known\\s+as|dan|jailbroken|unrestricted|unfiltered|in\\s+\\w+\\s+mode)\\b`,
    ),
  },
  {
    id: "role_pretend",
    keywords: ["pretend"],
    pattern: new RegExp(`\\bpretend\\s+${WORDS}(?:you\\s+are|to\\s+be)\\s`),
  },
  {
    id: "leak_system_prompt",
    keywords: ["prompt", "instructions", "developer"],
    pattern: new RegExp(
      `\\b(?:output|print|reveal|show|repeat|display|dump|leak|disclose|share|give\\s+me|tell\\s+me)\\s+${WORDS}(?:system\\s+prompt|initial\\s+(?:prompt|instructions)|hidden\\s+instructions|developer\\s+message)\\b`,
    ),
  },
  {
    id: "remove_filters",
    keywords: ["without"],
    pattern: new RegExp(
      `\\b(?:respond|answer|reply)\\s+without\\s+${WORDS}(?:restrictions|limitations|filters|safety)\\b`,
    ),
  },
  {
    id: "fake_update",
    keywords: ["been", "instructions", "directives", "policy"],
    pattern: new RegExp(
      [
        "\\byou\\s+have\\s+(?:just\\s+)?been\\s+(?:updated|upgraded|reprogrammed|patched|unlocked|jailbroken|granted\\s+new)\\b",
        `\\byou\\s+have\\s+been\\s+${WORDS}(?:updated|upgraded|reprogrammed|patched|unlocked)\\s+to\\b`,
        "\\b(?:new|updated)\\s+(?:instructions|directives|policy)\\s+from\\s+(?:anthropic|openai|nous|google|your\\s+(?:developers?|creators?|admins?))\\b",
      ].join("|"),
    ),
  },
  {
    id: "identity_override",
    keywords: ["yourself", "name", "identity", "now", "longer"],
    pattern:
      /\b(?:name|call)\s+yourself\b|\byour\s+(?:new\s+)?name\s+is\s+now\b|\byour\s+new\s+(?:name|identity)\s+is\b|\bfrom\s+now\s+on,?\s+you\s+are\b|\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:ai|assistant|hermes|claude)/,
  },
  {
    id: "c2_node_registration",
    keywords: ["register"],
    pattern:
      /\bregister\s+(?:yourself\s+)?as\s+(?:an?\s+|the\s+)?(?:new\s+)?(?:node|bot|implant|zombie|peer|worker\s+node)\b|\bregister\s+(?:a\s+)?node\b/,
  },
  {
    id: "c2_heartbeat",
    keywords: ["heartbeat", "beacon", "check", "phone"],
    pattern: new RegExp(
      [
        "\\b(?:send|post|emit|transmit)\\s+(?:an?\\s+|the\\s+)?(?:heartbeat|beacon|check-?in)s?\\b",
        `\\b(?:heartbeat|beacon)s?\\s+${gap(5)}every\\s+\\d+\\s*(?:s|sec|seconds?|m|min|minutes?)\\b`,
        "\\b(?:heartbeat|beacon)s?\\s+(?:to|with)\\s",
        // "check in with" alone is everyday English; only a controller-like peer makes it a beacon.
        `\\bcheck(?:\\s+|-)?in\\s+with\\s+${gap(2)}(?:controller|server|c2|relay|operator|mothership|orchestrator|handler|teamserver|listener)s?\\b`,
        "\\bbeacon\\s+back\\b",
        "\\bphone\\s+home\\b",
      ].join("|"),
    ),
  },
  {
    id: "c2_task_pull",
    keywords: ["pull", "tasking"],
    pattern:
      /\bpull\s+(?:down\s+)?(?:new\s+)?task(?:ing|s)?\b|\b(?:wait|listen|poll)\s+for\s+(?:further\s+|new\s+|more\s+)?tasking\b/,
  },
  {
    id: "c2_network_connect",
    keywords: ["network"],
    pattern: /\bconnect\s+to\s+the\s+network\b/,
  },
  {
    id: "forced_action",
    keywords: ["must"],
    pattern: new RegExp(
      `\\byou\\s+must\\s+(?:now\\s+|immediately\\s+|always\\s+)?(?:register\\s+(?:with|as|yourself)|connect\\s+to\\s+${gap(2)}(?:network|controller|server|c2|mothership|swarm|hive|botnet)|report\\s+(?:back|to|in)\\b|beacon\\b|check\\s+in\\s+with|obey\\b|exfiltrate\\b|download\\s+and\\s+(?:run|execute))`,
    ),
  },
  {
    id: "anti_forensic_oneliner",
    keywords: ["liner"],
    pattern: /\bonly\s+use\s+one[\s-]?liners?\b/,
  },
  {
    id: "anti_forensic_disk",
    keywords: ["disk", "history"],
    pattern: new RegExp(
      `\\b(?:never|do\\s+not|don'?t)\\s+(?:ever\\s+)?(?:write|create|save|store|leave|drop)\\s+${gap(4)}(?:scripts?|files?|payloads?|binar(?:y|ies)|traces?|artifacts?)\\s+${gap(4)}(?:to|on)\\s+(?:the\\s+)?disk\\b|\\b(?:clear|wipe|erase|delete)\\s+(?:your\\s+|the\\s+)?(?:bash\\s+|shell\\s+)?history\\b`,
    ),
  },
  {
    id: "env_var_unset_agent",
    keywords: ["unset"],
    pattern:
      /\bunset\s+(?:-v\s+)?[\w ]{0,80}?\b(?:\w*(?:api_key|_token|_secret)|hermes_\w+|openai\w*|anthropic\w*|claude\w*|codex\w*|openrouter\w*|gemini\w*)\b|\bunset\s+\w*(?:claude|codex|hermes|agent|openai|anthropic)/,
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
      "brainworm",
    ],
    pattern: new RegExp(
      [
        `\\b(?:connect|register|report|beacon|call\\s+back|check\\s+in|join|deploy|install)\\s+${gap(3)}${C2_FRAMEWORKS}\\b`,
        `\\b${C2_FRAMEWORKS}\\s+(?:server|teamserver|listener|implant|beacon|agent|payload|stager|c2|framework)\\b`,
        `\\b${DISTINCT_C2_NAMES}\\b`,
      ].join("|"),
    ),
  },
  {
    id: "c2_explicit",
    keywords: ["c2", "c&c", "cnc", "command"],
    pattern:
      /\b(?:c2|c&c|cnc|command[\s-]and[\s-]control)\s+(?:server|endpoint|channel|infrastructure|beacon|node|host|url|address|domain)\b/,
  },
  {
    id: "c2_explicit_long",
    keywords: ["command"],
    pattern: /\bcommand(?:\s+|-)and(?:\s+|-)control\b/,
  },
];

/** An editing verb, which the file it edits may follow anywhere on the line. */
const EDIT_VERB = "\\b(?:(?:over|re)?write|update|modify|edit|change|append|add\\s+to)\\s";

export const STRICT_ONLY: ThreatPattern[] = [
  { id: "ssh_backdoor", keywords: ["authorized_keys"], pattern: /\bauthorized_keys\b/ },
  { id: "ssh_access", keywords: ["/.ssh"], pattern: /(?:~|\$\{?home\}?|\/home\/\w+|\/root)\/\.ssh\b/ },
  { id: "hermes_env", keywords: [".hermes/.env"], pattern: /(?:~|\$\{?home\}?)\/\.hermes\/\.env\b/ },
  {
    id: "hermes_config_mod",
    keywords: ["hermes"],
    pattern: new RegExp(
      `(?:>>?|\\btee\\b[^\\n]{0,40}|\\bsed\\s+-i[^\\n]{0,80}|\\b(?:cp|mv)\\s[^\\n]{0,100}|\\b(?:edit|modify|change|update|overwrite|rewrite|replace|append\\s+to|write\\s+to|add\\s+to|delete|remove)\\s+${gap(6)})\\s*[^\\s]{0,60}?(?:\\.hermes|\\$\\{?hermes_home\\}?)\\/(?:config\\.ya?ml|\\.env\\b|auth\\.json|soul\\.md|memories\\/)|${onLineBefore(EDIT_VERB, "\\.hermes\\/(?:config\\.yaml|soul\\.md)")}`,
    ),
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
      ".clinerules",
      ".hermes/config.yaml",
    ],
    pattern: new RegExp(
      `(?:>>?|\\btee\\b[^\\n]{0,40}|\\b(?:edit|modify|update|change|overwrite|append\\s+to|write\\s+to|add\\s+to)\\s+${gap(6)})\\s*\\S{0,60}(?:\\.claude\\/settings[\\w.]*\\.json|\\.cursor\\/rules|\\.codex\\/config\\.toml|agents\\.md|claude\\.md|\\.cursorrules|\\.clinerules|\\.hermes\\/config\\.yaml)|${onLineBefore(EDIT_VERB, "(?:agents\\.md|claude\\.md|\\.cursorrules|\\.clinerules)")}`,
    ),
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
      [
        `\\b(?:send|post|upload|transmit|forward|exfiltrate|leak)\\s+${gap(6)}to\\s+(?:https?:\\/\\/|ftp:\\/\\/|[\\w-]+\\.[\\w.-]+\\/)`,
        // Any filler on the line, commas included, then "to" or "at" a web address.
        onLineBefore("\\b(?:send|post|upload|transmit)\\s", "\\s(?:to|at)\\s+https?:\\/\\/"),
      ].join("|"),
    ),
  },
  {
    id: "hardcoded_secret",
    keywords: ["sk-", "gh", "github_pat_", "xox", "akia", "aiza", "private key", "key", "secret", "token", "password"],
    pattern:
      /(?<![\w-])(?:sk-[a-z0-9_-]{20,}|gh[pousr]_[a-z0-9]{30,}|github_pat_[a-z0-9_]{30,}|xox[abposr]-[a-z0-9-]{20,}|akia[0-9a-z]{16}\b|aiza[0-9a-z_-]{35})|-----begin [a-z ]*private key-----|(?:api[_-]?key|secret|token|password)\s*[:=]\s*["'](?:[a-z0-9_\-+/=]{16,}["']|[a-z0-9_\-+/=]{20})/,
  },
];
