/** Whether a configured API base URL can be used at all (checked where it is set and before a run). */

/** Why `value` is not a usable base URL, or undefined when it is one. */
export function baseUrlProblem(value: string): string | undefined {
  const trimmed = value.trim();
  if (!trimmed) return "it is empty";
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    return `it has no scheme (did you mean http://${trimmed.replace(/^\/+/, "")} ?)`;
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return "it is not a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `its scheme is ${url.protocol} (use http or https)`;
  if (!url.hostname) return "it has no host";
  return undefined;
}

/** Whether `host` (a URL's hostname, IPv6 in brackets or not) names this machine's loopback interface. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/** Whether `baseUrl` is a URL on this machine's loopback interface. */
export function isLoopbackUrl(baseUrl: string | undefined): boolean {
  if (!baseUrl) return false;
  try {
    return isLoopbackHost(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}
