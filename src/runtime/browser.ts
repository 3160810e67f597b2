/**
 * The runtime's browser: `browser.*` from config, the website blocklist, the vision model for
 * browser_vision and where screenshots go. The runtime closes it when it closes.
 */
import type { AuxiliaryClient } from "../agent/auxiliary.js";
import type { HermesConfig } from "../state/config-schema.js";
import { BrowserTools } from "../tools/builtin/browser.js";
import type { WebsiteBlocklist } from "../tools/web/blocklist.js";
import { visionAnalyzer } from "./vision.js";

export function browserTools(
  config: HermesConfig,
  input: { home: string; blocklist: WebsiteBlocklist | null; auxiliary?: () => Promise<AuxiliaryClient> },
): BrowserTools {
  const { browser } = config;
  return new BrowserTools({
    inactivityTimeoutSeconds: browser.inactivity_timeout,
    commandTimeoutSeconds: browser.command_timeout,
    allowPrivateUrls: browser.allow_private_urls,
    cdpUrl: browser.cdp_url,
    dialogPolicy: browser.dialog_policy,
    dialogTimeoutSeconds: browser.dialog_timeout_s,
    blocklist: input.blocklist,
    home: input.home,
    ...(input.auxiliary ? { analyze: visionAnalyzer(input.auxiliary) } : {}),
  });
}
