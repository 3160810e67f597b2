/**
 * The hardline blocklist: commands so destructive that no approval, allow-list or "yolo" mode
 * may let them run. The command is normalised and parsed first (sudo/env wrappers, quoting,
 * `$IFS`, ANSI escapes, `bash -c` strings) so trivial obfuscation does not slip past.
 */
import type { Word } from "../../util/shell-words.js";
import {
  analyzeCommand,
  type CommandAnalysis,
  type Invocation,
  isForkBomb,
  isShell,
  operands,
  pipesInto,
} from "./command-analysis.js";
import { normalizePath, writeTargets } from "./sensitive-paths.js";

export interface HardlineResult {
  blocked: boolean;
  description: string | null;
}

const ROOT_LEVEL_DIRS =
  "bin|boot|dev|etc|home|lib|lib32|lib64|libx32|opt|proc|root|run|sbin|srv|sys|usr|var|system|library|applications|users";
const ROOT_LEVEL = new RegExp(`^(?:/|/\\*|/(?:${ROOT_LEVEL_DIRS})/?\\*?|~/?\\*?|[a-z]:/?\\*?)$`);
const RAW_DISK = /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|mapper\/|md\d|dm-\d)/;
const DOWNLOADERS = new Set(["curl", "wget", "fetch", "http", "https"]);

/** Whether a path names the filesystem root, a top-level system directory or the home directory itself. */
export function isRootLevelPath(path: string): boolean {
  let p = normalizePath(path);
  if (path.trim().startsWith("/")) p = resolveDots(p);
  return p !== "" && ROOT_LEVEL.test(p);
}

/** Whether a path is the filesystem root or everything directly in it ("/", "//", "/.", "/*"). */
function isFilesystemRoot(path: string): boolean {
  const bare = path.trim().replace(/^["']|["']$/g, "");
  if (!bare.startsWith("/")) return false;
  return resolveDots(bare.endsWith("/*") ? bare.slice(0, -1) : bare) === "/";
}

/** Resolves "." and ".." segments of an absolute path ("/tmp/../" is "/"). */
function resolveDots(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

function isRecursive(args: Word[]): boolean {
  return (
    args.some((w) => /^-[a-zA-Z]*[rR]/.test(w.value) && !w.value.startsWith("--")) ||
    args.some((w) => w.value === "--recursive")
  );
}

/** The paths find starts from: the words before its expression, or "." when there are none. */
function findStartPaths(args: Word[]): string[] {
  const words = args.map((w) => w.value);
  let i = 0;
  // -H, -L, -P, -D debugopts, -Olevel come before the paths.
  while (/^-(?:[HLP]+|D|O\d*)$/.test(words[i] ?? "")) i += words[i] === "-D" ? 2 : 1;
  const paths: string[] = [];
  while (i < words.length && !/^(?:-.|[(!,])/.test(words[i]!)) paths.push(words[i++]!);
  return paths.length > 0 ? paths : ["."];
}

function findDeletes(inv: Invocation): boolean {
  const args = inv.args.map((w) => w.value);
  return (
    args.includes("-delete") || args.some((a, i) => /^-exec(?:dir)?$/.test(a) && /(?:^|\/)rm$/.test(args[i + 1] ?? ""))
  );
}

function deletesRoot(inv: Invocation): boolean {
  if (inv.name === "rm") {
    if (inv.args.some((w) => w.value === "--no-preserve-root")) return true;
    return isRecursive(inv.args) && operands(inv.args).some((w) => isRootLevelPath(w.value));
  }
  if (inv.name === "find") return findDeletes(inv) && findStartPaths(inv.args).some(isRootLevelPath);
  return false;
}

function rewritesRootPermissions(inv: Invocation): boolean {
  if (inv.name !== "chmod" && inv.name !== "chown" && inv.name !== "chgrp") return false;
  // Only the root itself: `chown -R root:root /srv` is an ordinary (approvable) admin task.
  const targets = operands(inv.args).slice(1);
  return isRecursive(inv.args) && targets.some((w) => isFilesystemRoot(w.value));
}

function writesRawDisk(inv: Invocation): boolean {
  const targets = writeTargets(inv).map((w) => normalizePath(w.value));
  if (inv.name === "shred" || inv.name === "wipefs")
    targets.push(...operands(inv.args).map((w) => normalizePath(w.value)));
  return targets.some((t) => RAW_DISK.test(t));
}

/** A download piped into a shell that runs as root, or `sudo bash -c "$(curl ...)"`. */
function downloadIntoRootShell(analysis: CommandAnalysis): boolean {
  const runsDownload = (inv: Invocation) =>
    inv.wrappers.includes("sudo") &&
    isShell(inv.name) &&
    /\$\(\s*(?:curl|wget)\b|`\s*(?:curl|wget)\b/.test(inv.args.map((w) => w.value).join(" "));
  if (analysis.invocations.some(runsDownload)) return true;
  return pipesInto(
    analysis.invocations,
    (inv) => DOWNLOADERS.has(inv.name),
    (inv) => {
      const asRoot = inv.wrappers.some((w) => w === "sudo" || w === "doas" || w === "pkexec");
      return asRoot && (isShell(inv.name) || /^(?:i?python|perl|ruby|node)/.test(inv.name));
    },
  );
}

/** `cd` to the root, a top-level directory or home, then a recursive delete of "everything here". */
function deletesAfterCdToRoot(analysis: CommandAnalysis): boolean {
  let atRootLevel = false;
  for (const inv of analysis.invocations) {
    if (inv.name === "cd" || inv.name === "pushd") {
      const target = operands(inv.args)[0]?.value ?? "~";
      atRootLevel = isRootLevelPath(target);
      continue;
    }
    if (!atRootLevel) continue;
    const here = (path: string) => /^(?:\.{1,2}\/?|\.\/\*|\*|\.\*)$/.test(path);
    if (inv.name === "rm" && isRecursive(inv.args) && operands(inv.args).some((w) => here(w.value))) return true;
    if (inv.name === "find" && findDeletes(inv) && findStartPaths(inv.args).some(here)) return true;
  }
  return false;
}

const ASSIGNMENT =
  /(?:^|[;&|(\s])(?:export\s+|local\s+|readonly\s+|declare\s+)?([A-Za-z_]\w*)=("[^"]*"|'[^']*'|[^\s;&|)]*)/g;

/**
 * The command with variables assigned in it replaced by their values (`D=~; rm -rf $D` is
 * `rm -rf ~`), or null when it assigns none.
 */
export function expandAssignments(command: string): string | null {
  const values = new Map<string, string>();
  for (const match of command.matchAll(ASSIGNMENT)) {
    const raw = match[2] ?? "";
    values.set(match[1]!, /^(["']).*\1$/.test(raw) ? raw.slice(1, -1) : raw);
  }
  if (values.size === 0) return null;
  return command.replace(/\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)/g, (whole, braced: string, bare: string) => {
    const value = values.get(braced ?? bare);
    return value === undefined ? whole : value;
  });
}

interface HardlineRule {
  description: string;
  test: (analysis: CommandAnalysis) => boolean;
}

const HARDLINE_RULES: HardlineRule[] = [
  {
    description: "recursive delete of the filesystem root, a top-level system directory or the home directory",
    test: (a) => a.invocations.some(deletesRoot),
  },
  {
    description: "fork bomb",
    test: (a) => isForkBomb(a.lower),
  },
  {
    description: "format a filesystem (mkfs)",
    test: (a) => a.invocations.some((inv) => /^(?:mkfs(?:\..+)?|mke2fs|mkntfs|mkdosfs|newfs(?:_\w+)?)$/.test(inv.name)),
  },
  { description: "write directly to a raw disk device", test: (a) => a.invocations.some(writesRawDisk) },
  { description: "pipe a download into a root shell", test: downloadIntoRootShell },
  {
    description: "recursive permission or ownership change of the filesystem root",
    test: (a) => a.invocations.some(rewritesRootPermissions),
  },
  {
    description: "recursive delete of everything in the filesystem root, a top-level directory or the home directory",
    test: deletesAfterCdToRoot,
  },
];

/** Whether `command` is on the hardline blocklist that no approval can override. */
export function detectHardlineCommand(command: string): HardlineResult {
  if (typeof command !== "string" || command.trim() === "") return { blocked: false, description: null };
  const expanded = expandAssignments(command);
  const analyses = [analyzeCommand(command), ...(expanded !== null ? [analyzeCommand(expanded)] : [])];
  for (const rule of HARDLINE_RULES) {
    if (analyses.some((analysis) => rule.test(analysis))) return { blocked: true, description: rule.description };
  }
  return { blocked: false, description: null };
}
