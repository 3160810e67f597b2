/**
 * What discovery learns from a SKILL.md — its parsed frontmatter, problems and threat-scan
 * findings — kept in `$HERMES_HOME/cache/skill-scans.json` and reused while the file's size and
 * modification time are unchanged. Every start discovers every skill, and parsing and scanning
 * are the cost that grows with the number installed. The cache is keyed by the agent's version
 * and the threat patterns themselves, so a new scanner scans everything again; a damaged
 * or foreign cache file is ignored and replaced.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { THREAT_PATTERNS } from "../../util/threats.js";
import { packageVersion } from "../../util/version.js";
import { parseSkillMarkdown, type SkillFrontmatter } from "./frontmatter.js";
import { scanSkillText } from "./threat-check.js";

export interface SkillScan {
  frontmatter?: SkillFrontmatter;
  errors: string[];
  warnings: string[];
  /** Threat ids found in the description (empty when clean or when there is no frontmatter). */
  threats: string[];
}

interface Entry extends SkillScan {
  size: number;
  mtimeMs: number;
}

interface CacheFile {
  key: string;
  entries: Record<string, Entry>;
}

let fingerprint: string | undefined;

/**
 * The version and every threat pattern, written out: compared whole, as a string, which is
 * native work, where hashing its ~7,000 characters in JavaScript cost each start about a
 * millisecond. The cache file grows by as much; it is read once per start either way.
 */
function cacheKey(): string {
  fingerprint ??= [
    "2",
    packageVersion(),
    ...THREAT_PATTERNS.map((p) => `${p.id}:${p.pattern.source}:${p.pattern.flags}`),
  ].join("\n");
  return fingerprint;
}

export function scanCachePath(home: string): string {
  return join(home, "cache", "skill-scans.json");
}

export class SkillScanCache {
  private readonly used: Record<string, Entry> = {};
  private changed = false;

  private constructor(
    private readonly path: string | undefined,
    private readonly entries: Record<string, Entry>,
  ) {}

  /** The cache of `home`; without a home, a cache that remembers nothing. */
  static open(home: string | undefined): SkillScanCache {
    if (!home) return new SkillScanCache(undefined, {});
    const path = scanCachePath(home);
    try {
      const file = JSON.parse(readFileSync(path, "utf8")) as Partial<CacheFile>;
      if (file.key === cacheKey() && file.entries && typeof file.entries === "object") {
        return new SkillScanCache(path, file.entries);
      }
    } catch {
      // No cache yet, or not one we can read: scan everything.
    }
    return new SkillScanCache(path, {});
  }

  /** The scan of `skillFile`, from the cache when the file is unchanged. Throws when it cannot be read. */
  scan(skillFile: string): SkillScan {
    const stat = statSync(skillFile);
    const known = this.entries[skillFile];
    if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) {
      this.used[skillFile] = known;
      return known;
    }
    const parsed = parseSkillMarkdown(readFileSync(skillFile, "utf8"));
    const scan: SkillScan = {
      ...(parsed.frontmatter ? { frontmatter: parsed.frontmatter } : {}),
      errors: parsed.errors,
      warnings: parsed.warnings,
      threats: parsed.frontmatter ? scanSkillText(parsed.frontmatter.description) : [],
    };
    this.used[skillFile] = { ...scan, size: stat.size, mtimeMs: stat.mtimeMs };
    this.changed = true;
    return scan;
  }

  /** Writes what this discovery saw (skills gone since are dropped); nothing when unchanged. */
  save(): void {
    const dropped = Object.keys(this.entries).some((file) => !(file in this.used));
    if (!this.path || (!this.changed && !dropped)) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify({ key: cacheKey(), entries: this.used } satisfies CacheFile));
      renameSync(temporary, this.path);
    } catch {
      // A read-only home just scans again next time.
    }
  }
}
