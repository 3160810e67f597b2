/**
 * Downloads for the skills hub: http(s) through the global fetch (redirects followed, a timeout,
 * a size cap read as the body streams in) and `file:` URLs read from disk under the same cap.
 * Every failure is a HubError whose message says what was fetched and what went wrong.
 */

import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BodyTooLarge, readResponseCapped } from "../../../util/read-capped.js";

/** The largest artifact (index, tarball, SKILL.md) the hub downloads. */
export const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;
export const DOWNLOAD_TIMEOUT_MS = 60_000;

/** A failure of a hub operation, with a message meant for the user. */
export class HubError extends Error {
  override name = "HubError";
}

export interface DownloadOptions {
  maxBytes?: number;
  timeoutMs?: number;
}

/** Whether `text` is an absolute URL with one of the given schemes (e.g. "http:", "https:"). */
export function hasScheme(text: string, ...schemes: string[]): boolean {
  try {
    return schemes.includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

function tooLarge(url: string, max: number): HubError {
  const limit = max >= 1024 * 1024 ? `${Math.round(max / 1024 / 1024)} MB` : `${max} bytes`;
  return new HubError(`${url} is larger than ${limit}; the hub refuses it`);
}

async function readCapped(response: Response, url: string, max: number): Promise<Buffer> {
  try {
    return await readResponseCapped(response, max);
  } catch (error) {
    throw error instanceof BodyTooLarge ? tooLarge(url, max) : error;
  }
}

/** The bytes at `url` (http, https or file). Throws a HubError on any failure. */
export async function download(url: string, options: DownloadOptions = {}): Promise<Buffer> {
  const max = options.maxBytes ?? MAX_DOWNLOAD_BYTES;
  const timeoutMs = options.timeoutMs ?? DOWNLOAD_TIMEOUT_MS;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HubError(`"${url}" is not a URL`);
  }
  if (parsed.protocol === "file:") {
    const path = fileURLToPath(parsed);
    try {
      if (statSync(path).size > max) throw tooLarge(url, max);
      return readFileSync(path);
    } catch (error) {
      if (error instanceof HubError) throw error;
      throw new HubError(`cannot read ${path}: ${(error as Error).message}`);
    }
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new HubError(`${url}: only http, https and file URLs can be downloaded`);
  }
  let response: Response;
  try {
    response = await fetch(parsed, { redirect: "follow", signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const reason =
      (error as Error).name === "TimeoutError"
        ? `no answer within ${timeoutMs / 1000}s`
        : ((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message);
    throw new HubError(`cannot download ${url}: ${reason}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new HubError(`cannot download ${url}: the server answered ${response.status} ${response.statusText}`.trim());
  }
  try {
    return await readCapped(response, url, max);
  } catch (error) {
    await response.body?.cancel().catch(() => {});
    if (error instanceof HubError) throw error;
    throw new HubError(`cannot download ${url}: ${(error as Error).message}`);
  }
}
