/**
 * Where the browser is: `HERMES_BROWSER_PATH`, else the first Chromium or Chrome on PATH. Light
 * on purpose: the tools' availability check runs it at start-up listings (`hermes tools`).
 */
import { findExecutable } from "../../util/executable.js";

export const BROWSER_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"];

export const INSTALL_HINT =
  "Install Chromium (e.g. `apt install chromium`), set HERMES_BROWSER_PATH to a Chromium or Chrome binary, " +
  "or set browser.cdp_url to a browser started with --remote-debugging-port.";

export type BrowserBinary = { ok: true; path: string } | { ok: false; error: string };

export function findBrowser(env: Record<string, string | undefined> = process.env): BrowserBinary {
  const configured = env.HERMES_BROWSER_PATH?.trim();
  if (configured) {
    const path = findExecutable(configured, env.PATH ?? "");
    return path
      ? { ok: true, path }
      : { ok: false, error: `HERMES_BROWSER_PATH (${configured}) is not an executable file.` };
  }
  for (const name of BROWSER_NAMES) {
    const path = findExecutable(name, env.PATH ?? "");
    if (path) return { ok: true, path };
  }
  return { ok: false, error: `No Chromium or Chrome was found on PATH. ${INSTALL_HINT}` };
}
