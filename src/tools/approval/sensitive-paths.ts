/**
 * Which files a command writes, and which of those writes need a person's approval: system
 * files, raw disks, credentials, SSH keys, shell start-up files, Hermes' own config and .env,
 * and a project's .env or config files.
 */
import type { Word } from "../../util/shell-words.js";
import { type Invocation, operands } from "./command-analysis.js";

export interface SensitiveTarget {
  key: string;
  description: string;
}

const RAW_DEVICE =
  /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|mapper\/|md\d|dm-\d|loop\d|sr\d)/;
const SYSTEM_PATH =
  /^(?:\/(?:etc|boot|bin|sbin|lib|lib32|lib64|libx32|usr|sys|proc|system|library\/launch(?:agents|daemons))(?:\/|$)|\/private\/(?:etc|var|tmp)(?:\/|$)|\/var\/spool\/cron(?:\/|$))/;
const SHELL_RC =
  /(?:^|\/)(?:\.bashrc|\.bash_profile|\.bash_login|\.bash_logout|\.profile|\.zshrc|\.zprofile|\.zshenv|\.zlogin|\.cshrc|\.tcshrc|\.kshrc|\.config\/fish\/config\.fish)$/;
const CREDENTIAL_FILE =
  /(?:^|\/)(?:\.netrc|_netrc|\.pgpass|\.npmrc|\.pypirc|\.git-credentials|\.my\.cnf|\.aws\/(?:credentials|config)|\.docker\/config\.json|\.kube\/config|\.gnupg\/.*|\.config\/gh\/hosts\.yml)$/;
const HERMES_FILE = /(?:^|\/)\.hermes\/(?:config\.ya?ml|\.env|auth\.json|soul\.md)$/;
const ENV_FILE = /(?:^|\/)\.env(?:\.(?!example$|sample$|template$|dist$)[\w.-]+)?$/;
const PROJECT_CONFIG = /(?:^|\/)config\.(?:ya?ml|json|toml)$/;

/** Lower-case, `/`-separated, with home and HERMES_HOME references written as `~`. */
export function normalizePath(path: string): string {
  return path
    .toLowerCase()
    .replace(/\\/g, "/")
    .replace(/^["']|["']$/g, "")
    .replace(/^\$\{?hermes_home\}?(?=\/|$)/, "~/.hermes")
    .replace(/^(?:\$\{?home\}?|~[a-z0-9_-]*)(?=\/|$)/, "~")
    .replace(/^[a-z]:\/(?:users|documents and settings)\/[^/]+(?=\/|$)/, "~")
    .replace(/\/{2,}/g, "/")
    .replace(/(?:\/\.)+$/, "");
}

function isRelative(path: string): boolean {
  return !/^(?:\/|~|\$|[a-z]:\/)/.test(path);
}

/**
 * Places where a file is run later, without anyone asking: autostart entries, systemd and
 * launchd units, git hooks. A write there is how a one-off command becomes a standing one.
 */
export function classifyPersistenceTarget(path: string): SensitiveTarget | null {
  const p = normalizePath(path);
  if (/(?:^|\/)\.config\/autostart\/|(?:^|\/)library\/launchagents\//.test(p)) {
    return { key: "autostart_write", description: "write an autostart entry (runs at login)" };
  }
  if (/(?:^|\/)\.config\/systemd\/user\/|(?:^|\/)\.local\/share\/systemd\/user\//.test(p)) {
    return { key: "systemd_unit_write", description: "write a systemd user unit" };
  }
  if (/(?:^|\/)\.git\/hooks\/[^/]+$/.test(p)) {
    return { key: "git_hook_write", description: "write a git hook (runs on git commands)" };
  }
  return null;
}

/** Why writing to `path` needs approval, or null when it does not. */
export function classifyWriteTarget(path: string): SensitiveTarget | null {
  const p = normalizePath(path);
  if (p === "" || p === "/dev/null" || p.startsWith("&")) return null;
  const persistence = classifyPersistenceTarget(p);
  if (persistence) return persistence;
  if (RAW_DEVICE.test(p)) return { key: "raw_device_write", description: "write to a raw disk device" };
  if (/(?:^|\/)\.ssh(?:\/|$)|(?:^|\/)authorized_keys$/.test(p)) {
    return { key: "ssh_write", description: "write to SSH keys or config (~/.ssh)" };
  }
  if (HERMES_FILE.test(p)) return { key: "hermes_config_write", description: "write to Hermes config, auth or .env" };
  if (SHELL_RC.test(p)) return { key: "shell_rc_write", description: "write to a shell start-up file" };
  if (CREDENTIAL_FILE.test(p)) return { key: "credential_file_write", description: "write to a credentials file" };
  if (SYSTEM_PATH.test(p)) return { key: "system_file_write", description: "write to a system file" };
  if (ENV_FILE.test(p)) return { key: "env_file_write", description: "overwrite a project env/config file (.env)" };
  if (isRelative(p) && PROJECT_CONFIG.test(p)) {
    return { key: "project_config_write", description: "overwrite a project env/config file" };
  }
  return null;
}

/** Both spellings of a word: as the shell reads it, and as written with backslashes as separators. */
function spellings(word: Word): string[] {
  const raw = word.raw.replace(/["']/g, "");
  return raw === word.value ? [word.value] : [word.value, raw];
}

const IN_PLACE_EDITORS = new Set(["sed", "gsed", "perl", "ruby"]);
const COPIERS = new Set(["cp", "mv", "install", "ln", "rsync", "scp", "ditto"]);
const WRITERS = new Set(["tee", "truncate", "shred"]);

function editsInPlace(inv: Invocation): boolean {
  return inv.args.some((w) => {
    const v = w.value;
    if (v.startsWith("--in-place")) return true;
    if (inv.name === "sed" || inv.name === "gsed") return /^-[a-zA-Z]*i/.test(v) && !v.startsWith("--");
    return /^-[a-zA-Z]*i/.test(v);
  });
}

/** How a command writes a file; descriptions name it where the original's wording does. */
export type WriteMethod = "redirect" | "tee" | "copy" | "in-place" | "other";

export interface WriteTarget {
  word: Word;
  method: WriteMethod;
}

/** The files this invocation writes to, each with how it writes them. */
export function writeTargetsWithMethod(inv: Invocation): WriteTarget[] {
  const targets: WriteTarget[] = inv.redirects
    .filter((r) => />/.test(r.op) && !r.op.endsWith("&"))
    .map((r) => ({ word: r.target, method: "redirect" }));
  const files = operands(inv.args);
  const add = (method: WriteMethod, ...words: Word[]) => {
    for (const word of words) targets.push({ word, method });
  };
  if (WRITERS.has(inv.name)) add(inv.name === "tee" ? "tee" : "other", ...files);
  if (COPIERS.has(inv.name)) {
    const last = files[files.length - 1];
    if (last && files.length >= 2) add("copy", last);
    const targetDir = inv.args.findIndex((w) => w.value === "-t" || w.value.startsWith("--target-directory"));
    if (targetDir >= 0) {
      const option = inv.args[targetDir]!.value;
      const value = option.includes("=") ? option.slice(option.indexOf("=") + 1) : inv.args[targetDir + 1]?.value;
      if (value) add("copy", { value, raw: value });
    }
  }
  if (IN_PLACE_EDITORS.has(inv.name) && editsInPlace(inv)) add("in-place", ...files);
  if (inv.name === "dd") {
    for (const arg of inv.args) {
      if (arg.value.startsWith("of=")) add("other", { value: arg.value.slice(3), raw: arg.raw.slice(3) });
    }
  }
  return targets;
}

/** The words naming files this invocation writes to. */
export function writeTargets(inv: Invocation): Word[] {
  return writeTargetsWithMethod(inv).map((t) => t.word);
}

/** Descriptions that depend on how the file is written, per key; other keys keep the target's own. */
const BY_METHOD: Record<string, Partial<Record<WriteMethod, string>>> = {
  system_file_write: {
    redirect: "overwrite system config or another system file",
    tee: "write system config or another system file via tee",
    copy: "copy or move a file into system config or another system directory",
    "in-place": "in-place edit of system config or another system file",
  },
  hermes_config_write: {
    "in-place": "in-place edit of Hermes config, auth or .env",
  },
};

/** The first sensitive file this invocation writes to, if any. */
export function sensitiveWrite(inv: Invocation): SensitiveTarget | null {
  for (const { word, method } of writeTargetsWithMethod(inv)) {
    for (const spelling of spellings(word)) {
      const found = classifyWriteTarget(spelling);
      if (found) return { key: found.key, description: BY_METHOD[found.key]?.[method] ?? found.description };
    }
  }
  return null;
}
