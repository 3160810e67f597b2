/**
 * A platform's home channel as configured: `platforms.<name>.home_channel` (or under
 * `gateway.platforms`), else `<NAME>_HOME_CHANNEL` in the environment (the original's names;
 * email's is `EMAIL_HOME_ADDRESS`). `/sethome` in a chat overrides both (kept in the store).
 */
import type { HermesConfig } from "./config-schema.js";

export function configuredHomeChannel(
  config: HermesConfig,
  platform: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const section = config.platforms[platform] ?? config.gateway.platforms[platform];
  if (section?.home_channel) return section.home_channel;
  const prefix = platform.toUpperCase().replaceAll(/[^A-Z0-9]/g, "_");
  const fromEnv = env[`${prefix}_HOME_CHANNEL`]?.trim() || (platform === "email" ? env.EMAIL_HOME_ADDRESS?.trim() : "");
  return fromEnv || undefined;
}
