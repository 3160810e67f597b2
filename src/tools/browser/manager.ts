/**
 * One browser per runtime, started on the first browser call (or reached at `browser.cdp_url`),
 * and one tab per agent session. A session's calls run one at a time; a tab left alone for
 * `browser.inactivity_timeout` seconds is closed, and the launched browser with the last one.
 * A browser that dies is reported to the sessions that had a tab in it, and the next call starts
 * a new one.
 */
import { EventEmitter } from "node:events";
import { CdpConnection } from "./cdp.js";
import type { BrowserBinary } from "./find.js";
import type { UrlPolicy } from "./guard.js";
import { describeExit, launchBrowser } from "./launcher.js";
import { BrowserPage, type DialogPolicy, type PageSettings } from "./page.js";
import { resolveCdpUrl, safeUrl, webSocketTransport } from "./transport.js";

export interface BrowserSettings {
  /** Where the local browser is (HERMES_BROWSER_PATH or PATH), looked up at launch. */
  findBinary: () => BrowserBinary;
  /** `browser.cdp_url`: a running browser to use instead of launching one ("" = launch). */
  cdpUrl: string;
  commandTimeoutMs: number;
  inactivityMs: number;
  dialogPolicy: DialogPolicy;
  dialogTimeoutMs: number;
  policy: UrlPolicy;
}

interface Connected {
  connection: CdpConnection;
  /** The launched browser's process id (none for cdp_url). */
  pid?: number;
  close(): Promise<void>;
}

const LAUNCH_TIMEOUT_MS = 30_000;

/** A failure to start or reach the browser; its message is the tool's error. */
export class BrowserUnavailableError extends Error {}

export class BrowserManager extends EventEmitter {
  private browser: Promise<Connected> | undefined;
  private current: Connected | undefined;
  private readonly pages = new Map<string, BrowserPage>();
  /** Why a session's tab is gone, told to that session once. */
  private readonly lost = new Map<string, string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private shutDown = false;

  constructor(readonly settings: BrowserSettings) {
    super();
  }

  /** The launched browser's process id, once it runs. */
  get pid(): number | undefined {
    return this.current?.pid;
  }

  /** Runs `work` for a session, after its earlier calls, with its inactivity clock stopped. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (this.shutDown) throw new BrowserUnavailableError("The browser tools were shut down with the agent.");
    const previous = this.queues.get(key) ?? Promise.resolve();
    const current = previous
      .catch(() => {})
      .then(async () => {
        clearTimeout(this.timers.get(key));
        this.timers.delete(key);
        try {
          return await work();
        } finally {
          this.armInactivity(key);
        }
      });
    this.queues.set(key, current);
    try {
      return await current;
    } finally {
      if (this.queues.get(key) === current) this.queues.delete(key);
    }
  }

  /** The session's open tab, if it has one. */
  page(key: string): BrowserPage | undefined {
    const page = this.pages.get(key);
    return page && !page.closedReason ? page : undefined;
  }

  /** The session's tab, opened (and the browser started) when it has none. */
  async openPage(key: string): Promise<BrowserPage> {
    const existing = this.page(key);
    if (existing) return existing;
    const browser = await this.connect();
    const settings: PageSettings = {
      commandTimeoutMs: this.settings.commandTimeoutMs,
      dialogPolicy: this.settings.dialogPolicy,
      dialogTimeoutMs: this.settings.dialogTimeoutMs,
      policy: this.settings.policy,
    };
    const page = await BrowserPage.open(browser.connection, settings);
    this.pages.set(key, page);
    page.on("closed", (reason: string) => {
      if (this.pages.get(key) !== page) return;
      this.pages.delete(key);
      this.lost.set(key, `The tab closed (${reason}); browser_navigate opens a new one.`);
    });
    page.on("dialog-timeout", () => this.emit("dialog-timeout", key));
    return page;
  }

  /** Why the session's tab went away since its last call (told once), if it did. */
  takeLostNote(key: string): string | undefined {
    const note = this.lost.get(key);
    this.lost.delete(key);
    return note;
  }

  private armInactivity(key: string): void {
    if (this.shutDown || !this.pages.has(key)) return;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      void this.closeIdlePage(key);
    }, this.settings.inactivityMs);
    timer.unref();
    this.timers.set(key, timer);
  }

  private async closeIdlePage(key: string): Promise<void> {
    const page = this.pages.get(key);
    if (!page || this.queues.has(key)) return;
    this.pages.delete(key);
    const seconds = this.settings.inactivityMs / 1000;
    this.lost.set(
      key,
      `The tab was closed after ${seconds} s without a browser call; browser_navigate opens a new one.`,
    );
    await page.close();
    // A browser with no tabs left is not kept around (it holds hundreds of megabytes).
    if (this.pages.size === 0) await this.closeBrowser();
    this.emit("page-closed", key, "inactive");
  }

  private connect(): Promise<Connected> {
    if (!this.browser) {
      const starting = this.start();
      this.browser = starting;
      starting.then(
        (connected) => {
          this.current = connected;
        },
        () => {
          if (this.browser === starting) this.browser = undefined;
        },
      );
    }
    return this.browser;
  }

  private async start(): Promise<Connected> {
    const timeoutMs = this.settings.commandTimeoutMs;
    if (this.settings.cdpUrl.trim()) {
      const where = safeUrl(this.settings.cdpUrl);
      let connection: CdpConnection;
      try {
        const url = await resolveCdpUrl(this.settings.cdpUrl, timeoutMs);
        connection = new CdpConnection(await webSocketTransport(url, timeoutMs), timeoutMs);
      } catch (error) {
        throw new BrowserUnavailableError(
          `Could not connect to the browser (browser.cdp_url): ${(error as Error).message}`,
        );
      }
      const connected: Connected = { connection, close: async () => connection.close() };
      connection.onClose((reason) => this.gone(connected, `the connection to ${where} was lost: ${reason}`));
      return connected;
    }
    const binary = this.settings.findBinary();
    if (!binary.ok) throw new BrowserUnavailableError(binary.error);
    let launched: Awaited<ReturnType<typeof launchBrowser>>;
    try {
      // Starting is slower than any one command on a busy machine: it gets at least 30 s.
      launched = await launchBrowser(binary.path, Math.max(timeoutMs, LAUNCH_TIMEOUT_MS));
    } catch (error) {
      throw new BrowserUnavailableError((error as Error).message);
    }
    const connected: Connected = { connection: launched.connection, pid: launched.pid, close: launched.close };
    void launched.exited.then((exit) => this.gone(connected, describeExit(exit)));
    return connected;
  }

  /** The browser went away without us closing it: every tab in it is lost. */
  private gone(connected: Connected, why: string): void {
    if (this.current !== connected) return;
    this.current = undefined;
    this.browser = undefined;
    for (const [key, page] of this.pages) {
      page.closedReason ??= `the browser stopped (${why})`;
      void page.close();
      this.lost.set(
        key,
        `The browser stopped unexpectedly (${why}) and the tab was lost; browser_navigate starts a new browser.`,
      );
      clearTimeout(this.timers.get(key));
    }
    this.pages.clear();
    this.timers.clear();
    void connected.close();
    this.emit("browser-exited", why);
  }

  private async closeBrowser(): Promise<void> {
    const connected = this.current;
    this.current = undefined;
    this.browser = undefined;
    await connected?.close();
  }

  /** Closes every tab and the browser (the runtime calls this when it closes). */
  async close(): Promise<void> {
    this.shutDown = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    const pages = [...this.pages.values()];
    this.pages.clear();
    await this.browser?.catch(() => undefined);
    await Promise.all(pages.map((page) => page.close()));
    await this.closeBrowser();
  }
}
