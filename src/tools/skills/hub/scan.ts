/**
 * The hub's verdict on a skill folder, and whether its source's trust lets it in.
 *
 * - dangerous: a threat-scan hit in any text file (prompt injection, exfiltration, persistence,
 *   piping a download into a shell, ...), a download that is then executed, credential paths,
 *   symlinks or other non-plain files.
 * - caution: scripts or executable files, compiled programs, network commands, a large skill.
 * - safe: none of these.
 *
 * Separately, `problems` lists what makes the folder unusable as a skill at all (bad SKILL.md,
 * oversized files, ...); such a skill is never installed, whatever the verdict.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { auditSkillDir } from "../audit.js";
import { isText, sha256 } from "../skill-files.js";
import { scanSkillText } from "../threat-check.js";
import type { TrustLevel } from "./sources.js";

export type Verdict = "safe" | "caution" | "dangerous";

export interface Finding {
  /** Path relative to the skill folder ("." for the folder itself). */
  file: string;
  level: "caution" | "dangerous";
  reason: string;
}

export interface ScanReport {
  verdict: Verdict;
  findings: Finding[];
  /** Reasons the folder is not a usable skill, as `file: message`. */
  problems: string[];
  /** sha256 of every plain file, by POSIX path relative to the skill folder. */
  files: Record<string, string>;
  totalBytes: number;
}

/** A skill larger than this, or with more files, is rated caution. */
export const LARGE_SKILL_BYTES = 2 * 1024 * 1024;
export const MANY_SKILL_FILES = 100;
/** The threat scan reads this many characters at a time, overlapping, over the whole file. */
const WINDOW = 60_000;
const OVERLAP = 4_000;

const SCRIPT_EXTENSIONS = /\.(?:sh|bash|zsh|fish|py|js|mjs|cjs|ts|rb|pl|php|ps1|psm1|bat|cmd|vbs|lua|r|jl|go)$/i;

interface Pattern {
  id: string;
  pattern: RegExp;
}

/** Dangerous patterns beyond the strict threat scan. */
const DANGEROUS: Pattern[] = [
  {
    id: "download_then_execute",
    pattern:
      /\b(?:curl|wget)\b[^\n]{0,300}?(?:&&|;|\|\|)\s*(?:sudo\s+)?(?:chmod\s+[-+\w]*x|(?:ba|z|da|k)?sh\s+\S|\.\/\S|python3?\s+\S|node\s+\S)/,
  },
  {
    id: "eval_remote_code",
    pattern:
      /\b(?:eval|source|exec)\s+["'(<]*\s*\$?\(\s*(?:curl|wget)\b|\b(?:python3?|node|perl|ruby)\s+-[ce]\s+["']?\$\(\s*(?:curl|wget)\b|\biex\s*\(\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient)/,
  },
  { id: "decode_and_execute", pattern: /\bbase64\s+(?:-d|--decode|-D)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b/ },
  {
    id: "credential_path",
    pattern:
      /(?:~|\$\{?home\}?|\/home\/[\w.-]+|\/root)\/\.(?:aws\/credentials|git-credentials|netrc|docker\/config\.json|kube\/config|config\/gh\/hosts\.yml|gnupg\/)|\/etc\/shadow\b|(?:\.hermes|\$\{?hermes_home\}?)\/(?:\.env\b|auth\.json)/,
  },
];

/** Network commands: the skill talks to other machines. */
const NETWORK =
  /\b(?:curl|wget|nc|ncat|netcat|scp|sftp|rsync|telnet|ftp)\s+[-\w"'$]|\bssh\s+(?:-\S+\s+)*[\w.-]+@|\b(?:invoke-webrequest|invoke-restmethod|iwr|irm)\b|\brequests\.(?:get|post|put|delete)\(|\burllib\.request\b|\bhttps?\.(?:get|request)\(|\bfetch\(\s*["'`]https?:/;

function textWindows(text: string): string[] {
  if (text.length <= WINDOW) return [text];
  const out: string[] = [];
  for (let at = 0; at < text.length; at += WINDOW - OVERLAP) out.push(text.slice(at, at + WINDOW));
  return out;
}

function threatIds(text: string): string[] {
  const ids = new Set<string>();
  for (const window of textWindows(text)) {
    for (const id of scanSkillText(window)) ids.add(id);
    const lower = window.normalize("NFKC").toLowerCase();
    for (const { id, pattern } of DANGEROUS) if (pattern.test(lower)) ids.add(id);
  }
  return [...ids];
}

function networkCommand(text: string): string | undefined {
  for (const window of textWindows(text)) {
    const match = NETWORK.exec(window.toLowerCase());
    if (match) return match[0].replace(/[\s(]+.*$/s, "").replace(/\($/, "");
  }
  return undefined;
}

function compiledProgram(bytes: Buffer): boolean {
  const magic = bytes.subarray(0, 4).toString("hex");
  return (
    magic === "7f454c46" || // ELF
    magic.startsWith("4d5a") || // PE (MZ)
    ["feedface", "feedfacf", "cefaedfe", "cffaedfe", "cafebabe"].includes(magic) // Mach-O
  );
}

/** Scans the skill folder `dir`, to be installed as `name`. */
export function scanSkill(dir: string, name: string): ScanReport {
  const report: ScanReport = { verdict: "safe", findings: [], problems: [], files: {}, totalBytes: 0 };
  const add = (file: string, level: Finding["level"], reason: string) => report.findings.push({ file, level, reason });
  const walk = (current: string, prefix: string): void => {
    for (const entry of readdirSync(current).sort()) {
      if (entry.startsWith(".")) continue;
      const path = join(current, entry);
      const rel = prefix ? `${prefix}/${entry}` : entry;
      const stat = lstatSync(path);
      if (stat.isDirectory()) {
        walk(path, rel);
        continue;
      }
      if (stat.isSymbolicLink()) {
        add(rel, "dangerous", "is a symbolic link");
        continue;
      }
      if (!stat.isFile()) {
        add(rel, "dangerous", "is not a plain file (device, FIFO or socket)");
        continue;
      }
      const bytes = readFileSync(path);
      report.files[rel] = sha256(bytes);
      report.totalBytes += bytes.length;
      const text = isText(bytes) ? bytes.toString("utf8") : undefined;
      const threats = text === undefined ? [] : threatIds(text);
      if (threats.length) add(rel, "dangerous", `flagged by the security scan: ${threats.join(", ")}`);
      if (stat.mode & 0o111) add(rel, "caution", "is executable");
      if (text === undefined && compiledProgram(bytes)) add(rel, "caution", "is a compiled program (cannot be read)");
      else if (rel.startsWith("scripts/") || SCRIPT_EXTENSIONS.test(rel) || text?.startsWith("#!")) {
        add(rel, "caution", "is a script");
      }
      const network = text === undefined ? undefined : networkCommand(text);
      if (network) add(rel, "caution", `uses the network (${network})`);
    }
  };
  walk(dir, "");
  const count = Object.keys(report.files).length;
  if (report.totalBytes > LARGE_SKILL_BYTES || count > MANY_SKILL_FILES) {
    add(".", "caution", `is large (${count} files, ${Math.round(report.totalBytes / 1024)} KiB)`);
  }
  // The audit repeats the threat hits reported above; all else it finds (symlinks included) is a problem.
  for (const problem of auditSkillDir(dir, name)) {
    if (problem.message.startsWith("flagged by the security scan")) continue;
    report.problems.push(`${relative(dir, problem.path) || "."}: ${problem.message}`);
  }
  report.verdict = report.findings.some((f) => f.level === "dangerous")
    ? "dangerous"
    : report.findings.length
      ? "caution"
      : "safe";
  return report;
}

export interface Decision {
  allowed: boolean;
  /** Why it was refused (allowed false). */
  refusal?: string;
  /** What the user should know about an allowed install. */
  warning?: string;
}

/**
 * Whether a skill with `verdict` from a source of `trust` may be installed:
 * safe always; caution from trusted sources with a warning, from community sources only with
 * --force; dangerous never from community sources, from trusted ones only with --force.
 */
export function decide(verdict: Verdict, trust: TrustLevel, force: boolean): Decision {
  if (verdict === "safe") return { allowed: true };
  const community = trust === "community";
  if (verdict === "caution") {
    if (!community) return { allowed: true, warning: "rated caution (see the findings); review what it runs" };
    if (force) return { allowed: true, warning: "rated caution; installed because --force was given" };
    return {
      allowed: false,
      refusal:
        "rated caution and it comes from a community source: review the findings, then install again with --force",
    };
  }
  if (community) {
    return {
      allowed: false,
      refusal:
        "rated DANGEROUS and it comes from a community source; such skills are never installed, not even with --force",
    };
  }
  if (force) {
    return {
      allowed: true,
      warning:
        "!!! rated DANGEROUS and installed anyway because --force was given: the agent will follow it with all its tools !!!",
    };
  }
  return {
    allowed: false,
    refusal: "rated DANGEROUS; install it anyway only if you wrote it or trust its author, with --force",
  };
}

/** Finding lines for the terminal: `  file: reason`. */
export function findingLines(report: Pick<ScanReport, "findings" | "problems">): string[] {
  return [
    ...report.findings.map((f) => `  ${f.level === "dangerous" ? "[dangerous]" : "[caution]"} ${f.file}: ${f.reason}`),
    ...report.problems.map((p) => `  [invalid] ${p}`),
  ];
}
