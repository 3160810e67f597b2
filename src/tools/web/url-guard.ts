/**
 * Which URLs `web_extract` may fetch by itself: only ones on the public internet. A page the
 * model was told to read (or an injected instruction in one) must not reach the user's
 * router, a local admin panel or a cloud metadata endpoint (169.254.169.254). Names are
 * resolved and every address they resolve to is checked. A name could resolve differently by
 * the time the request connects (DNS rebinding); this check narrows the door, it does not weld
 * it shut. `web.allow_private_urls: true` lifts it, e.g. to read a local docs server.
 */
import { isIP } from "node:net";

export type Lookup = (hostname: string) => Promise<string[]>;

// node:dns/promises loads on the first check, not with the tools at start-up.
const systemLookup: Lookup = async (hostname) =>
  (await process.getBuiltinModule("node:dns/promises").lookup(hostname, { all: true, verbatim: true })).map(
    (entry) => entry.address,
  );

/** IPv4 ranges that are not the public internet: [first octets as a number, prefix length]. */
const PRIVATE_V4: Array<[string, number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

function v4Number(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function isPrivateV4(address: string): boolean {
  const n = v4Number(address);
  return PRIVATE_V4.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    const start = v4Number(base);
    return n >= start && n < start + size;
  });
}

/** The 8 groups of an IPv6 address as numbers (an embedded IPv4 tail becomes two groups). */
function v6Groups(address: string): number[] {
  let text = address.toLowerCase().split("%")[0]!;
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const n = v4Number(v4Tail[1]!);
    text = `${text.slice(0, -v4Tail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const start = parse(head);
  const end = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? [] : new Array(8 - start.length - end.length).fill(0);
  return [...start, ...zeros, ...end];
}

function isPrivateV6(address: string): boolean {
  const g = v6Groups(address);
  if (g.length !== 8) return true;
  const [a, b, c, d, e, f] = g as [number, number, number, number, number, number, number, number];
  if (g.every((x) => x === 0)) return true; // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true; // ::1
  const v4 = `${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.${g[7]! & 0xff}`;
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && (f === 0xffff || f === 0)) return isPrivateV4(v4); // mapped, compatible
  if (a === 0x64 && b === 0xff9b) return isPrivateV4(v4); // NAT64
  if ((a & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((a & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((a & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/** Whether an IP address literal is outside the public internet. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isPrivateV4(address);
  if (family === 6) return isPrivateV6(address);
  return true;
}

/** Why `url` may not be fetched, or null when its host is on the public internet. */
export async function privateUrlReason(
  url: URL,
  lookup: Lookup = systemLookup,
  tool = "web_extract",
  settingKey = "web.allow_private_urls",
): Promise<string | null> {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const refuse = (what: string) =>
    `${url.host} is ${what}; ${tool} reads only public addresses (set ${settingKey}: true to allow it)`;
  if (host === "localhost" || host.endsWith(".localhost")) return refuse("this machine");
  if (isIP(host)) return isPrivateAddress(host) ? refuse("a private or local address") : null;
  let addresses: string[];
  try {
    addresses = await lookup(host);
  } catch {
    return null; // The fetch itself reports a name that does not resolve.
  }
  const hidden = addresses.find(isPrivateAddress);
  return hidden ? refuse(`a name for the private or local address ${hidden}`) : null;
}
