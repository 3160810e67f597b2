/**
 * A self-hosted chat server's address as a user pastes it (Mattermost, a Matrix homeserver):
 * its base URL without a trailing slash or the API path a user may have copied with it, or a
 * problem naming the variable to fix.
 */
export interface ServerAddressRules {
  /** What the address is of, in "no <noun> address" ("server", "homeserver"). */
  noun: string;
  /** The variable the address comes from, named in problems. */
  variable: string;
  /** A well-formed example, shown when the address has no scheme. */
  example: string;
  /** What authenticates instead of credentials in the URL ("the token", "the access token"). */
  credential: string;
  /** Removes an API path pasted with the address from a path without trailing slashes. */
  stripApiPath(path: string): string;
}

export function serverBaseUrl(raw: string, rules: ServerAddressRules): { url: string } | { problem: string } {
  const trimmed = raw.trim();
  if (!trimmed) return { problem: `no ${rules.noun} address; set ${rules.variable} (e.g. ${rules.example})` };
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return {
      problem: `${rules.variable} "${trimmed}" is not a URL; write it with its scheme, e.g. ${rules.example}`,
    };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { problem: `${rules.variable} must start with https:// or http://, not ${url.protocol}//` };
  }
  if (url.username || url.password) {
    return { problem: `${rules.variable} must not carry a user name or password; ${rules.credential} authenticates` };
  }
  const path = rules.stripApiPath(url.pathname.replace(/\/+$/, "")).replace(/\/+$/, "");
  return { url: `${url.origin}${path}` };
}
