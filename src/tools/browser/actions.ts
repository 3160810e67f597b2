/**
 * What the tools do to a page, through real input events: a click is a mouse press and release
 * at the element's centre, typing is focus, select-all and inserted text, a key is a key event.
 * Each action then waits for what it set off: a load of the main frame, or a JavaScript dialog
 * (which blocks the page until answered, so waiting on the page stops there).
 */
import type { CdpParams } from "./cdp.js";
import { parseKey } from "./keys.js";
import type { BrowserPage, OpenDialog } from "./page.js";

/** An error the model caused and can fix; its message is the tool's error. */
export class ToolError extends Error {}

export interface Settled {
  dialog?: OpenDialog;
  /** The load the action started did not finish within the time limit. */
  timedOut?: boolean;
}

/** How long an action gets to start a navigation before we stop watching for one. */
const NAVIGATION_START_MS = 150;

function delay(ms: number): { promise: Promise<"timeout">; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/** Rejects when the turn is interrupted; `cancel` stops listening (the signal outlives the call). */
function aborted(signal: AbortSignal | undefined): { promise: Promise<never>; cancel: () => void } {
  let cancel = () => {};
  const promise = new Promise<never>((_, reject) => {
    if (signal?.aborted) return reject(new ToolError("interrupted"));
    const onAbort = () => reject(new ToolError("interrupted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    cancel = () => signal?.removeEventListener("abort", onAbort);
  });
  promise.catch(() => {});
  return { promise, cancel };
}

/**
 * Runs `act`, then waits for a main-frame load it started (if `act` resolves to false, it
 * started none worth waiting for), stopping early when a dialog opens.
 */
export async function settle(
  page: BrowserPage,
  act: () => Promise<boolean | undefined>,
  signal?: AbortSignal,
): Promise<Settled> {
  const started = page.nextEvent("Page.frameStartedLoading", (p) => page.isMainFrame(p.frameId));
  const stopped = page.nextEvent("Page.frameStoppedLoading", (p) => page.isMainFrame(p.frameId));
  const dialog = page.dialogOpened();
  const abort = aborted(signal);
  const stop = abort.promise;
  const waits: Array<{ cancel: () => void }> = [started, stopped, dialog, abort];
  try {
    const acted = await Promise.race([act(), dialog.promise.then((d) => ({ dialog: d })), stop]);
    if (acted && typeof acted === "object") return acted;
    if (acted === false) return {};
    const window = delay(NAVIGATION_START_MS);
    waits.push(window);
    const loading = await Promise.race([
      started.promise.then(() => "started" as const),
      window.promise,
      dialog.promise.then((d) => ({ dialog: d })),
      stop,
    ]);
    if (typeof loading === "object") return loading;
    if (loading === "timeout") return {};
    const limit = delay(page.settings.commandTimeoutMs);
    waits.push(limit);
    const done = await Promise.race([
      stopped.promise.then(() => "loaded" as const),
      limit.promise,
      dialog.promise.then((d) => ({ dialog: d })),
      stop,
    ]);
    if (typeof done === "object") return done;
    if (done === "timeout") {
      await page.send("Page.stopLoading").catch(() => {});
      return { timedOut: true };
    }
    return {};
  } finally {
    for (const wait of waits) wait.cancel();
  }
}

/** Opens `url` in the page; a refused or failed load is a ToolError. */
export async function navigate(page: BrowserPage, url: string, signal?: AbortSignal): Promise<Settled> {
  page.blockedNavigation = null;
  page.refs.clear();
  let failure: string | undefined;
  const settled = await settle(
    page,
    async () => {
      const result = await page.send("Page.navigate", { url });
      if (result.isDownload === true) {
        failure = "the URL is a file download, and the browser downloads nothing (use web_extract or the terminal)";
        return false;
      }
      if (typeof result.errorText === "string" && result.errorText) {
        failure = result.errorText;
        return false;
      }
      // No loader: the URL differed only in its fragment, and nothing loads.
      return result.loaderId ? undefined : false;
    },
    signal,
  );
  const blocked = page.blockedNavigation as { url: string; reason: string } | null;
  if (blocked) throw new ToolError(`Refused to load ${blocked.url}: ${blocked.reason}`);
  if (failure) throw new ToolError(`The page could not be opened: ${failure}`);
  return settled;
}

export function refNode(page: BrowserPage, ref: string): number {
  const key = ref.trim().replace(/^@/, "");
  const id = page.refs.get(key);
  if (id === undefined) {
    throw new ToolError(
      `Unknown ref "${ref.slice(0, 40)}": refs come from the latest snapshot and end with a navigation. Take a browser_snapshot and use a ref from it.`,
    );
  }
  return id;
}

/** Runs a DOM command on a ref's node; a node that left the page is a ToolError. */
async function onNode(page: BrowserPage, ref: string, method: string, params: CdpParams = {}): Promise<CdpParams> {
  const backendNodeId = refNode(page, ref);
  try {
    return await page.send(method, { backendNodeId, ...params });
  } catch (error) {
    const message = (error as Error).message;
    if (/No node|not found|Could not find node|detached/i.test(message)) {
      throw new ToolError(`${ref} is no longer on the page. Take a new browser_snapshot.`);
    }
    if (/content quads|box model|not visible/i.test(message)) {
      throw new ToolError(`${ref} has no visible box to click (it is hidden or has no size).`);
    }
    if (/not focusable/i.test(message))
      throw new ToolError(`${ref} cannot take the focus, so it cannot be typed into.`);
    throw error;
  }
}

async function nodeName(page: BrowserPage, ref: string): Promise<string> {
  const described = await onNode(page, ref, "DOM.describeNode");
  return String((described.node as { nodeName?: string } | undefined)?.nodeName ?? "").toUpperCase();
}

/** Calls a fixed function of ours on the ref's element (never code from the model). */
async function callOn(page: BrowserPage, ref: string, fn: string, args: unknown[] = []): Promise<unknown> {
  const resolved = await onNode(page, ref, "DOM.resolveNode");
  const objectId = (resolved.object as { objectId?: string } | undefined)?.objectId;
  if (!objectId) throw new ToolError(`${ref} is no longer on the page. Take a new browser_snapshot.`);
  const result = await page.send("Runtime.callFunctionOn", {
    objectId,
    functionDeclaration: fn,
    arguments: args.map((value) => ({ value })),
    returnByValue: true,
  });
  return (result.result as { value?: unknown } | undefined)?.value;
}

const PICK_OPTION = `function () {
  const select = this.closest("select");
  if (!select) return false;
  this.selected = true;
  select.dispatchEvent(new Event("input", { bubbles: true }));
  select.dispatchEvent(new Event("change", { bubbles: true }));
  return true;
}`;

const CHOOSE_OPTION = `function (wanted) {
  const want = String(wanted).trim().toLowerCase();
  for (const option of this.options) {
    if (option.label.trim().toLowerCase() === want || option.value.trim().toLowerCase() === want) {
      option.selected = true;
      this.dispatchEvent(new Event("input", { bubbles: true }));
      this.dispatchEvent(new Event("change", { bubbles: true }));
      return option.label;
    }
  }
  return null;
}`;

/** The area of a quad given as four corners (x1, y1, ..., x4, y4). */
function quadArea(q: number[]): number {
  let twice = 0;
  for (let i = 0; i < 4; i++) {
    const j = (i + 1) % 4;
    twice += q[i * 2]! * q[j * 2 + 1]! - q[j * 2]! * q[i * 2 + 1]!;
  }
  return Math.abs(twice) / 2;
}

export async function click(page: BrowserPage, ref: string, signal?: AbortSignal): Promise<Settled> {
  // An option of a closed <select> has no box of its own: choose it the way a user's pick would.
  if ((await nodeName(page, ref)) === "OPTION") {
    return settle(page, async () => {
      if (!(await callOn(page, ref, PICK_OPTION))) throw new ToolError(`${ref} is an option outside any list.`);
      return undefined;
    });
  }
  await onNode(page, ref, "DOM.scrollIntoViewIfNeeded");
  const { quads } = await onNode(page, ref, "DOM.getContentQuads");
  const quad = (quads as number[][] | undefined)?.find((q) => q.length >= 8 && quadArea(q) >= 1);
  if (!quad) throw new ToolError(`${ref} has no visible box to click (it is hidden or has no size).`);
  const x = (quad[0]! + quad[2]! + quad[4]! + quad[6]!) / 4;
  const y = (quad[1]! + quad[3]! + quad[5]! + quad[7]!) / 4;
  const metrics = await page.send("Page.getLayoutMetrics");
  const view = (metrics.cssLayoutViewport ?? {}) as { clientWidth?: number; clientHeight?: number };
  if (
    x < 0 ||
    y < 0 ||
    x > (view.clientWidth ?? Number.POSITIVE_INFINITY) ||
    y > (view.clientHeight ?? Number.POSITIVE_INFINITY)
  ) {
    throw new ToolError(`${ref} is outside the page's visible area even when scrolled to, so it cannot be clicked.`);
  }
  return settle(
    page,
    async () => {
      await page.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
      await page.send("Input.dispatchMouseEvent", { type: "mousePressed", x, y, button: "left", clickCount: 1 });
      await page.send("Input.dispatchMouseEvent", { type: "mouseReleased", x, y, button: "left", clickCount: 1 });
      return undefined;
    },
    signal,
  );
}

export async function typeText(
  page: BrowserPage,
  ref: string,
  text: string,
  submit: boolean,
  signal?: AbortSignal,
): Promise<Settled> {
  if ((await nodeName(page, ref)) === "SELECT") {
    const chosen = await callOn(page, ref, CHOOSE_OPTION, [text]);
    if (chosen === null) throw new ToolError(`${ref} is a list without an option called "${text.slice(0, 100)}".`);
  } else {
    await onNode(page, ref, "DOM.focus");
    // Replace what the field held, as a user selecting all and typing would.
    const selectAll = { key: "a", code: "KeyA", windowsVirtualKeyCode: 65, modifiers: 2, commands: ["selectAll"] };
    await page.send("Input.dispatchKeyEvent", { type: "rawKeyDown", ...selectAll });
    await page.send("Input.dispatchKeyEvent", { type: "keyUp", ...selectAll });
    await page.send("Input.insertText", { text });
  }
  return submit ? pressKey(page, "Enter", signal) : {};
}

export async function pressKey(page: BrowserPage, key: string, signal?: AbortSignal): Promise<Settled> {
  const parsed = parseKey(key);
  if (!parsed) throw new ToolError(`Unknown key "${key.slice(0, 40)}".`);
  const { definition, modifiers } = parsed;
  const event = {
    key: definition.key,
    code: definition.code,
    windowsVirtualKeyCode: definition.keyCode,
    modifiers,
  };
  // With Control, Alt or Meta held a key types nothing: it is a shortcut.
  const text = modifiers & 7 ? undefined : definition.text;
  return settle(
    page,
    async () => {
      await page.send("Input.dispatchKeyEvent", {
        type: text ? "keyDown" : "rawKeyDown",
        ...event,
        ...(text ? { text } : {}),
      });
      await page.send("Input.dispatchKeyEvent", { type: "keyUp", ...event });
      return undefined;
    },
    signal,
  );
}

/** Scrolls the page by most of a screen; returns where the view is now. */
export async function scroll(page: BrowserPage, direction: "up" | "down", signal?: AbortSignal) {
  const before = await viewport(page);
  const distance = Math.round(before.height * 0.8) * (direction === "down" ? 1 : -1);
  const settled = await settle(
    page,
    async () => {
      await page.send("Runtime.evaluate", { expression: `window.scrollBy(0, ${distance})`, returnByValue: true });
      return undefined;
    },
    signal,
  );
  return { settled, view: await viewport(page) };
}

async function viewport(page: BrowserPage) {
  const metrics = await page.send("Page.getLayoutMetrics");
  const view = (metrics.cssVisualViewport ?? {}) as { pageY?: number; clientHeight?: number };
  const content = (metrics.cssContentSize ?? {}) as { height?: number };
  return { top: Math.round(view.pageY ?? 0), height: view.clientHeight ?? 800, page: Math.round(content.height ?? 0) };
}

export function describeView(view: { top: number; height: number; page: number }): string {
  const bottom = Math.min(view.page, view.top + view.height);
  return `showing pixels ${view.top}-${Math.round(bottom)} of ${view.page}${bottom >= view.page ? " (the bottom)" : ""}${view.top === 0 ? " (the top)" : ""}`;
}

export async function goBack(page: BrowserPage, signal?: AbortSignal): Promise<Settled> {
  const { index, entries } = await page.location();
  const previous = entries[index - 1];
  // The tab's first entry is the blank page it opened with.
  if (index <= 0 || !previous || previous.url === "about:blank") {
    throw new ToolError("There is no earlier page in this tab's history.");
  }
  page.refs.clear();
  return settle(
    page,
    async () => {
      await page.send("Page.navigateToHistoryEntry", { entryId: previous.id });
      return undefined;
    },
    signal,
  );
}

const IMAGE_LIMIT = 100;
const SRC_CHARS = 500;

const LIST_IMAGES = `Array.from(document.images, (img) => ({
  src: img.currentSrc || img.src || "",
  alt: img.alt || "",
  width: img.naturalWidth,
  height: img.naturalHeight,
})).filter((img) => img.src)`;

export interface PageImage {
  src: string;
  alt: string;
  width: number;
  height: number;
}

export async function listImages(page: BrowserPage): Promise<{ images: PageImage[]; total: number }> {
  const result = await page.send("Runtime.evaluate", { expression: LIST_IMAGES, returnByValue: true });
  const all = ((result.result as { value?: unknown } | undefined)?.value ?? []) as PageImage[];
  const images = all.slice(0, IMAGE_LIMIT).map((img) => ({
    src:
      img.src.startsWith("data:") && img.src.length > 100
        ? `${img.src.slice(0, 40)}… (${img.src.length} characters)`
        : img.src.slice(0, SRC_CHARS),
    alt: String(img.alt).slice(0, 300),
    width: Number(img.width) || 0,
    height: Number(img.height) || 0,
  }));
  return { images, total: all.length };
}

export async function screenshot(page: BrowserPage): Promise<Buffer> {
  const shot = await page.send("Page.captureScreenshot", { format: "png" });
  return Buffer.from(String(shot.data ?? ""), "base64");
}
