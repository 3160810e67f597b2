/**
 * Where the browser is: `HERMES_BROWSER_PATH`, else the first Chromium or Chrome on PATH. Light
 * on purpose: the tools' availability check runs it at start-up listings (`hermes tools`).
 */

import { findExecutable } from "../../util/executable.js";
import { shortMemo } from "../../util/short-memo.js";

export const BROWSER_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"];

export const INSTALL_HINT =
  "Install Chromium (e.g. `apt install chromium`), set HERMES_BROWSER_PATH to a Chromium or Chrome binary, " +
  "or set browser.cdp_url to a browser started with --remote-debugging-port.";

export type BrowserBinary = { ok: true; path: string } | { ok: false; error: string };

/** How long a lookup is reused for the same PATH (every new session asks whether a browser is there). */
const LOOKUP_REUSE_MS = 30_000;
const recent = shortMemo<BrowserBinary>(LOOKUP_REUSE_MS);

export function findBrowser(env: Record<string, string | undefined> = process.env): BrowserBinary {
  return recent(`${env.HERMES_BROWSER_PATH ?? ""}\u0000${env.PATH ?? ""}`, () => lookUp(env));
}

function lookUp(env: Record<string, string | undefined>): BrowserBinary {
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
