/**
 * Size limits on files chat users send. Each platform has a limit of its own; on top of it
 * `gateway.max_inbound_media_bytes` caps every platform at once, and the smaller of the two
 * applies. Bodies are read as they stream and dropped the moment they pass the limit, so a
 * file that lies about its size (or declares none) never sits in memory whole.
 */
import { BodyTooLarge, readResponseCapped } from "../../util/read-capped.js";

/** The config key of the ceiling every platform shares. */
export const MEDIA_CAP_KEY = "gateway.max_inbound_media_bytes";

export interface MediaCap {
  /** The largest file taken, in bytes. */
  bytes: number;
  /** The gateway-wide ceiling is what limits here (it is below the platform's own limit). */
  fromGateway: boolean;
}

/** The effective limit: the platform's own, or the gateway's ceiling when that is smaller (0 or unset: no ceiling). */
export function mediaCap(platformBytes: number, gatewayBytes: number | undefined): MediaCap {
  if (gatewayBytes && gatewayBytes > 0 && gatewayBytes < platformBytes)
    return { bytes: gatewayBytes, fromGateway: true };
  return { bytes: platformBytes, fromGateway: false };
}

/** "20 MiB", "1.5 MiB", "4096 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${bytes} bytes`;
  return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`;
}

/** The phrase a refusal note uses when the gateway's ceiling is what refused the file. */
export function gatewayCapPhrase(cap: MediaCap): string {
  return `the ${formatBytes(cap.bytes)} limit set by ${MEDIA_CAP_KEY}`;
}

/**
 * The body of `response`, or undefined as soon as it is (or declares itself) larger than
 * `maxBytes`; the rest of the body is then never read and the connection is cancelled.
 */
export async function readCapped(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  try {
    return await readResponseCapped(response, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLarge) return undefined;
    throw error;
  }
}
