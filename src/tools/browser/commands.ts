/**
 * The browser tools' work, loaded on the first browser call: each takes the session's tab,
 * acts, and answers with JSON the model reads — the page's URL, title and a fresh snapshot, or
 * an open dialog, or an error that says what to do next.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { VisionAnalyzer } from "../vision/types.js";
import {
  click,
  describeView,
  goBack,
  listImages,
  navigate,
  pressKey,
  type Settled,
  screenshot,
  scroll,
  ToolError,
  typeText,
} from "./actions.js";
import { CdpClosedError, CdpError, CdpTimeoutError } from "./cdp.js";
import { navigationRefusal } from "./guard.js";
import { type BrowserManager, BrowserUnavailableError } from "./manager.js";
import type { BrowserPage } from "./page.js";
import { FULL_SNAPSHOT_CHARS, SNAPSHOT_CHARS } from "./snapshot.js";

export interface CommandOptions {
  manager: BrowserManager;
  /** The agent session the call belongs to: its tab. */
  key: string;
  signal: AbortSignal;
  /** Asks the vision model about a screenshot (browser_vision). */
  analyze?: VisionAnalyzer;
  /** `$HERMES_HOME/cache/screenshots`. */
  screenshotsDir: string;
}

type Result = Record<string, unknown>;

const DIALOG_HINT = "browser_press Enter accepts it, browser_press Escape dismisses it.";
const ERROR_CHARS = 600;

function failure(error: string, extra: Result = {}): string {
  return JSON.stringify({ success: false, error: error.slice(0, ERROR_CHARS), ...extra });
}

function describeDialog(page: BrowserPage): Result {
  const dialog = page.dialog!;
  return {
    dialog: { type: dialog.type, message: dialog.message },
    hint: `The page is blocked until the ${dialog.type} is answered: ${DIALOG_HINT}`,
  };
}

/** What every page-changing tool answers: where the tab is and what it shows now. */
async function pageResult(
  page: BrowserPage,
  settled: Settled,
  limit = SNAPSHOT_CHARS,
  extra: Result = {},
): Promise<string> {
  const location = await page.location();
  const head: Result = { success: true, url: location.url, title: location.title, ...extra };
  if (page.dialog) return JSON.stringify({ ...head, ...describeDialog(page), ...notes(page) });
  if (settled.timedOut) {
    head.warning = `The page did not finish loading within ${page.settings.commandTimeoutMs / 1000} s (browser.command_timeout); this is what loaded so far.`;
  }
  // A dialog opening now (a timer's alert) blocks the page: answer with it instead of waiting.
  const opened = page.dialogOpened();
  try {
    const snapshot = await Promise.race([page.snapshot(limit), opened.promise.then(() => null)]);
    if (!snapshot) return JSON.stringify({ ...head, ...describeDialog(page), ...notes(page) });
    return JSON.stringify({ ...head, ...notes(page), snapshot: snapshot.text });
  } finally {
    opened.cancel();
  }
}

function notes(page: BrowserPage): Result {
  const taken = page.takeNotes();
  return taken.length ? { notes: taken } : {};
}

function explain(error: unknown, options: CommandOptions): string {
  if (error instanceof ToolError || error instanceof BrowserUnavailableError) return (error as Error).message;
  if (error instanceof CdpClosedError) {
    return `The browser stopped while this call ran (${error.message}); the next browser call starts a new one.`;
  }
  if (error instanceof CdpTimeoutError) {
    return `The browser did not answer in time: ${error.message} (browser.command_timeout). Try again, or navigate elsewhere.`;
  }
  if (options.signal.aborted) return "interrupted";
  if (error instanceof CdpError) return `The browser refused: ${error.message}`;
  return `The browser call failed: ${(error as Error)?.message ?? String(error)}`;
}

/**
 * Runs a tool on the session's existing tab. Without one (never opened, closed for inactivity,
 * lost with a crashed browser) it says so and why. While a dialog is open only the keys that
 * answer it go through (`dialogOk`).
 */
async function onPage(
  options: CommandOptions,
  work: (page: BrowserPage) => Promise<string>,
  dialogOk = false,
): Promise<string> {
  const { manager, key } = options;
  try {
    return await manager.run(key, async () => {
      const page = manager.page(key);
      if (!page) {
        const lost = manager.takeLostNote(key);
        return failure(`${lost ?? "No page is open in this session."} Open one with browser_navigate first.`);
      }
      if (page.dialog && !dialogOk) {
        const dialog = page.dialog;
        return failure(`A JavaScript ${dialog.type} is open (${JSON.stringify(dialog.message)}). ${DIALOG_HINT}`);
      }
      return await work(page);
    });
  } catch (error) {
    return failure(explain(error, options));
  }
}

export async function browserNavigate(options: CommandOptions, url: string): Promise<string> {
  const { manager, key, signal } = options;
  const refusal = await navigationRefusal(url.trim(), manager.settings.policy);
  if (refusal) return failure(refusal);
  try {
    return await manager.run(key, async () => {
      const lost = manager.takeLostNote(key);
      const extra: Result = lost ? { note: lost } : {};
      const page = await manager.openPage(key);
      if (page.dialog) {
        const dialog = page.dialog;
        return failure(`A JavaScript ${dialog.type} is open (${JSON.stringify(dialog.message)}). ${DIALOG_HINT}`);
      }
      const settled = await navigate(page, url.trim(), signal);
      return pageResult(page, settled, SNAPSHOT_CHARS, extra);
    });
  } catch (error) {
    return failure(explain(error, options));
  }
}

export function browserSnapshot(options: CommandOptions, full: boolean): Promise<string> {
  return onPage(options, (page) => pageResult(page, {}, full ? FULL_SNAPSHOT_CHARS : SNAPSHOT_CHARS));
}

export function browserClick(options: CommandOptions, ref: string): Promise<string> {
  return onPage(options, async (page) => pageResult(page, await click(page, ref, options.signal)));
}

export function browserType(options: CommandOptions, ref: string, text: string, submit: boolean): Promise<string> {
  return onPage(options, async (page) => pageResult(page, await typeText(page, ref, text, submit, options.signal)));
}

export function browserPress(options: CommandOptions, key: string): Promise<string> {
  return onPage(
    options,
    async (page) => {
      if (page.dialog) {
        const answer = key.trim().toLowerCase();
        if (answer !== "enter" && answer !== "escape" && answer !== "esc") {
          return failure(`A JavaScript ${page.dialog.type} is open. ${DIALOG_HINT}`);
        }
        const accepted = answer === "enter";
        const { type, message } = page.dialog;
        await page.answerDialog(accepted);
        return pageResult(page, {}, SNAPSHOT_CHARS, {
          answered: `The ${type} ${JSON.stringify(message)} was ${accepted ? "accepted" : "dismissed"}.`,
        });
      }
      return pageResult(page, await pressKey(page, key, options.signal));
    },
    true,
  );
}

export function browserScroll(options: CommandOptions, direction: "up" | "down"): Promise<string> {
  return onPage(options, async (page) => {
    const { settled, view } = await scroll(page, direction, options.signal);
    return pageResult(page, settled, SNAPSHOT_CHARS, { view: describeView(view) });
  });
}

export function browserBack(options: CommandOptions): Promise<string> {
  return onPage(options, async (page) => pageResult(page, await goBack(page, options.signal)));
}

export function browserGetImages(options: CommandOptions): Promise<string> {
  return onPage(options, async (page) => {
    const { url } = await page.location();
    const { images, total } = await listImages(page);
    return JSON.stringify({
      success: true,
      url,
      count: images.length,
      ...(total > images.length
        ? { total, note: `Only the first ${images.length} of ${total} images are listed.` }
        : {}),
      images,
    });
  });
}

export function browserConsole(options: CommandOptions, clear: boolean): Promise<string> {
  return onPage(options, async (page) => {
    const messages = [...page.console];
    const dropped = page.consoleDropped;
    if (clear) {
      page.console.length = 0;
      page.consoleDropped = 0;
    }
    return JSON.stringify({
      success: true,
      count: messages.length,
      ...(dropped ? { earlier_dropped: dropped } : {}),
      messages,
      ...(clear ? { cleared: true } : {}),
    });
  });
}

export function browserVision(options: CommandOptions, question: string): Promise<string> {
  return onPage(options, async (page) => {
    const png = await screenshot(page);
    mkdirSync(options.screenshotsDir, { recursive: true });
    const path = join(options.screenshotsDir, `browser-${Date.now()}-${randomBytes(3).toString("hex")}.png`);
    writeFileSync(path, png);
    const saved = {
      screenshot_path: path,
      media_tag: `MEDIA:${path}`,
      hint: "On a messaging platform, put media_tag on a line of its own in your reply to send the screenshot to the chat.",
    };
    if (!options.analyze)
      return failure("No vision model is available in this process; the screenshot was saved.", saved);
    try {
      const dataUrl = `data:image/png;base64,${png.toString("base64")}`;
      const analysis = await options.analyze({ question, dataUrl, signal: options.signal });
      return JSON.stringify({ success: true, analysis, ...saved });
    } catch (error) {
      if (options.signal.aborted) return failure("interrupted", saved);
      return failure(
        `The vision model could not analyse the screenshot: ${(error as Error).message ?? String(error)}`,
        saved,
      );
    }
  });
}
