/**
 * Destructive commands spelled in ways the main rules do not read: through a multi-call binary
 * (`busybox rm -rf`), a wildcard delete, /dev/null copied or linked over a file, a recursive
 * permission wipe, `rsync --delete`, `sed -i d`, `crontab -r`, or Docker removals.
 */
import type { Word } from "../../util/shell-words.js";
import { type CommandAnalysis, type Invocation, operands } from "./command-analysis.js";

export interface DestructiveFinding {
  key: string;
  description: string;
}

const values = (words: Word[]) => words.map((w) => w.value);
const MULTI_CALL = new Set(["busybox", "toybox"]);
const RECURSIVE_FLAG = /^(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)$/;

function multiCallDelete(inv: Invocation): boolean {
  if (!MULTI_CALL.has(inv.name)) return false;
  const [applet, ...rest] = values(inv.args);
  return (
    (applet === "rm" || applet === "rmdir" || applet === "shred") &&
    (applet !== "rm" || rest.some((v) => RECURSIVE_FLAG.test(v)))
  );
}

/** `rm ./dir/*`: every file a pattern matches, sight unseen. */
function wildcardDelete(inv: Invocation): boolean {
  return inv.name === "rm" && operands(inv.args).some((w) => /[*?]/.test(w.value) && !/["'\\]/.test(w.raw));
}

/** /dev/null copied, linked or installed over a file, or cat'ed into one. */
function nullOverFile(inv: Invocation): boolean {
  const ops = values(operands(inv.args));
  if ((inv.name === "cp" || inv.name === "ln" || inv.name === "install") && ops.length >= 2) {
    return ops.slice(0, -1).includes("/dev/null");
  }
  if (inv.name === "tee") return inv.redirects.some((r) => r.op === "<" && r.target.value === "/dev/null");
  return (
    inv.name === "cat" &&
    ops.length > 0 &&
    ops.every((v) => v === "/dev/null") &&
    inv.redirects.some((r) => r.op === ">")
  );
}

function recursivePermissionWipe(inv: Invocation): boolean {
  const args = values(inv.args);
  if (!args.some((v) => RECURSIVE_FLAG.test(v))) return false;
  if (inv.name === "chown" || inv.name === "chgrp") return true;
  return inv.name === "chmod" && args.some((v) => /^0*0{3}$/.test(v) || /^[ugoa]*-[st]*[rwxX][rwxXst]*$/.test(v));
}

function rsyncDelete(inv: Invocation): boolean {
  return inv.name === "rsync" && values(inv.args).some((v) => /^--(?:delete|del\b|remove-source-files)/.test(v));
}

/** `sed -i d file` and the like: an in-place edit whose script deletes every line. */
function sedEmptiesFile(inv: Invocation): boolean {
  if (inv.name !== "sed") return false;
  const args = values(inv.args);
  return (
    args.some((v) => /^-[a-zA-Z]*i/.test(v) || v.startsWith("--in-place")) &&
    args.some((v) => /^(?:1,\$)?d$/.test(v.trim()))
  );
}

function crontabRemove(inv: Invocation): boolean {
  return inv.name === "crontab" && values(inv.args).some((v) => /^-[a-zA-Z]*r/.test(v));
}

function dockerRemove(inv: Invocation): boolean {
  if (inv.name !== "docker" && inv.name !== "podman") return false;
  const args = values(inv.args).map((v) => v.toLowerCase());
  const force = args.some((v) => /^-[a-z]*f[a-z]*$/.test(v) || v === "--force");
  if ((args[0] === "rm" || args[0] === "rmi") && force) return true;
  if (args[0] === "system" && args[1] === "prune") return true;
  return (
    (args[0] === "volume" || args[0] === "container" || args[0] === "image") &&
    (args[1] === "rm" || args[1] === "prune")
  );
}

const CHECKS: Array<[string, string, (inv: Invocation) => boolean]> = [
  ["recursive_delete", "recursive delete through a multi-call binary (busybox/toybox)", multiCallDelete],
  ["wildcard_delete", "delete every file a wildcard matches", wildcardDelete],
  ["destroy_file_contents", "/dev/null written over a file", nullOverFile],
  ["recursive_permission_change", "recursive ownership change or permission wipe", recursivePermissionWipe],
  ["rsync_delete", "rsync deleting files at the destination", rsyncDelete],
  ["destroy_file_contents", "an in-place sed that deletes every line", sedEmptiesFile],
  ["crontab_remove", "remove every cron job (crontab -r)", crontabRemove],
  ["docker_remove", "force-remove Docker containers, images or volumes", dockerRemove],
];

export function destructiveFinding(analysis: CommandAnalysis): DestructiveFinding | null {
  for (const inv of analysis.invocations) {
    for (const [key, description, test] of CHECKS) if (test(inv)) return { key, description };
  }
  return null;
}
