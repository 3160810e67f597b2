/**
 * Validating a parsed config.yaml against the schema. Kept apart from ./config-load.ts so that
 * a start whose config is cached (./config-cache.ts) never builds the schema.
 */

import { ConfigError, FILE_LABEL, formatKeyPath, type ValidatedConfig, valueAt } from "./config-load.js";
import { applyRenamedKeys, classifyKeys } from "./config-original.js";
import { configSchema } from "./config-schema.js";
import { closestName, dropNulls } from "./config-walk.js";

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/**
 * Validate a parsed config.yaml value. Throws ConfigError; unknown keys become warnings. The
 * original agent's names are read under ours (see ./config-original.ts).
 */
export function validateConfig(raw: unknown, file = FILE_LABEL): ValidatedConfig {
  const written = dropNulls(raw ?? {});
  const renamed = applyRenamedKeys(written, file);
  const input = renamed.value;
  const result = configSchema.safeParse(input);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => {
      const path = formatKeyPath(issue.path);
      const got = describeValue(valueAt(input, issue.path));
      const subject = path || "the file";
      return { path, message: `${subject} must be ${issue.message} (got ${got})` };
    });
    throw new ConfigError(issues.map((i) => `${file}: ${i.message}`).join("\n"), file, issues);
  }
  // The file as written: a key set to nothing is still a key the file sets.
  const keys = classifyKeys(raw ?? {});
  const unknown = keys.unknown.map(({ path, known }) => {
    const last = path.split(".").at(-1) ?? path;
    const guess = closestName(last, known);
    const hint = guess ? ` (did you mean "${guess}"?)` : "";
    return `${file}: unknown key "${path}" is ignored${hint}`;
  });
  return { config: result.data, warnings: [...renamed.warnings, ...unknown], notActedOn: keys.notActedOn };
}
