/** Fetch one web page directly (no backend) and turn it into markdown. */
import { htmlToMarkdown } from "./html-to-markdown.js";
import type { ExtractedPage } from "./types.js";
import { privateUrlReason } from "./url-guard.js";

export const FETCH_TIMEOUT_MS = 20_000;
export const FETCH_MAX_BYTES = 2 * 1024 * 1024;

export const FETCH_MAX_REDIRECTS = 5;

export interface FetchPageOptions {
  timeoutMs?: number;
  maxBytes?: number;
  /** Also fetch private, loopback and link-local addresses (`web.allow_private_urls`). */
  allowPrivate?: boolean;
  /** Why a URL may not be fetched, or null (default: refuse private and local addresses). */
  checkUrl?: (url: URL) => Promise<string | null>;
  /** Why the website policy forbids a URL, or null; checked at every redirect too. */
  blocked?: (url: URL) => string | null;
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|xhtml\+xml|rss\+xml|atom\+xml|javascript|x-yaml|yaml)\b)/;

function failed(url: string, error: string): ExtractedPage {
  return { url, title: "", content: "", error };
}

async function readCapped(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), cut };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      cut = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  return { bytes: Buffer.concat(chunks), cut };
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

export async function fetchPage(
  url: string,
  signal: AbortSignal,
  options: FetchPageOptions = {},
): Promise<ExtractedPage> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return failed(url, "not a valid URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return failed(url, `only http and https URLs can be fetched, not ${parsed.protocol}`);
  }
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  const signals = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  let response: Response;
  let current = parsed;
  try {
    // Every hop is checked, so a public page cannot redirect inward or to a blocked site.
    const followBlindly = options.allowPrivate === true && !options.blocked;
    for (let hop = 0; ; hop++) {
      const refusal = options.blocked?.(current);
      if (refusal) return failed(url, refusal);
      if (!options.allowPrivate) {
        const reason = await (options.checkUrl ?? privateUrlReason)(current);
        if (reason) return failed(url, reason);
      }
      response = await fetch(current, {
        redirect: followBlindly ? "follow" : "manual",
        headers: { "user-agent": "hermes-agent web_extract", accept: "text/html,text/plain;q=0.9,*/*;q=0.5" },
        signal: signals,
      });
      const location = response.headers.get("location");
      if (followBlindly || response.status < 300 || response.status > 399 || !location) break;
      await response.body?.cancel();
      if (hop >= FETCH_MAX_REDIRECTS) return failed(url, `more than ${FETCH_MAX_REDIRECTS} redirects`);
      current = new URL(location, current);
      if (current.protocol !== "http:" && current.protocol !== "https:") {
        return failed(url, `redirected to a ${current.protocol} URL, which cannot be fetched`);
      }
    }
  } catch (error) {
    if ((error as Error).name === "TimeoutError") return failed(url, `timed out after ${timeoutMs / 1000}s`);
    return failed(url, signal.aborted ? "interrupted" : `fetch failed: ${(error as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    return failed(url, `HTTP ${response.status} ${response.statusText}`.trim());
  }
  const contentType = (response.headers.get("content-type") ?? "").toLowerCase();
  if (contentType && !TEXT_TYPES.test(contentType)) {
    await response.body?.cancel();
    return failed(url, `the page is ${contentType.split(";")[0]}, not text or HTML`);
  }
  let body: { bytes: Uint8Array; cut: boolean };
  try {
    body = await readCapped(response, options.maxBytes ?? FETCH_MAX_BYTES);
  } catch (error) {
    return failed(url, `reading the page failed: ${(error as Error).message}`);
  }
  const text = decode(body.bytes, contentType);
  const finalUrl = response.url || current.href;
  const isHtml = contentType.includes("html") || (!contentType && /^\s*<(!doctype|html)/i.test(text));
  const page = isHtml ? htmlToMarkdown(text, finalUrl) : { title: "", markdown: text };
  const note = body.cut ? `\n\n[page cut at ${options.maxBytes ?? FETCH_MAX_BYTES} bytes]` : "";
  return { url: finalUrl, title: page.title, content: page.markdown + note };
}
