/** Sections of config.yaml kept apart from config-schema.ts to keep that file readable. */
import { z } from "../util/schema/index.js";
import { accepts } from "./config-fields.js";

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
 * default), `edit_interval` the seconds between edits where a platform sets none.
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
    },
    accepts("a mapping of settings"),
  )
  .prefault({});

/**
 * Makes `timezone` the process's zone (TZ), so cron schedules without a zone of their own, local
 * times and the commands the agent runs (`date`) all agree with it. "" leaves the zone alone.
 */
export function applyTimeZone(timezone: string, env: NodeJS.ProcessEnv = process.env): void {
  if (timezone) env.TZ = timezone;
}
