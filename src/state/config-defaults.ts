/**
 * The default configuration as a value, for library users and tests. Kept out of
 * config-schema.ts so that loading the schema (every CLI run does) does not also run a parse.
 */
import { configSchema, type HermesConfig } from "./config-schema.js";

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The configuration used when config.yaml is missing or empty. Frozen: copy before changing. */
export const DEFAULT_CONFIG: Readonly<HermesConfig> = deepFreeze(configSchema.parse({}));
