/**
 * The shape of config.yaml: every key the agent reads, its default, and what it accepts.
 * Key names follow the original Hermes Agent so existing config files keep working.
 */
import { z } from "../util/schema/index.js";
import { bedrockSection } from "./config-bedrock.js";
import { DEFAULT_MODEL, REASONING_EFFORTS } from "./config-constants.js";
import {
  accepts,
  autoBoolOrList,
  autoOrBool,
  baseUrlText,
  bool,
  boolOrList,
  codingModeField,
  idList,
  integerAtLeast,
  integerBetween,
  nonEmptyText,
  numberBetween,
  oneOf,
  section,
  stringList,
  stringMap,
  text,
  textOrLines,
} from "./config-fields.js";
import {
  discordSection,
  gatewaySection,
  mattermostSection,
  platformsMap,
  slackSection,
  telegramSection,
} from "./config-gateway.js";
import { matrixSection } from "./config-matrix.js";
import { mcpSamplingSection } from "./config-mcp-sampling.js";
import { moaSection } from "./config-moa.js";
import { customProvidersSchema, providersSchema } from "./config-providers.js";
import { secretsSection } from "./config-secrets.js";
import {
  checkpointsSection,
  curatorSection,
  hooksSection,
  humanDelaySection,
  learningSection,
  permissionsSection,
  pluginsSection,
  skillsSection,
  streamingSection,
  timeZoneText,
} from "./config-sections.js";

export { DEFAULT_MODEL, REASONING_EFFORTS } from "./config-constants.js";

export const API_MODES = [
  "auto",
  "chat_completions",
  "codex_responses",
  "anthropic_messages",
  "bedrock_converse",
] as const;
export const POOL_STRATEGIES = ["fill_first", "round_robin", "random", "least_used"] as const;
export const AUXILIARY_TASKS = [
  "compression",
  "title",
  "vision",
  "web_extract",
  "session_search",
  "approval",
  "review",
  "curator",
  "goal_judge",
  "moa_reference",
  "moa_aggregator",
  "mcp",
] as const;
/** How much a session may do without asking (see docs/security.md). */
export const PERMISSION_MODES = ["plan", "ask", "auto-edit", "yolo"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
/** `tts.provider`: all but `neutts` work here; that one is the original's name, accepted so its configs load. */
export const TTS_PROVIDERS = ["edge", "openai", "elevenlabs", "gemini", "xai", "mistral", "neutts", "piper"] as const;
/** `image_gen.provider`. */
export const IMAGE_GEN_PROVIDERS = ["auto", "fal", "openai"] as const;
export const TERMINAL_BACKENDS = ["local", "docker", "ssh", "modal", "daytona", "singularity"] as const;

const modelSection = section({
  /** Model id sent to the provider. */
  default: text(DEFAULT_MODEL),
  /** Provider id or alias; "auto" picks one from the available credentials. */
  provider: text("auto"),
  /** API base URL for a custom or self-hosted endpoint ("" = the provider's own). */
  base_url: baseUrlText(),
  api_mode: oneOf(API_MODES).default("auto"),
  /** Context window override in tokens (0 = look it up). */
  context_length: integerAtLeast(0, 0),
  /** Output token cap per request (0 = provider default). */
  max_tokens: integerAtLeast(0, 0),
  /** Refuse models whose window is smaller than this many tokens (0 = allow any). */
  min_context_length: integerAtLeast(0, 64_000),
});

/** `model: some-id` is shorthand for `model: {default: some-id}`; the original writes `model: ""` for "not chosen". */
const model = z.preprocess(
  (value) => (typeof value === "string" ? (value.trim() ? { default: value } : {}) : value),
  modelSection,
);

/** One side task's model; `timeoutSeconds` is its default time limit per attempt (0 = none). */
const auxiliaryFields = (timeoutSeconds: number) => ({
  provider: text("auto"),
  model: text(""),
  base_url: baseUrlText(),
  /** The key for the configured provider or base_url ("" = the provider's usual variable). */
  api_key: text(""),
  max_tokens: integerAtLeast(0, 0),
  timeout: numberBetween(0, 86_400, timeoutSeconds),
  /** Fields merged into the request sent to the task's configured model. */
  extra_body: z.record(z.string(), z.unknown(), accepts("a mapping of request fields")).default({}),
});
const auxiliaryTask = (timeoutSeconds: number) => section(auxiliaryFields(timeoutSeconds));

/** Each task's time limit per attempt, in seconds (the original's defaults where it has the task). */
const AUXILIARY_TIMEOUTS: Record<(typeof AUXILIARY_TASKS)[number], number> = {
  compression: 120,
  title: 30,
  vision: 120,
  web_extract: 360,
  session_search: 30,
  approval: 30,
  review: 120,
  curator: 600,
  goal_judge: 30,
  moa_reference: 900,
  moa_aggregator: 900,
  mcp: 30,
};

const failureCounts = (exact: number, sameTool: number, noProgress: number) =>
  section({
    exact_failure: integerAtLeast(1, exact),
    same_tool_failure: integerAtLeast(1, sameTool),
    idempotent_no_progress: integerAtLeast(1, noProgress),
  });

const fallbackProvider = z.object(
  {
    provider: nonEmptyText(),
    model: nonEmptyText(),
    base_url: baseUrlText().optional(),
    api_mode: oneOf(API_MODES).optional(),
  },
  { error: () => "a mapping with provider and model" },
);

const mcpServer = z
  .object(
    {
      command: z.string({ error: () => "a string" }).optional(),
      args: stringList(),
      env: stringMap(),
      cwd: z.string({ error: () => "a string" }).optional(),
      url: z.string({ error: () => "a string" }).optional(),
      headers: stringMap(),
      enabled: bool(true),
      timeout: integerAtLeast(1, 120),
      connect_timeout: integerAtLeast(1, 60),
      tools: section({ include: stringList(), exclude: stringList() }),
      /** Our addition: run this stdio server inside the OS sandbox, when one is active. */
      sandbox: bool(false),
      sampling: mcpSamplingSection,
    },
    { error: () => "a mapping describing an MCP server" },
  )
  .refine((server) => Boolean(server.command) !== Boolean(server.url), {
    error: () => "a server with exactly one of `command` (stdio) or `url` (HTTP)",
  });

/** One of `lsp.servers`: the command that speaks LSP on stdio and the files it checks. */
const lspServer = z.object(
  {
    command: z
      .array(z.string(accepts("a string")), accepts("a list: the program, then its arguments"))
      .min(1, accepts("a list with at least the program")),
    extensions: z.array(z.string(accepts("a string")), accepts('a list of file extensions such as ".ts"')),
    root_markers: z.array(z.string(accepts("a string")), accepts("a list of file names")).optional(),
    initialization_options: z.record(z.string(), z.unknown(), accepts("a mapping of settings")).optional(),
  },
  accepts("a mapping with command (a list) and extensions"),
);

export const configSchema = z.object(
  {
    model,
    agent: section({
      max_turns: integerAtLeast(1, 90),
      /** Append every finished run to the ShareGPT trajectory files in HERMES_HOME. */
      save_trajectories: bool(false),
      reasoning_effort: oneOf(REASONING_EFFORTS).default(""),
      /** The provider's processing tier sent with each request ("" = the provider's default). */
      service_tier: text(""),
      /** Our addition: seconds to wait for the first byte of a model reply before retrying. */
      first_byte_timeout: numberBetween(0.1, 3600, 30),
      /** Our addition: a model reply larger than this (UTF-8 bytes) is cut with a note. */
      max_reply_bytes: integerAtLeast(1024, 1024 * 1024),
      /** Seconds a stopping gateway lets running turns finish before interrupting them. */
      restart_drain_timeout: numberBetween(0, 3600, 0),
      /** Seconds a chat turn may run before it is stopped (0 = no limit). */
      gateway_timeout: numberBetween(0, 86_400, 1800),
      /** Seconds into a chat turn at which the chat is told when it will be stopped (0 = never). */
      gateway_timeout_warning: numberBetween(0, 86_400, 900),
      /**
       * A chat turn cut short (a restart, the time limit) leaves a note; the chat's next message within
       * this many seconds tells the model to pick the unfinished work up (0 = however long ago).
       */
      gateway_auto_continue_freshness: numberBetween(0, 31_536_000, 3600),
      /** A chat that has seen nothing of a running turn for this many seconds gets a "still working" line (0 = never). */
      gateway_notify_interval: numberBetween(0, 86_400, 180),
      /** Retries of a failed provider call (after backoff) before falling back or giving up. */
      api_max_retries: integerAtLeast(0, 3),
      /**
       * Our addition: estimated tokens the tool schemas of a request may take; past it, MCP tools and
       * rarely used built-ins are reached through tool_search. 0 sends every schema.
       */
      tool_schema_budget: integerAtLeast(0, 3500),
      /** Toolsets taken away from whatever `toolsets` or `platform_toolsets` enable. */
      disabled_toolsets: stringList(),
      /** Your own words about this environment, added to the system prompt's environment layer. */
      environment_hint: text(""),
      /** Seconds a chat question (clarify) waits for the answer; 0 = five times approvals.timeout. */
      clarify_timeout: integerAtLeast(0, 0),
      /**
       * The "act through tools" guidance in the system prompt: auto (model families that tend to
       * narrate: gpt, codex, o-series, gemini, gemma, grok, glm), true or false for every model, or
       * a list of model-name fragments.
       */
      tool_use_enforcement: autoBoolOrList("model-name fragments"),
      /**
       * A reply that only announces what the model will do next, with no tool call, is answered
       * with "go ahead" (twice a turn at most): auto (the Responses API only), true, false, or a
       * list of model-name fragments.
       */
      intent_ack_continuation: autoBoolOrList("model-name fragments"),
      /** Prompt guidance to finish the task and never present made-up output as real. */
      task_completion_guidance: bool(true),
      /** Prompt guidance to batch independent tool calls into one reply. */
      parallel_tool_call_guidance: bool(true),
      /** A line in the prompt when Python's tooling is unusual here (no pip, PEP 668 without uv). */
      environment_probe: bool(true),
      /**
       * The coding posture: a coding brief and a workspace snapshot in the prompt. auto (terminal
       * and editor sessions inside a code workspace), focus (auto, plus the lean coding toolset),
       * on (everywhere), off.
       */
      coding_context: codingModeField(),
      /** Standing instructions added to the coding brief (a string or a list of lines). */
      coding_instructions: textOrLines(),
      /** Whether the verification nudge also explains what counts as checking the work. */
      verify_guidance: bool(true),
      /** The most verification nudges in one turn. */
      max_verify_nudges: integerAtLeast(0, 3),
      /**
       * After code edits, a final answer without a passing check since the last edit is sent back
       * once more with a request to verify: auto (on for terminal, editor and API sessions, off in
       * chats), true, false.
       */
      verify_on_stop: autoOrBool(),
      /**
       * How images sent in a chat reach the model: native (as image parts), text (described by the
       * vision task first), auto (native for models known to accept images, text otherwise).
       */
      image_input_mode: oneOf(["auto", "native", "text"] as const).default("auto"),
    }),
    /** The zone the system prompt states the time in and cron schedules default to ("" = this machine's). */
    timezone: timeZoneText(),
    toolsets: stringList(["hermes-cli"]),
    /** Toolsets per platform (cli, api_server, telegram, ...), in place of `toolsets` there. */
    platform_toolsets: z
      .record(z.string(), z.array(z.string(), { error: () => "a list of toolset names" }), {
        error: () => "a mapping of platform names to lists of toolsets",
      })
      .default({}),
    /** Our addition: where sessions, gateway, cron and API records live (docs/scale-out.md). */
    store: section({
      backend: oneOf(["sqlite", "postgres"] as const).default("sqlite"),
      /** postgres://user:password@host:5432/db (HERMES_DATABASE_URL wins). */
      postgres_url: text(""),
    }),
    compression: section({
      enabled: bool(true),
      threshold: numberBetween(0, 1, 0.5),
      target_ratio: numberBetween(0.1, 0.8, 0.2),
      protect_first_n: integerAtLeast(0, 3),
      protect_last_n: integerAtLeast(1, 20),
      /** A failed summary leaves the history whole instead of dropping turns unsummarized. */
      abort_on_summary_failure: bool(false),
      /** Gateway and API sessions compress between turns at this many messages (0: only by size). */
      hygiene_hard_message_limit: integerAtLeast(0, 5000),
      /** Compact in the same session, archiving what was condensed (false: continue in a child session). */
      in_place: bool(true),
      /** gpt-5.4-5.6 and GPT-6 on the Codex subscription route compress at 85% of their 272K window. */
      codex_gpt55_autoraise: bool(true),
    }),
    context: section({
      engine: text("compressor"),
    }),
    delegation: section({
      max_iterations: integerAtLeast(1, 50),
      max_concurrent_children: integerAtLeast(1, 3),
      /** Background subagents (delegate_task with background: true) running at once per process. */
      max_async_children: integerAtLeast(1, 3),
      max_spawn_depth: integerBetween(1, 3, 1),
      model: text(""),
      provider: text(""),
      /** An OpenAI-compatible endpoint for subagents (wins over provider); api_key "" = OPENAI_API_KEY. */
      base_url: text(""),
      api_key: text(""),
      api_mode: text(""),
      /** Reasoning effort of subagents ("" = the parent's). */
      reasoning_effort: oneOf(REASONING_EFFORTS).default(""),
      /** Characters of a subagent's summary handed back; longer ones are cut with a note. */
      max_summary_chars: integerAtLeast(100, 24_000),
      /** Seconds a subagent may run before it is interrupted (0 = no limit). */
      child_timeout_seconds: numberBetween(0, 86_400, 0),
      /** Whether subagents may take the orchestrator role and delegate again. */
      orchestrator_enabled: bool(true),
      /** Whether subagents get the parent's MCP tools. */
      inherit_mcp_toolsets: bool(true),
      /** Subagents' commands and guarded actions count as approved (hardline and permissions.deny still refuse). */
      subagent_auto_approve: bool(false),
    }),
    auxiliary: section({
      ...(Object.fromEntries(AUXILIARY_TASKS.map((task) => [task, auxiliaryTask(AUXILIARY_TIMEOUTS[task])])) as Record<
        Exclude<(typeof AUXILIARY_TASKS)[number], "title" | "vision">,
        ReturnType<typeof auxiliaryTask>
      >),
      vision: section({
        ...auxiliaryFields(AUXILIARY_TIMEOUTS.vision),
        /** Seconds vision_analyze may take to download an image from a URL. */
        download_timeout: numberBetween(1, 3600, 30),
      }),
      title: section({
        ...auxiliaryFields(AUXILIARY_TIMEOUTS.title),
        /** The language titles are written in ("" = the conversation's own). */
        language: text(""),
      }),
    }),
    prompt_caching: section({
      enabled: bool(true),
      cache_ttl: oneOf(["5m", "1h"]).default("5m"),
    }),
    tool_loop_guardrails: section({
      warnings_enabled: bool(true),
      hard_stop_enabled: bool(false),
      warn_after: failureCounts(2, 3, 2),
      hard_stop_after: failureCounts(5, 8, 5),
    }),
    memory: section({
      memory_enabled: bool(true),
      user_profile_enabled: bool(true),
      /** The model's own memory writes wait for the user's yes (refused where nobody can answer). */
      write_approval: bool(false),
      memory_char_limit: integerAtLeast(100, 2200),
      user_char_limit: integerAtLeast(100, 1375),
      /** External memory provider name ("" = built-in files only; "local" = facts in SQLite). */
      provider: text(""),
      /** Settings of the built-in "local" provider. */
      local: section({
        /** Facts recalled into a turn at most. */
        max_recall: integerAtLeast(1, 6),
        /** An OpenAI-compatible embeddings endpoint (e.g. http://127.0.0.1:11434/v1); "" = full-text recall only. */
        embedding_base_url: baseUrlText(),
        embedding_model: text(""),
      }),
    }),
    terminal: section({
      backend: oneOf(TERMINAL_BACKENDS).default("local"),
      cwd: text("."),
      timeout: integerAtLeast(1, 180),
      /** Provider keys that commands may see after all (withheld by default). */
      env_passthrough: stringList(),
      /** Let the model start background processes that outlive hermes (`keep_alive`). */
      allow_keep_alive: bool(false),
      /** Files sourced once, before the first command, for PATH additions, functions and aliases (`~`, `$VAR` expanded). */
      shell_init_files: stringList(),
      /** With no shell_init_files: source ~/.profile, ~/.bash_profile and ~/.bashrc that way. */
      auto_source_bashrc: bool(true),
      /** A session's next command starts where its last one ended (after cd) with the variables it exported. */
      persistent_shell: bool(true),
      /** Seconds a background process gets after SIGTERM (a kill, or hermes exiting) before SIGKILL. */
      daemon_term_grace_seconds: numberBetween(0, 300, 2),
    }),
    /** $HERMES_HOME/logs/agent.log and errors.log. */
    logging: section({
      level: oneOf(["DEBUG", "INFO", "WARNING", "ERROR"]).default("INFO"),
      max_size_mb: numberBetween(0.01, 10_240, 5),
      backup_count: integerAtLeast(0, 3),
    }),
    /** The OS sandbox for commands the model runs (our addition; see docs/security.md). */
    sandbox: section({
      /** auto: workspace-write for unattended runs when bubblewrap is available, off in the TUI. */
      mode: oneOf(["auto", "off", "workspace-write", "read-only"]).default("auto"),
      /** Writable inside the sandbox besides the working directory and the temp directory. */
      writable_roots: stringList(),
      /** false cuts the network inside the sandbox; a list of hosts allows only those. */
      network: boolOrList(true, "allowed hosts"),
    }),
    approvals: section({
      mode: oneOf(["manual", "smart", "off"]).default("manual"),
      deny: stringList(),
      command_allowlist: stringList(),
      /** Seconds to wait for an answer before denying. */
      timeout: integerAtLeast(1, 60),
      /** What scheduled jobs do with a dangerous command (nobody is there to ask). */
      cron_mode: oneOf(["deny", "approve"]).default("deny"),
      /** The same for other unattended contexts (API server, subagents). */
      unattended_mode: oneOf(["deny", "approve"]).default("deny"),
      /** The permission mode a session starts in (plan, ask, auto-edit, yolo); `--mode` overrides it. */
      default_mode: oneOf(PERMISSION_MODES).default("ask"),
      /** Ask before /new, /clear and /undo throw away a non-empty conversation (terminal and chats). */
      destructive_slash_confirm: bool(true),
      /** Ask before /reload-mcp changes the tool list (which discards the provider's prompt cache). */
      mcp_reload_confirm: bool(true),
    }),
    checkpoints: checkpointsSection,
    learning: learningSection,
    curator: curatorSection,
    skills: skillsSection,
    permissions: permissionsSection,
    plugins: pluginsSection,
    hooks: hooksSection,
    /** Run shell hooks from config.yaml without `hermes hooks approve` (not recommended). */
    hooks_auto_accept: bool(false),
    /** Scheduled jobs (see docs/cron.md). */
    cron: section({
      /** Prefix delivered output with the job's name. */
      wrap_response: bool(true),
      /** Outputs kept per job under cron/output/<id>/. */
      output_retention: integerAtLeast(1, 50),
      /** Jobs that may run at once (0: no limit of its own). */
      max_parallel_jobs: integerAtLeast(0, 0),
      /** A job's output delivered to the chat it was made in is also kept in that chat's conversation. */
      mirror_delivery: bool(false),
    }),
    code_execution: section({
      /** Time limit of one execute_code script, in seconds. */
      timeout: integerAtLeast(1, 300),
      /** Tool calls one script may make through its RPC client. */
      max_tool_calls: integerAtLeast(1, 50),
      /** project: the session's folder and active virtualenv; strict: a scratch folder, no user environment. */
      mode: z.enum(["project", "strict"], accepts('"project" or "strict"')).default("project"),
    }),
    /** Standing goals (`/goal`): turns one goal may run before it pauses (see docs/cli.md). */
    goals: section({ max_turns: integerAtLeast(1, 20) }),
    /** Deleting old sessions automatically (see docs/sessions.md). */
    sessions: section({
      /** Prune when a long-lived surface starts (interactive terminal, gateway, API server). */
      auto_prune: bool(false),
      /** Sessions idle for more than this many days go, with their messages. */
      retention_days: integerAtLeast(1, 90),
      /** Compact the database file after a pass that deleted something. */
      vacuum_after_prune: bool(true),
      /** At most one pass per this many hours, across the processes of a home. */
      min_interval_hours: integerAtLeast(0, 24),
      /** After each turn, also write the session as JSON to sessions/session_<id>.json (for scripts). */
      write_json_snapshots: bool(false),
    }),
    /** How much tool output reaches the model (the original's keys; 0: no limit of its own). */
    tools: section({
      /**
       * Hidden tools found through tool_search: auto (when the schemas pass the budget, below),
       * on (every hideable tool always behind it), off (every schema sent).
       */
      tool_search: section({
        enabled: autoOrBool(),
        /** auto: the budget is also at most this share of the model's context window (percent). */
        threshold_pct: numberBetween(0, 100, 10),
        search_default_limit: integerBetween(1, 100, 5),
        max_search_limit: integerBetween(1, 100, 20),
      }),
    }),
    tool_output: section({
      /** Characters of a terminal command's output kept: the first 40 % and the last 60 %. */
      max_bytes: integerAtLeast(0, 50_000),
      /** Lines one read_file call returns at most (a larger `limit` is cut to it). */
      max_lines: integerAtLeast(0, 2000),
      /** Characters of one line read_file shows; longer lines are cut. */
      max_line_length: integerAtLeast(0, 2000),
    }),
    /** Named instructions for `/personality NAME`: text, or {system_prompt, description}. */
    personalities: z
      .record(z.string(), z.unknown(), { error: () => "a mapping of personality names to instructions" })
      .default({}),
    /** The system prompt's platform layer per platform (cli, telegram, ...), in place of ours; "" drops it. */
    platform_hints: z
      .record(z.string(), z.string({ error: () => "text" }), { error: () => "a mapping of platform names to text" })
      .default({}),
    /** Slash commands of your own: {type: exec, command} or {type: alias, target} (docs/cli.md). */
    quick_commands: z
      .record(z.string(), section({ type: text(""), command: text(""), target: text(""), description: text("") }), {
        error: () => "a mapping of command names to {type, command} or {type, target}",
      })
      .default({}),
    /** A JSON array of {role, content} messages sent after the system prompt in every request, never stored. */
    prefill_messages_file: text(""),
    /** Characters of each project context file (AGENTS.md, ...) in the prompt; null: 20,000. */
    context_file_max_chars: integerAtLeast(100, 20_000).nullable().default(null),
    /** Characters one read_file page holds; a longer range stops early with the offset to go on from. */
    file_read_max_chars: integerAtLeast(1000, 100_000),
    security: section({
      /** Hosts the web tools may not reach (see docs/security.md). */
      website_blocklist: section({
        enabled: bool(false),
        /** Rules: `example.com` (it and every name under it), `*.example.com` (names under it). */
        domains: stringList(),
        /** Files of rules, one per line (`#` comments); relative paths are under $HERMES_HOME. */
        shared_files: stringList(),
      }),
      /** tirith checks each command before it runs, where it is installed (see docs/security.md). */
      tirith_enabled: bool(true),
      /** The tirith program: a name looked up on PATH (then $HERMES_HOME/bin), or a path. */
      tirith_path: nonEmptyText().default("tirith"),
      /** Seconds one check may take. */
      tirith_timeout: numberBetween(0.1, 300, 5),
      /** When tirith cannot answer: true leaves the command to our own rules, false asks first. */
      tirith_fail_open: bool(true),
      /** Accepted for the original's files: secrets are always masked here; false only earns a notice. */
      redact_secrets: bool(true),
    }),
    web: section({
      /** Search/extract backend: "" picks the first with a key (tavily, exa, firecrawl). */
      backend: text(""),
      /** Let web_extract's own fetch read private, loopback and link-local addresses. */
      allow_private_urls: bool(false),
      /** One tool's backend in place of `backend` (the original's keys; "" = `backend`). */
      search_backend: text(""),
      extract_backend: text(""),
      /** Characters of one page web_extract returns (0 = our own limit, 50,000). */
      extract_char_limit: integerAtLeast(0, 0),
    }),
    /** The browser tools (docs/tools.md): a local headless Chromium, or the browser at `cdp_url`. */
    browser: section({
      /** Seconds without a browser call before a session's tab is closed (the browser with the last one). */
      inactivity_timeout: numberBetween(1, 86_400, 120),
      /** Seconds one browser command, or a page load, may take. */
      command_timeout: numberBetween(1, 600, 30),
      /** Let pages (and their redirects and requests) reach private, loopback and link-local addresses. */
      allow_private_urls: bool(false),
      /** A running browser to drive instead of launching one: http://host:port or a ws:// URL. */
      cdp_url: text(""),
      /** No tool runs JavaScript the model writes; true adds none either (there is no evaluate tool). */
      allow_unsafe_evaluate: bool(false),
      /** What a JavaScript alert/confirm/prompt gets: the model answers it, or it is accepted or dismissed at once. */
      dialog_policy: oneOf(["must_respond", "accept", "dismiss"]).default("must_respond"),
      /** Seconds an unanswered dialog stays open before it is dismissed. */
      dialog_timeout_s: numberBetween(1, 86_400, 300),
    }),
    /** Language-server diagnostics after write_file and patch (docs/tools.md, "Diagnostics after edits"). */
    lsp: section({
      enabled: bool(true),
      /** document: wait for the edited file's diagnostics; workspace: the same here; none: check nothing. */
      wait_mode: oneOf(["document", "workspace", "none"]).default("document"),
      /** Seconds an edit waits for its diagnostics. */
      wait_timeout: numberBetween(0.1, 120, 5),
      /** auto: the built-in servers found on PATH or in node_modules/.bin, plus `servers`; never/off: only `servers`. Nothing is downloaded. */
      install_strategy: oneOf(["auto", "never", "off"]).default("auto"),
      /** Language id → server; replaces the built-in server of that id. */
      servers: z.record(z.string(), lspServer, accepts("a mapping of language ids to servers")).default({}),
    }),
    /** Named OpenAI-compatible endpoints, usable as `model.provider: NAME` and `--provider NAME`. */
    providers: providersSchema,
    /** The original's older list form of `providers`. */
    custom_providers: customProvidersSchema,
    streaming: streamingSection,
    /** The mixture_of_agents tool: presets of reference models and an aggregator (docs/tools.md). */
    moa: moaSection,
    bedrock: bedrockSection,
    /** Google Vertex AI (provider `vertex`): the project and region (VERTEX_PROJECT_ID / VERTEX_REGION win). */
    vertex: section({ project_id: text(""), region: text("global") }),
    /**
     * OpenRouter's response cache: requests to OpenRouter ask it to answer an identical request
     * from its cache for this many seconds (not for /retry, nor for API server requests).
     */
    openrouter: section({ response_cache: bool(true), response_cache_ttl: integerBetween(1, 86400, 300) }),
    fallback_providers: z.array(fallbackProvider, { error: () => "a list of {provider, model} mappings" }).default([]),
    /** A pause before each further part of a reply sent in several messages (docs/gateway.md). */
    human_delay: humanDelaySection,
    mcp_servers: z.record(z.string(), mcpServer, { error: () => "a mapping of server names to settings" }).default({}),
    /** Older spelling of `approvals.command_allowlist`, still honoured. */
    command_allowlist: stringList(),
    credential_pool_strategies: z
      .record(z.string(), oneOf(POOL_STRATEGIES), { error: () => "a mapping of provider ids to strategies" })
      .default({}),
    gateway: gatewaySection,
    /** Secrets loaded into the environment at start-up from a secrets manager (Bitwarden). */
    secrets: secretsSection,
    /** Prefer IPv4 for every outgoing connection (a host whose IPv6 route is broken). */
    network: section({ force_ipv4: bool(false) }),
    /** `hermes mcp serve`: the toolsets it exposes (a list or "a,b"; empty: its default). */
    mcp_serve: section({ toolsets: idList() }),
    /** Messaging platforms by name (also accepted under `gateway.platforms`). */
    platforms: platformsMap(),
    telegram: telegramSection,
    discord: discordSection,
    slack: slackSection,
    mattermost: mattermostSection,
    matrix: matrixSection,
    /** In a group chat (outside threads) each participant has their own session. */
    group_sessions_per_user: bool(true),
    /** Seconds a start waits for MCP servers before the first turn; later ones join from the next turn. */
    mcp_discovery_timeout: numberBetween(0, 600, 1.5),
    stt: section({
      /** Voice messages reach the model as their transcript. */
      enabled: bool(true),
      /** local (a whisper command on this machine) | openai | groq | mistral | elevenlabs. */
      provider: text("local"),
      local: section({ model: text("base"), language: text("") }),
      openai: section({ model: text("whisper-1") }),
      mistral: section({ model: text("voxtral-mini-latest") }),
      elevenlabs: section({
        model_id: text("scribe_v2"),
        /** "" = the service detects the language. */
        language_code: text(""),
        tag_audio_events: bool(false),
        diarize: bool(false),
      }),
    }),
    /** The text_to_speech tool (and `voice.auto_tts`): which service speaks, and in which voice. */
    tts: section({
      /** edge (Microsoft's free voices, no key), openai, elevenlabs, gemini, xai, mistral or piper (local); neutts loads but answers with an error. */
      provider: oneOf(TTS_PROVIDERS).default("edge"),
      edge: section({ voice: text("en-US-AriaNeural") }),
      openai: section({ model: text("gpt-4o-mini-tts"), voice: text("alloy") }),
      elevenlabs: section({ voice_id: text("pNInz6obpgDQGcFmaJgB"), model_id: text("eleven_multilingual_v2") }),
      gemini: section({
        model: text("gemini-2.5-flash-preview-tts"),
        voice: text("Kore"),
        /** Keep bracketed performance tags such as [laughs] in the text; false takes them out. */
        audio_tags: bool(false),
        /** A file whose text goes before each text as a style instruction (read at every call). */
        persona_prompt_file: text(""),
      }),
      xai: section({
        voice_id: text("eve"),
        language: text("en"),
        sample_rate: integerBetween(8000, 48000, 24000),
        bit_rate: integerBetween(32000, 320000, 128000),
      }),
      mistral: section({
        model: text("voxtral-mini-tts-2603"),
        voice_id: text("c69964a6-ab8b-4f8a-9465-ec0925096ec8"),
      }),
      /** A voice name (its .onnx in $HERMES_HOME/cache/piper/) or the path of an .onnx model. */
      piper: section({ voice: text("en_US-lessac-medium") }),
    }),
    /** The image_generate tool (our own keys): which service makes images, and with which model. */
    image_gen: section({
      /** auto (the first with a key: FAL_KEY, then OPENAI_API_KEY), fal or openai. */
      provider: oneOf(IMAGE_GEN_PROVIDERS).default("auto"),
      /** A model id in the provider's naming ("" = fal-ai/flux-2 on fal, gpt-image-1 on OpenAI). */
      model: text(""),
    }),
    /** The x_search tool: the xAI model that searches X, its time limit per attempt (s) and retries. */
    x_search: section({
      model: nonEmptyText().default("grok-4.20-reasoning"),
      timeout_seconds: numberBetween(1, 86_400, 180),
      retries: integerBetween(0, 10, 2),
    }),
    voice: section({
      /** In the gateway, a voice message is answered with speech too (after the text). */
      auto_tts: bool(false),
    }),
    privacy: section({
      /** Ids that are phone numbers or personal accounts (Telegram, WhatsApp, Signal, SMS) reach the model hashed. */
      redact_pii: bool(false),
    }),
    /** Inside a thread each participant has their own session (off: a thread is one conversation). */
    thread_sessions_per_user: bool(false),
    /** When a chat's conversation starts afresh on its own. */
    session_reset: section({
      mode: oneOf(["both", "daily", "idle", "none"]).default("both"),
      at_hour: integerBetween(0, 23, 4),
      idle_minutes: integerAtLeast(0, 1440),
    }),
    /** What a direct message from an unknown user gets: a pairing code, or nothing. */
    unauthorized_dm_behavior: oneOf(["pair", "ignore"]).default("pair"),
    display: section({
      /** The personality conversations start with (a name from `personalities` or the built-in ones; "" = none). */
      personality: text(""),
      /** What a message sent while the agent works does: interrupt it, wait its turn, or steer it. */
      busy_input_mode: oneOf(["interrupt", "queue", "steer"]).default("interrupt"),
      /** Per-platform display settings (`streaming`, `tool_progress`, `edit_interval` in seconds). */
      platforms: z
        .record(
          z.string(),
          z.object(
            {
              streaming: z.boolean(accepts("true or false")).optional(),
              tool_progress: oneOf(["off", "new", "all", "verbose"]).optional(),
              edit_interval: numberBetween(0.2, 60, 1),
            },
            accepts("a mapping of display settings"),
          ),
          accepts("a mapping of platform names to display settings"),
        )
        .default({}),
      streaming: bool(true),
      show_reasoning: bool(false),
      tool_progress: oneOf(["off", "new", "all", "verbose"]).default("all"),
      show_cost: bool(false),
      /** No blank line between exchanges in the terminal, and a one-line header. */
      compact: bool(false),
      /** What a resumed session shows: full (its last exchanges) or minimal (one line). */
      resume_display: oneOf(["full", "minimal"]).default("full"),
      resume_exchanges: integerAtLeast(0, 10),
      resume_max_user_chars: integerAtLeast(0, 300),
      resume_max_assistant_chars: integerAtLeast(0, 200),
      resume_max_assistant_lines: integerAtLeast(1, 3),
      resume_skip_tool_only: bool(true),
      /** Ring the terminal bell when a turn finishes (for long tasks in another window). */
      bell_on_complete: bool(false),
      /** TUI: HH:MM next to each message sent and each final answer. */
      timestamps: bool(false),
      /** TUI: characters of a tool call's argument preview (0 = 80). */
      tool_preview_length: integerAtLeast(0, 0),
      /** TUI: lines kept at the start and end of a long message shown collapsed. */
      user_message_preview: section({
        first_lines: integerAtLeast(0, 2),
        last_lines: integerAtLeast(0, 2),
      }),
      /** TUI, with show_reasoning: the whole reasoning instead of its latest lines. */
      reasoning_full: bool(false),
      /** TUI: a reply's markdown rendered, stripped to plain text, or shown as written. */
      final_response_markdown: oneOf(["strip", "render", "raw"]).default("strip"),
      /** TUI: show what the model writes between tool calls (false: only the final answer). */
      interim_assistant_messages: bool(true),
      /** TUI: a line when the agent saves, updates or removes a memory entry. */
      memory_notifications: oneOf(["on", "off"]).default("on"),
      /** TUI: a line after each answer with the chosen facts. */
      runtime_footer: section({
        enabled: bool(false),
        /** model, context_pct, cwd, duration, tokens; others are skipped. */
        fields: stringList(["model", "context_pct", "cwd"]),
      }),
      /** TUI: tool progress in words ("Reading") instead of tool names (read_file). */
      friendly_tool_labels: bool(true),
      /** Gateway: per-platform tool progress, the older form of `platforms.<name>.tool_progress`. */
      tool_progress_overrides: z
        .record(
          z.string(),
          oneOf(["off", "new", "all", "verbose"]),
          accepts("a mapping of platform names to off, new, all or verbose"),
        )
        .default({}),
      /** TUI: a short coloured diff after write_file and patch. */
      inline_diffs: bool(true),
      /** TUI colours: default, mono, slate or daylight (an unknown name falls back to default). */
      skin: text("default"),
      /** TUI: with no --resume/--continue, start in the most recent session (as `hermes -c` does). */
      tui_auto_resume_recent: bool(false),
      /** TUI, with show_reasoning: a 💭 block (code), "> " lines (blockquote), or plain dim lines (subtext). */
      reasoning_style: oneOf(["code", "blockquote", "subtext"]).default("code"),
      /** TUI: the busy indicator beside "thinking…": kaomoji faces, emoji, a braille spinner, or ascii. */
      tui_status_indicator: oneOf(["kaomoji", "emoji", "unicode", "ascii"]).default("kaomoji"),
      /** TUI: seconds between status bar refreshes while the agent works (its running time); 0 = off. */
      cli_refresh_interval: numberBetween(0, 3600, 1),
      /** TUI: a line in the transcript recording each approval or clarify question and its answer. */
      persist_prompts: bool(true),
      /** TUI: a line explaining a turn that ended without a real answer (iteration budget, empty reply). */
      turn_completion_explainer: bool(true),
      /** TUI: after a turn, name the files a failed write_file/patch left unchanged. */
      file_mutation_verifier: bool(true),
    }),
    /** TUI: a message pasted with more lines than this is shown collapsed (0 = never by lines). */
    paste_collapse_threshold: integerAtLeast(0, 5),
    /** TUI: the same for a message typed, or pasted where the terminal does not mark pastes. */
    paste_collapse_threshold_fallback: integerAtLeast(0, 5),
    /** TUI: a message longer than this many characters is shown collapsed (0 = never by length). */
    paste_collapse_char_threshold: integerAtLeast(0, 2000),
  },
  { error: () => "a mapping of settings" },
);

export type HermesConfig = z.output<typeof configSchema>;
export type FallbackProvider = HermesConfig["fallback_providers"][number];
export type McpServerConfig = HermesConfig["mcp_servers"][string];
export type AuxiliaryTaskConfig = HermesConfig["auxiliary"]["compression"];
