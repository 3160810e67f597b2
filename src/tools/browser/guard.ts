/**
 * Which addresses the browser may reach. The URL the model asks for is checked before the page
 * is told to go there; with the guard on (private addresses refused, or a website blocklist),
 * every request the page and its frames make afterwards, redirects included, is paused by the
 * Fetch domain and checked the same way, so a public page cannot redirect or point the browser at
 * the user's router or a cloud metadata endpoint. As for web_extract, a name could resolve
 * differently by the time the browser connects (DNS rebinding): this narrows the door.
 */
import { privateUrlReason } from "../web/url-guard.js";
import type { CdpConnection, CdpParams } from "./cdp.js";

export interface UrlPolicy {
  /** `browser.allow_private_urls`. */
  allowPrivate: boolean;
  /** `security.website_blocklist`: why a URL is blocked, or null. */
  blocked?: (url: URL) => string | null;
  /** Why a URL may not be reached, in place of the private-address check (tests). */
  checkUrl?: (url: URL) => Promise<string | null>;
}

/** Schemes a page may load without a check: they reach no network address. */
const LOCAL_SCHEMES = new Set(["data:", "blob:", "about:"]);
const NETWORK_SCHEMES = new Set(["http:", "https:", "ws:", "wss:"]);
const HOST_CACHE_LIMIT = 500;
const HOST_CACHE_MS = 60_000;

export function guardActive(policy: UrlPolicy): boolean {
  return !policy.allowPrivate || Boolean(policy.blocked);
}

/** Why the model may not open `raw` (null: it may). Only http(s) URLs are opened. */
export async function navigationRefusal(raw: string, policy: UrlPolicy): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw.slice(0, 200)}" is not a URL: give a full http:// or https:// address.`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `Only http:// and https:// pages can be opened, not ${url.protocol} ones.`;
  }
  return new RequestChecker(policy).refusal(url);
}

/** Checks URLs, remembering each host's private-address verdict for a minute. */
export class RequestChecker {
  private readonly hosts = new Map<string, { at: number; reason: Promise<string | null> }>();

  constructor(private readonly policy: UrlPolicy) {}

  async refusal(url: URL): Promise<string | null> {
    if (LOCAL_SCHEMES.has(url.protocol)) return null;
    if (!NETWORK_SCHEMES.has(url.protocol)) return `the browser does not load ${url.protocol} URLs`;
    const blocked = this.policy.blocked?.(url);
    if (blocked) return blocked;
    if (this.policy.allowPrivate) return null;
    if (this.policy.checkUrl) return this.policy.checkUrl(url);
    const key = `${url.protocol}//${url.host}`;
    const now = Date.now();
    const cached = this.hosts.get(key);
    if (cached && now - cached.at < HOST_CACHE_MS) return cached.reason;
    if (this.hosts.size >= HOST_CACHE_LIMIT) this.hosts.clear();
    const reason = privateUrlReason(url, undefined, "the browser", "browser.allow_private_urls");
    this.hosts.set(key, { at: now, reason });
    return reason;
  }
}

export interface BlockedRequest {
  url: string;
  reason: string;
  /** A document load of the page's main frame (a navigation or its redirect). */
  mainFrame: boolean;
}

/**
 * Pauses every request of the sessions it is attached to and lets through only those the
 * policy allows; `onBlocked` hears of each refused one.
 */
export class RequestGuard {
  private readonly checker: RequestChecker;
  private readonly sessions = new Set<string>();
  private readonly stop: () => void;

  constructor(
    private readonly connection: CdpConnection,
    policy: UrlPolicy,
    private readonly mainFrameId: () => string | undefined,
    private readonly onBlocked: (blocked: BlockedRequest) => void,
  ) {
    this.checker = new RequestChecker(policy);
    this.stop = connection.on("Fetch.requestPaused", (params, sessionId) => {
      if (sessionId && this.sessions.has(sessionId)) void this.decide(params, sessionId);
    });
  }

  async attach(sessionId: string): Promise<void> {
    this.sessions.add(sessionId);
    await this.connection.send(
      "Fetch.enable",
      { patterns: [{ urlPattern: "*", requestStage: "Request" }] },
      { sessionId },
    );
  }

  detach(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  dispose(): void {
    this.stop();
    this.sessions.clear();
  }

  private async decide(params: CdpParams, sessionId: string): Promise<void> {
    const requestId = params.requestId as string;
    const request = params.request as { url?: string } | undefined;
    const raw = request?.url ?? "";
    let reason: string | null;
    try {
      reason = await this.checker.refusal(new URL(raw));
    } catch {
      reason = "the request's URL could not be read";
    }
    const send = (method: string, extra: CdpParams = {}) =>
      this.connection.send(method, { requestId, ...extra }, { sessionId }).catch(() => {});
    if (!reason) {
      await send("Fetch.continueRequest");
      return;
    }
    const mainFrame = params.resourceType === "Document" && params.frameId === this.mainFrameId();
    this.onBlocked({ url: raw.slice(0, 300), reason, mainFrame });
    await send("Fetch.failRequest", { errorReason: "BlockedByClient" });
  }
}
