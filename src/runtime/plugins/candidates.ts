/** The cheap check made on every start: is there any plugin or shell hook to set up at all? */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { HermesConfig } from "../../state/config-schema.js";

export function extensionsWanted(home: string, config: HermesConfig): boolean {
  if (config.plugins.enabled.length > 0 || Object.keys(config.hooks).length > 0) return true;
  const root = join(home, "plugins");
  if (!existsSync(root)) return false;
  const disabled = new Set(config.plugins.disabled);
  return readdirSync(root).some((name) => !name.startsWith(".") && name !== "node_modules" && !disabled.has(name));
}
