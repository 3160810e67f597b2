/** Sections of config.yaml kept apart from config-schema.ts to keep that file readable. */
import { z } from "../util/schema/index.js";
import { accepts, bool, integerAtLeast, numberBetween, section, stringList } from "./config-fields.js";

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** An IANA time zone name (`Europe/Berlin`), or "" for the machine's own zone. */
export function timeZoneText() {
  return z
    .string(accepts('an IANA time zone name such as "Europe/Berlin", or "" for this machine\'s zone'))
    .refine((value) => value === "" || isTimeZone(value), {
      error: () =>
        'an IANA time zone name such as "Europe/Berlin" or "America/New_York", or "" for this machine\'s zone',
    })
    .default("");
}

/**
 * The original's gateway streaming settings. Unset keys follow `display`: `enabled` is the
 * default for platforms without `display.platforms.<name>.streaming` (and without a built-in
 * default), `edit_interval` the seconds between edits where a platform sets none. `transport`
 * picks drafts or edits for previews ("off": no previews at all).
 */
export const streamingSection = z
  .object(
    {
      enabled: z.boolean(accepts("true or false")).optional(),
      edit_interval: z
        .number(accepts("a number between 0.2 and 60"))
        .min(0.2, accepts("a number between 0.2 and 60"))
        .max(60, accepts("a number between 0.2 and 60"))
        .optional(),
      /** Characters of a reply before its first preview is sent. */
      buffer_threshold: z.number(accepts("a whole number of characters")).int().min(1).default(24),
      /** Seconds after which the final reply arrives as a new message (it notifies) instead of an edit; 0 = always edit. */
      fresh_final_after_seconds: z.number(accepts("a number of seconds")).min(0).default(0),
      /** Appended to a preview while it still grows ("" = nothing). */
      cursor: z
        .string(accepts('text such as " ▉", or "" for none'))
        .max(16, accepts("at most 16 characters"))
        .default(" ▉"),
      /** "auto": drafts where the platform has them (Telegram private chats), else edits; "draft" the same, saying so when it cannot; "edit"; "off". */
      transport: z.enum(["auto", "draft", "edit", "off"], accepts('"auto", "draft", "edit" or "off"')).default("auto"),
    },
    accepts("a mapping of settings"),
  )
  .prefault({});

const HUMAN_DELAY_LIMIT_MS = 60_000;
const delayMs = (fallback: number) =>
  z
    .number(accepts(`a whole number of milliseconds between 0 and ${HUMAN_DELAY_LIMIT_MS}`))
    .int(accepts("a whole number of milliseconds"))
    .min(0, accepts(`a whole number of milliseconds between 0 and ${HUMAN_DELAY_LIMIT_MS}`))
    .max(HUMAN_DELAY_LIMIT_MS, accepts(`a whole number of milliseconds between 0 and ${HUMAN_DELAY_LIMIT_MS}`))
    .default(fallback);

/**
 * A pause before each further part of a chat reply cut into several messages, as a person typing
 * would leave: `natural` waits 800–2500 ms, `custom` between `min_ms` and `max_ms`.
 */
export const humanDelaySection = z
  .object(
    {
      mode: z.enum(["off", "natural", "custom"], accepts('"off", "natural" or "custom"')).default("off"),
      min_ms: delayMs(800),
      max_ms: delayMs(2500),
    },
    accepts("a mapping of settings"),
  )
  .refine((value) => value.min_ms <= value.max_ms, {
    error: () => "min_ms must not be larger than max_ms",
  })
  .prefault({});

/**
 * Makes `timezone` the process's zone (TZ), so cron schedules without a zone of their own, local
 * times and the commands the agent runs (`date`) all agree with it. "" leaves the zone alone.
 */
export function applyTimeZone(timezone: string, env: NodeJS.ProcessEnv = process.env): void {
  if (timezone) env.TZ = timezone;
}

/** Snapshots of the working tree before the agent changes files (`/rollback`; see docs/checkpoints.md). */
export const checkpointsSection = section({
  /** Off by default like the original; the TUI and ACP turn it on unless config.yaml says otherwise. */
  enabled: z.boolean(accepts("true or false")).optional(),
  max_snapshots: integerAtLeast(1, 20),
  max_total_size_mb: integerAtLeast(1, 500),
  max_file_size_mb: integerAtLeast(1, 10),
  auto_prune: bool(true),
  retention_days: integerAtLeast(1, 7),
  delete_orphans: bool(true),
  min_interval_hours: integerAtLeast(0, 24),
});

/** Per-tool and per-path rules: `write_file(src/**)`, `terminal(npm test*)`, or a bare tool name. */
export const permissionsSection = section({
  allow: stringList(),
  deny: stringList(),
});

/** Plugins from $HERMES_HOME/plugins/<name>/ and npm packages (see docs/plugins.md). */
export const pluginsSection = section({
  /** npm packages (resolved from $HERMES_HOME/node_modules) and directory plugins to load. */
  enabled: stringList(),
  /** Directory plugins that stay off although they are installed. */
  disabled: stringList(),
  /** Each plugin's own settings, read through its `api.config`. */
  config: z.record(z.string(), z.unknown(), accepts("a mapping of plugin names to settings")).default({}),
  /** Milliseconds one hook may take before it is skipped for that call. */
  hook_timeout_ms: integerAtLeast(1, 5000),
});

const shellHook = z.union(
  [
    z.string(),
    z.object(
      {
        command: z.string(accepts("a shell command")),
        /** Only for tool events: a regular expression the tool's name must match. */
        matcher: z.string(accepts("a regular expression")).optional(),
        /** Seconds before the command is killed and skipped. */
        timeout: z.number(accepts("a number of seconds")).min(0.1).max(600).optional(),
      },
      accepts("a command string or {command, matcher, timeout}"),
    ),
  ],
  accepts("a command string or {command, matcher, timeout}"),
);

/** Shell hooks per event (`pre_tool_call: [{command: ..., matcher: terminal}]`); run only once approved. */
export const hooksSection = z
  .record(
    z.string(),
    z.union([shellHook, z.array(shellHook)], accepts("a command or a list of commands")),
    accepts("a mapping of event names to commands"),
  )
  .default({});

/** What the learning loop does with what it learns (see docs/learning.md). */
export const LEARNING_MODES = ["auto", "review", "off"] as const;

export const learningSection = section({
  /** auto: apply and say so in one line; review: queue for /learn and `hermes learn`; off. */
  mode: z.enum(LEARNING_MODES, accepts("auto, review or off")).default("auto"),
  /** A finished task with at least this many tool calls is reviewed for something worth keeping. */
  review_min_tool_calls: integerAtLeast(1, 8),
  /**
   * Our older spelling of the curator's settings. No defaults: a key set here wins over the same
   * setting under top-level `curator` (see src/state/curator-settings.ts).
   */
  curator: section({
    /** Skills not used for this many days are marked stale... */
    stale_after_days: optionalWholeNumber(),
    /** ...and moved to skills/.archive/ after this many. */
    archive_after_days: optionalWholeNumber(),
    /** The curator runs when a session starts at most this often (curator.interval_hours in days). */
    interval_days: optionalWholeNumber(),
  }),
});

function optionalWholeNumber() {
  const msg = accepts("a whole number of at least 1");
  return z.number(msg).int(msg).min(1, msg).optional();
}

/** The skills curator (docs/learning.md#the-curator), under the original's key names. */
export const curatorSection = section({
  /** Scheduled runs happen at all (`hermes curator run` works either way). */
  enabled: bool(true),
  /** A scheduled run starts when the last one is this many hours old. */
  interval_hours: numberBetween(1, 87_600, 24 * 7),
  /** ...and no session has been active for this many hours (0 = no wait). */
  min_idle_hours: numberBetween(0, 8_760, 2),
  stale_after_days: integerAtLeast(1, 30),
  archive_after_days: integerAtLeast(1, 90),
  /** Ask the `curator` auxiliary model which user skills overlap, and propose merging them. */
  consolidate: bool(false),
  /** Bundled skills that go unused are marked stale and archived like the user's own. */
  prune_builtins: bool(true),
  /** A copy of the skills folder before each run changes anything; the newest `keep` are kept. */
  backup: section({
    enabled: bool(true),
    keep: integerAtLeast(1, 5),
  }),
});

/** A skills hub: a JSON index of skills with their URLs and checksums. */
const skillHub = z.object(
  {
    name: z.string(accepts("a name for the hub")).min(1),
    url: z.string(accepts("the index URL")).min(1),
    /** trusted hubs may install skills the scan rates "caution" without --force. */
    trust: z.enum(["trusted", "community"], accepts("trusted or community")).default("community"),
  },
  accepts("a hub: {name, url, trust}"),
);

export const skillsSection = section({
  /** The model's own skill writes (skill_manage) wait for the user's yes. */
  write_approval: bool(false),
  /** Hub indexes `hermes skills search` and `install` read (see docs/skills.md). */
  hubs: z.array(skillHub, accepts("a list of hubs")).default([]),
  /** Shared skill folders, read-only (`~` and `${VAR}` expanded; relative: under $HERMES_HOME). */
  external_dirs: stringList(),
  /** `${HERMES_SKILL_DIR}` and `${HERMES_SESSION_ID}` in a skill's text are filled in. */
  template_vars: bool(true),
  /** !`command` in SKILL.md is replaced by what the command prints. */
  inline_shell: bool(false),
  /** Seconds one such command may run. */
  inline_shell_timeout: integerAtLeast(1, 10),
});
