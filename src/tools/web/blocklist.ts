/**
 * `security.website_blocklist`: hosts the web tools must not reach, named in config.yaml and in
 * shared list files (one rule per line, `#` comments). A rule `example.com` blocks that host and
 * every name under it; `*.example.com` blocks the names under it only. A rule written as a URL or
 * with a path counts for its host, and a leading `www.` is dropped. Shared files are read again
 * at most every 30 seconds, so an edited list applies without a restart; a missing or unreadable
 * file is reported once and the other rules still apply.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

export interface WebsiteBlocklistSettings {
  enabled: boolean;
  domains: readonly string[];
  shared_files: readonly string[];
}

export interface BlockedUrl {
  host: string;
  rule: string;
  /** Where the rule came from: config.yaml or a shared file's path. */
  source: string;
  message: string;
}

interface Rule {
  pattern: string;
  source: string;
}

const CONFIG_SOURCE = "config.yaml security.website_blocklist.domains";
const SHARED_FILES_TTL_MS = 30_000;

/** The host a rule names (lowercase, no `www.`, no trailing dot), or null for blanks, comments and junk. */
export function normalizeRule(rule: string): string | null {
  let value = rule.trim().toLowerCase();
  if (!value || value.startsWith("#")) return null;
  const wildcard = value.startsWith("*.");
  if (wildcard) value = value.slice(2);
  const hasScheme = value.includes("://");
  if (hasScheme || value.includes("@") || /:\d+(\/|$)/.test(value)) {
    try {
      value = new URL(hasScheme ? value : `http://${value}`).hostname;
    } catch {
      return null;
    }
  }
  value = value
    .split("/")[0]!
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "");
  if (!wildcard) value = value.replace(/^www\./, "");
  if (!value || value.includes("@") || value.includes(" ")) return null;
  return wildcard ? `*.${value}` : value;
}

/** Whether `host` falls under `pattern` (both normalized). */
export function hostMatchesRule(host: string, pattern: string): boolean {
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
  return host === pattern || host.endsWith(`.${pattern}`);
}

function hostOf(url: string | URL): string | null {
  try {
    const parsed = typeof url === "string" ? new URL(url.includes("://") ? url : `http://${url}`) : url;
    return (
      parsed.hostname
        .replace(/^\[|\]$/g, "")
        .replace(/\.+$/, "")
        .toLowerCase() || null
    );
  } catch {
    return null;
  }
}

export class WebsiteBlocklist {
  private readonly configRules: Rule[];
  private sharedRules: Rule[] = [];
  private sharedReadAt = Number.NEGATIVE_INFINITY;
  private readonly reported = new Set<string>();

  constructor(
    private readonly settings: WebsiteBlocklistSettings,
    private readonly home: string,
    private readonly warn: (message: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {
    this.configRules = settings.domains.flatMap((domain) => {
      const pattern = normalizeRule(domain);
      return pattern ? [{ pattern, source: CONFIG_SOURCE }] : [];
    });
  }

  /** The list for these settings, or null when it is off (nothing to check). */
  static from(
    settings: WebsiteBlocklistSettings,
    home: string,
    warn?: (message: string) => void,
  ): WebsiteBlocklist | null {
    return settings.enabled ? new WebsiteBlocklist(settings, home, warn) : null;
  }

  /** Why `url` may not be fetched, or null when no rule covers its host. */
  check(url: string | URL): BlockedUrl | null {
    const host = hostOf(url);
    if (!host) return null;
    for (const rule of [...this.configRules, ...this.shared()]) {
      if (hostMatchesRule(host, rule.pattern)) {
        return {
          host,
          rule: rule.pattern,
          source: rule.source,
          message: `blocked by the website policy: ${host} matches the rule "${rule.pattern}" (${rule.source})`,
        };
      }
    }
    return null;
  }

  private shared(): Rule[] {
    if (this.settings.shared_files.length === 0) return [];
    const at = this.now();
    if (at - this.sharedReadAt < SHARED_FILES_TTL_MS) return this.sharedRules;
    this.sharedReadAt = at;
    this.sharedRules = this.settings.shared_files.flatMap((file) => this.readFile(file));
    return this.sharedRules;
  }

  private readFile(file: string): Rule[] {
    const path = file.startsWith("~/")
      ? join(homedir(), file.slice(2))
      : isAbsolute(file)
        ? file
        : join(this.home, file);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if (!this.reported.has(path)) {
        this.reported.add(path);
        this.warn(
          `website blocklist file ${path} could not be read (${(error as NodeJS.ErrnoException).code ?? error}); its rules are skipped`,
        );
      }
      return [];
    }
    this.reported.delete(path);
    return text.split(/\r?\n/).flatMap((line) => {
      const pattern = normalizeRule(line.replace(/^\uFEFF/, ""));
      return pattern ? [{ pattern, source: path }] : [];
    });
  }
}
