/**
 * One agent session's tab: its own browser context (cookies and storage shared with no other
 * session), downloads denied, the request guard attached, and what the page says collected as
 * it happens: console messages and errors, JavaScript dialogs, refused requests.
 */
import { EventEmitter } from "node:events";
import type { CdpConnection, CdpParams, SendOptions } from "./cdp.js";
import { type BlockedRequest, guardActive, RequestGuard, type UrlPolicy } from "./guard.js";
import { type AXNode, buildSnapshot, type Snapshot } from "./snapshot.js";

export type DialogPolicy = "must_respond" | "accept" | "dismiss";

export interface PageSettings {
  commandTimeoutMs: number;
  dialogPolicy: DialogPolicy;
  dialogTimeoutMs: number;
  policy: UrlPolicy;
}

export interface OpenDialog {
  type: string;
  message: string;
  defaultPrompt: string;
}

const CONSOLE_LIMIT = 200;
export const VIEWPORT = { width: 1280, height: 800 };
const CONSOLE_ENTRY_CHARS = 1000;
const MESSAGE_CHARS = 300;

function clip(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

function remoteText(arg: CdpParams): string {
  if (arg.value !== undefined) return typeof arg.value === "string" ? arg.value : JSON.stringify(arg.value);
  if (typeof arg.unserializableValue === "string") return arg.unserializableValue;
  if (typeof arg.description === "string") return arg.description;
  return String(arg.type ?? "");
}

export class BrowserPage extends EventEmitter {
  /** Ref ("e3") to backend DOM node id, from the last snapshot; cleared by navigation. */
  refs = new Map<string, number>();
  readonly console: string[] = [];
  consoleDropped = 0;
  dialog: OpenDialog | null = null;
  /** Things to tell the model with its next result (dialogs answered for it, requests refused). */
  readonly notes: string[] = [];
  /** The last refused load of the main frame, for the navigation that caused it. */
  blockedNavigation: BlockedRequest | null = null;
  closedReason: string | null = null;
  private readonly stops: Array<() => void> = [];
  private guard: RequestGuard | undefined;
  private dialogTimer: NodeJS.Timeout | undefined;
  private mainFrameId: string | undefined;

  private constructor(
    readonly connection: CdpConnection,
    readonly targetId: string,
    readonly sessionId: string,
    private readonly browserContextId: string | undefined,
    readonly settings: PageSettings,
  ) {
    super();
  }

  static async open(connection: CdpConnection, settings: PageSettings): Promise<BrowserPage> {
    let browserContextId: string | undefined;
    try {
      const context = await connection.send("Target.createBrowserContext", { disposeOnDetach: true });
      browserContextId = context.browserContextId as string;
    } catch {
      // Some remote browsers allow no new contexts: the tab then shares the default one.
    }
    await connection
      .send("Browser.setDownloadBehavior", { behavior: "deny", ...(browserContextId ? { browserContextId } : {}) })
      .catch(() => {});
    const created = await connection.send("Target.createTarget", {
      url: "about:blank",
      ...(browserContextId ? { browserContextId } : {}),
    });
    const targetId = created.targetId as string;
    const attached = await connection.send("Target.attachToTarget", { targetId, flatten: true });
    const page = new BrowserPage(connection, targetId, attached.sessionId as string, browserContextId, settings);
    try {
      await page.start();
    } catch (error) {
      await page.close();
      throw error;
    }
    return page;
  }

  send(method: string, params: CdpParams = {}, options: Omit<SendOptions, "sessionId"> = {}): Promise<CdpParams> {
    if (this.closedReason) return Promise.reject(new Error(this.closedReason));
    return this.connection.send(method, params, {
      timeoutMs: this.settings.commandTimeoutMs,
      ...options,
      sessionId: this.sessionId,
    });
  }

  /** Listen to an event of this page's session. */
  onProtocol(method: string, handler: (params: CdpParams) => void): () => void {
    return this.connection.on(method, (params, sessionId) => {
      if (sessionId === this.sessionId) handler(params);
    });
  }

  isMainFrame(frameId: unknown): boolean {
    return frameId === this.mainFrameId;
  }

  private async start(): Promise<void> {
    this.listen();
    if (guardActive(this.settings.policy)) {
      this.guard = new RequestGuard(
        this.connection,
        this.settings.policy,
        () => this.mainFrameId,
        (blocked) => this.onBlocked(blocked),
      );
      await this.guard.attach(this.sessionId);
      // Frames in other processes and workers are their own targets: guard them before they run.
      await this.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    }
    await Promise.all([this.send("Page.enable"), this.send("Runtime.enable"), this.send("Log.enable")]);
    await this.send("Inspector.enable").catch(() => {});
    // The same viewport whatever the window (a browser at cdp_url has its own): snapshots and
    // screenshots do not depend on the screen.
    await this.send("Emulation.setDeviceMetricsOverride", {
      width: VIEWPORT.width,
      height: VIEWPORT.height,
      deviceScaleFactor: 1,
      mobile: false,
    }).catch(() => {});
    const tree = await this.send("Page.getFrameTree");
    this.mainFrameId = (tree.frameTree as { frame?: { id?: string } } | undefined)?.frame?.id ?? this.targetId;
  }

  private listen(): void {
    const stops = this.stops;
    stops.push(
      this.onProtocol("Runtime.consoleAPICalled", (params) => {
        const args = (params.args as CdpParams[] | undefined) ?? [];
        this.addConsole(`[${String(params.type ?? "log")}] ${args.map(remoteText).join(" ")}`);
      }),
      this.onProtocol("Runtime.exceptionThrown", (params) => {
        const details = (params.exceptionDetails ?? {}) as { text?: string; exception?: CdpParams };
        const description = details.exception?.description;
        this.addConsole(`[uncaught] ${typeof description === "string" ? description : (details.text ?? "exception")}`);
      }),
      this.onProtocol("Log.entryAdded", (params) => {
        const entry = (params.entry ?? {}) as { level?: string; text?: string; url?: string };
        this.addConsole(`[${entry.level ?? "log"}] ${entry.text ?? ""}${entry.url ? ` (${entry.url})` : ""}`);
      }),
      this.onProtocol("Page.javascriptDialogOpening", (params) => this.onDialog(params)),
      this.onProtocol("Page.javascriptDialogClosed", () => this.clearDialog()),
      this.onProtocol("Page.frameNavigated", (params) => {
        const frame = params.frame as { id?: string; parentId?: string } | undefined;
        if (frame && !frame.parentId) this.refs.clear();
      }),
      this.onProtocol("Inspector.targetCrashed", () => this.markClosed("the page's renderer crashed")),
      this.onProtocol("Target.attachedToTarget", (params) => void this.guardChild(params)),
      this.connection.on("Target.detachedFromTarget", (params) => {
        if (params.sessionId === this.sessionId) this.markClosed("the page was closed");
        else if (typeof params.sessionId === "string") this.guard?.detach(params.sessionId);
      }),
    );
  }

  private async guardChild(params: CdpParams): Promise<void> {
    const sessionId = params.sessionId as string;
    const options = { sessionId, timeoutMs: this.settings.commandTimeoutMs };
    try {
      await this.guard?.attach(sessionId);
      await this.connection
        .send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, options)
        .catch(() => {});
    } finally {
      await this.connection.send("Runtime.runIfWaitingForDebugger", {}, options).catch(() => {});
    }
  }

  private addConsole(line: string): void {
    this.console.push(clip(line, CONSOLE_ENTRY_CHARS));
    if (this.console.length > CONSOLE_LIMIT) {
      this.console.shift();
      this.consoleDropped++;
    }
  }

  private onBlocked(blocked: BlockedRequest): void {
    if (blocked.mainFrame) this.blockedNavigation = blocked;
    else if (this.notes.length < 20)
      this.notes.push(`Refused a request of the page to ${blocked.url}: ${blocked.reason}`);
  }

  private onDialog(params: CdpParams): void {
    const dialog: OpenDialog = {
      type: String(params.type ?? "alert"),
      message: clip(String(params.message ?? ""), MESSAGE_CHARS),
      defaultPrompt: String(params.defaultPrompt ?? ""),
    };
    const policy = this.settings.dialogPolicy;
    if (policy !== "must_respond") {
      const accept = policy === "accept";
      this.notes.push(
        `A JavaScript ${dialog.type} said ${JSON.stringify(dialog.message)}; it was ${accept ? "accepted" : "dismissed"} (browser.dialog_policy: ${policy}).`,
      );
      void this.send("Page.handleJavaScriptDialog", { accept, promptText: dialog.defaultPrompt }).catch(() => {});
      return;
    }
    this.dialog = dialog;
    clearTimeout(this.dialogTimer);
    this.dialogTimer = setTimeout(() => {
      const seconds = this.settings.dialogTimeoutMs / 1000;
      this.notes.push(
        `The JavaScript ${dialog.type} ${JSON.stringify(dialog.message)} was dismissed after ${seconds} s without an answer.`,
      );
      void this.answerDialog(false).finally(() => this.emit("dialog-timeout", dialog));
    }, this.settings.dialogTimeoutMs);
    this.dialogTimer.unref();
    this.emit("dialog", dialog);
  }

  private clearDialog(): void {
    this.dialog = null;
    clearTimeout(this.dialogTimer);
    this.dialogTimer = undefined;
  }

  /** Accept or dismiss the open dialog (a prompt is answered with its default text). */
  async answerDialog(accept: boolean): Promise<void> {
    const dialog = this.dialog;
    if (!dialog) return;
    this.clearDialog();
    await this.send("Page.handleJavaScriptDialog", { accept, promptText: dialog.defaultPrompt });
  }

  /** Resolves when a dialog opens; `cancel` stops listening. */
  dialogOpened(): { promise: Promise<OpenDialog>; cancel: () => void } {
    let listener: ((dialog: OpenDialog) => void) | undefined;
    const promise = new Promise<OpenDialog>((resolve) => {
      listener = resolve;
      this.once("dialog", resolve);
    });
    return { promise, cancel: () => listener && this.off("dialog", listener) };
  }

  /** Resolves on the next event of this page that `accept` takes; `cancel` stops listening. */
  nextEvent(method: string, accept: (params: CdpParams) => boolean = () => true) {
    let stop = () => {};
    const promise = new Promise<CdpParams>((resolve) => {
      stop = this.onProtocol(method, (params) => {
        if (!accept(params)) return;
        stop();
        resolve(params);
      });
    });
    return { promise, cancel: () => stop() };
  }

  async snapshot(limit: number): Promise<Snapshot> {
    const tree = await this.send("Accessibility.getFullAXTree");
    const snapshot = buildSnapshot((tree.nodes as AXNode[] | undefined) ?? [], limit);
    this.refs = snapshot.refs;
    return snapshot;
  }

  /** The current entry of the tab's history: its URL and title. */
  async location(): Promise<{ url: string; title: string; index: number; entries: CdpParams[] }> {
    const history = await this.send("Page.getNavigationHistory");
    const entries = (history.entries as CdpParams[] | undefined) ?? [];
    const index = Number(history.currentIndex ?? 0);
    const entry = entries[index] ?? {};
    return { url: String(entry.url ?? ""), title: String(entry.title ?? ""), index, entries };
  }

  /** Notes gathered since the last result, handed over once. */
  takeNotes(): string[] {
    return this.notes.splice(0);
  }

  private markClosed(reason: string): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    this.clearDialog();
    this.emit("closed", reason);
  }

  async close(): Promise<void> {
    const wasOpen = !this.closedReason;
    this.markClosed("the page was closed");
    for (const stop of this.stops.splice(0)) stop();
    this.guard?.dispose();
    const timeoutMs = this.settings.commandTimeoutMs;
    if (wasOpen)
      await this.connection.send("Target.closeTarget", { targetId: this.targetId }, { timeoutMs }).catch(() => {});
    if (this.browserContextId) {
      await this.connection
        .send("Target.disposeBrowserContext", { browserContextId: this.browserContextId }, { timeoutMs })
        .catch(() => {});
    }
  }
}
