/** Reading a platform's room/channel rules from its environment variables, which win over config.yaml. */

/** Ids trimmed, empty ones dropped. */
export function idSet(values: readonly string[]): Set<string> {
  return new Set(values.map((id) => id.trim()).filter(Boolean));
}

/** A comma-separated variable as a list; undefined when it is unset or blank (config.yaml decides). */
export function envList(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return value.split(",");
}

/** A true/false variable; undefined when unset; throws, naming it, for anything else. */
export function envFlag(platform: string, name: string, value: string | undefined): boolean | undefined {
  const text = value?.trim().toLowerCase();
  if (!text) return undefined;
  if (["1", "true", "yes", "on"].includes(text)) return true;
  if (["0", "false", "no", "off"].includes(text)) return false;
  throw new Error(`${platform}: ${name}="${value}" is not true or false`);
}
