/**
 * The browser toolset: a headless Chromium (or the browser at `browser.cdp_url`) driven over the
 * DevTools protocol, one tab per agent session. This module holds only the schemas and the
 * lazily started manager; the protocol client, launcher and actions load on the first call.
 * No tool runs JavaScript the model wrote (`browser.allow_unsafe_evaluate` adds none).
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "../../util/schema/index.js";
import { findBrowser } from "../browser/find.js";
import { KEY_NAMES } from "../browser/keys.js";
import type { BrowserManager } from "../browser/manager.js";
import type { DialogPolicy } from "../browser/page.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import type { VisionAnalyzer } from "../vision/types.js";
import type { WebsiteBlocklist } from "../web/blocklist.js";

export interface BrowserToolOptions {
  /** `browser.inactivity_timeout`: seconds without a call before a session's tab is closed. */
  inactivityTimeoutSeconds?: number;
  /** `browser.command_timeout`: seconds one browser command (or a page load) may take. */
  commandTimeoutSeconds?: number;
  /** `browser.allow_private_urls`: let pages load private, loopback and link-local addresses. */
  allowPrivateUrls?: boolean;
  /** `browser.cdp_url`: use this running browser instead of launching one. */
  cdpUrl?: string;
  /** `browser.dialog_policy` and `browser.dialog_timeout_s`. */
  dialogPolicy?: DialogPolicy;
  dialogTimeoutSeconds?: number;
  /** `security.website_blocklist`, when enabled. */
  blocklist?: WebsiteBlocklist | null;
  /** The vision model, for browser_vision. */
  analyze?: VisionAnalyzer;
  /** HERMES_HOME, for `cache/screenshots`. */
  home?: string;
  /** Where HERMES_BROWSER_PATH, PATH and HERMES_HOME are read (default process.env). */
  env?: () => Record<string, string | undefined>;
  /** Why a URL may not be loaded, in place of the private-address check (tests). */
  checkUrl?: (url: URL) => Promise<string | null>;
}

const DEFAULTS = { inactivity: 120, command: 30, dialog: 300 };

/** The browser of one runtime: started by the first call, closed with the runtime. */
export class BrowserTools {
  private starting: Promise<BrowserManager> | undefined;
  private started: BrowserManager | undefined;

  constructor(readonly options: BrowserToolOptions = {}) {}

  private env(): Record<string, string | undefined> {
    return this.options.env ? this.options.env() : process.env;
  }

  /** Usable when a browser binary is found or a running browser is configured. */
  available(): boolean {
    return Boolean(this.options.cdpUrl?.trim()) || findBrowser(this.env()).ok;
  }

  screenshotsDir(): string {
    const env = this.env();
    const home = this.options.home ?? (env.HERMES_HOME?.trim() || join(homedir(), ".hermes"));
    return join(home, "cache", "screenshots");
  }

  /** The manager, once a call has created it (tests watch its events). */
  get current(): BrowserManager | undefined {
    return this.started;
  }

  manager(): Promise<BrowserManager> {
    this.starting ??= import("../browser/manager.js").then(({ BrowserManager }) => {
      const o = this.options;
      const blocklist = o.blocklist;
      this.started = new BrowserManager({
        findBinary: () => findBrowser(this.env()),
        cdpUrl: o.cdpUrl ?? "",
        commandTimeoutMs: (o.commandTimeoutSeconds || DEFAULTS.command) * 1000,
        inactivityMs: (o.inactivityTimeoutSeconds || DEFAULTS.inactivity) * 1000,
        dialogPolicy: o.dialogPolicy ?? "must_respond",
        dialogTimeoutMs: (o.dialogTimeoutSeconds || DEFAULTS.dialog) * 1000,
        policy: {
          allowPrivate: o.allowPrivateUrls === true,
          ...(blocklist ? { blocked: (url: URL) => blocklist.check(url)?.message ?? null } : {}),
          ...(o.checkUrl ? { checkUrl: o.checkUrl } : {}),
        },
      });
      return this.started;
    });
    return this.starting;
  }

  /** Closes every tab and the browser, if one was started. */
  async close(): Promise<void> {
    const manager = this.started ?? (this.starting ? await this.starting.catch(() => undefined) : undefined);
    await manager?.close();
  }
}

const ref = z.string().min(1).max(40).describe("Element ref from the snapshot, e.g. @e3");

export const browserParameters = {
  navigate: z.object({ url: z.string().min(1).max(4000).describe("http(s) URL") }),
  snapshot: z.object({ full: z.boolean().optional().describe("Show more of a long page") }),
  click: z.object({ ref }),
  type: z.object({
    ref,
    text: z.string().max(10_000).describe("Replaces the field's content"),
    submit: z.boolean().optional().describe("Press Enter afterwards"),
  }),
  press: z.object({ key: z.string().min(1).max(40).describe(`${KEY_NAMES}, a character, or Shift+Tab style`) }),
  scroll: z.object({ direction: z.enum(["up", "down"]) }),
  back: z.object({}),
  images: z.object({}),
  vision: z.object({ question: z.string().min(1).max(4000).describe("What to find out from the screenshot") }),
  console: z.object({ clear: z.boolean().optional().describe("Empty the log after reading") }),
};

const PAGE_RESULT = "Returns the URL, title and a text snapshot with @refs for elements";

export function registerBrowserTools(registry: ToolRegistry, tools: BrowserTools): void {
  const run =
    <A>(work: (commands: typeof import("../browser/commands.js"), base: CommandBase, args: A) => Promise<string>) =>
    async (args: A, ctx: ToolContext): Promise<string> => {
      const [commands, manager] = await Promise.all([import("../browser/commands.js"), tools.manager()]);
      const base: CommandBase = {
        manager,
        key: ctx.sessionId || ctx.taskId || "default",
        signal: ctx.signal,
        screenshotsDir: tools.screenshotsDir(),
        ...(tools.options.analyze ? { analyze: tools.options.analyze } : {}),
      };
      return work(commands, base, args);
    };
  const common = { toolset: "browser", check: () => tools.available(), untrustedOutput: true, emoji: "🌍" };
  registry.register({
    ...common,
    name: "browser_navigate",
    description: `Open a web page in a real browser (runs its JavaScript; use for interactive sites). ${PAGE_RESULT}.`,
    parameters: browserParameters.navigate,
    handler: run((c, base, args: { url: string }) => c.browserNavigate(base, args.url)),
  });
  registry.register({
    ...common,
    name: "browser_snapshot",
    description: `Read the current page again. ${PAGE_RESULT}; refs change with every snapshot.`,
    parameters: browserParameters.snapshot,
    handler: run((c, base, args: { full?: boolean }) => c.browserSnapshot(base, args.full === true)),
  });
  registry.register({
    ...common,
    name: "browser_click",
    description: `Click an element by its @ref. ${PAGE_RESULT} after the click.`,
    parameters: browserParameters.click,
    handler: run((c, base, args: { ref: string }) => c.browserClick(base, args.ref)),
  });
  registry.register({
    ...common,
    name: "browser_type",
    description: `Type text into a field (or pick a list option) by @ref. ${PAGE_RESULT} afterwards.`,
    parameters: browserParameters.type,
    handler: run((c, base, args: { ref: string; text: string; submit?: boolean }) =>
      c.browserType(base, args.ref, args.text, args.submit === true),
    ),
  });
  registry.register({
    ...common,
    name: "browser_press",
    description: `Press a key on the page; Enter/Escape also answer an open dialog. ${PAGE_RESULT}.`,
    parameters: browserParameters.press,
    handler: run((c, base, args: { key: string }) => c.browserPress(base, args.key)),
  });
  registry.register({
    ...common,
    name: "browser_scroll",
    description: `Scroll the page up or down by most of a screen. ${PAGE_RESULT} and the scroll position.`,
    parameters: browserParameters.scroll,
    handler: run((c, base, args: { direction: "up" | "down" }) => c.browserScroll(base, args.direction)),
  });
  registry.register({
    ...common,
    name: "browser_back",
    description: `Go back to the previous page of the tab. ${PAGE_RESULT}.`,
    parameters: browserParameters.back,
    handler: run((c, base) => c.browserBack(base)),
  });
  registry.register({
    ...common,
    name: "browser_get_images",
    description: "List the current page's images. Returns each image's URL, alt text and size.",
    parameters: browserParameters.images,
    handler: run((c, base) => c.browserGetImages(base)),
  });
  registry.register({
    ...common,
    name: "browser_vision",
    description:
      "Screenshot the current page and ask the vision model about it (layout, charts, captchas). " +
      "Returns the answer, the screenshot's path and a MEDIA: line.",
    parameters: browserParameters.vision,
    handler: run((c, base, args: { question: string }) => c.browserVision(base, args.question)),
  });
  registry.register({
    ...common,
    name: "browser_console",
    description: "Read the page's console. Returns its log messages and uncaught errors since the page opened.",
    parameters: browserParameters.console,
    handler: run((c, base, args: { clear?: boolean }) => c.browserConsole(base, args.clear === true)),
  });
}

type CommandBase = import("../browser/commands.js").CommandOptions;
