/**
 * Windows commands that need approval: deletes run through `cmd /c` or PowerShell, PowerShell
 * running a command string or a script file, and the native tools that kill processes, wipe
 * disks, open up ACLs, drop backups, change boot settings, delete registry keys or stop services.
 * Each asks only with its destructive verb or flag, so `taskkill /IM app.exe` or `reg query` run.
 */
import type { Invocation } from "./command-analysis.js";
import { forProgram, type Rule, textMatches, values } from "./rule-helpers.js";

const lowerArgs = (inv: Invocation) => values(inv.args).map((v) => v.toLowerCase());
const CMD_DELETES = new Set(["del", "erase", "rd", "rmdir"]);

/** `cmd /c del ...`, `cmd.exe /k rmdir /s ...`: any delete built-in after /c or /k. */
function cmdDeletes(inv: Invocation): boolean {
  const args = lowerArgs(inv);
  const at = args.findIndex((a) => a === "/c" || a === "/k");
  return at >= 0 && args.slice(at + 1).some((a) => a.split(/\s+/).some((word) => CMD_DELETES.has(word)));
}

/**
 * PowerShell whose first word after its switches is a delete verb: PowerShell runs a bare
 * argument as a command, so `powershell ri -Recurse C:\x` needs no -Command. A script path such
 * as `-File C:\del-logs\run.ps1` does not start with a verb.
 */
function powerShellDeletes(inv: Invocation): boolean {
  const first = lowerArgs(inv).find((a) => !a.startsWith("-"));
  return first !== undefined && /^(?:remove-item|rmdir|erase|del|rd|ri|rm)\b/.test(first);
}

function powerShellRunsCode(inv: Invocation): boolean {
  return lowerArgs(inv).some((a) => {
    if (!a.startsWith("-") || a.length < 2) return false;
    const option = a.slice(1);
    return (
      option === "c" ||
      option === "f" ||
      ("command".startsWith(option) && option.length >= 3) ||
      ("file".startsWith(option) && option.length >= 2)
    );
  });
}

const hasSwitch = (inv: Invocation, pattern: RegExp) => lowerArgs(inv).some((a) => pattern.test(a));
const FORCE = /^-force(?::\$true)?$/;

export const WINDOWS_DELETE_RULES: Rule[] = [
  forProgram("windows_cmd_delete", "Windows cmd destructive delete", ["cmd"], cmdDeletes),
  forProgram(
    "windows_powershell_delete",
    "Windows PowerShell destructive delete",
    ["powershell", "pwsh"],
    powerShellDeletes,
  ),
];

export const WINDOWS_RULES: Rule[] = [
  forProgram(
    "powershell_command_or_file",
    "PowerShell running a command string or script file (-Command/-File)",
    ["powershell", "pwsh"],
    powerShellRunsCode,
  ),
  forProgram(
    "windows_force_kill",
    "force-kill processes (taskkill /F, Stop-Process -Force)",
    ["taskkill", "stop-process"],
    (inv) => hasSwitch(inv, inv.name === "taskkill" ? /^\/f$/ : FORCE),
  ),
  forProgram(
    "windows_disk_wipe",
    "format or wipe a disk (Format-Volume, Clear-Disk, diskpart, format, cipher /w)",
    ["format-volume", "clear-disk", "diskpart", "format", "cipher"],
    (inv) => {
      if (inv.name === "format") return /^[a-z]:/.test(lowerArgs(inv)[0] ?? "");
      if (inv.name === "cipher") return hasSwitch(inv, /^\/w(?::|$)/);
      return true;
    },
  ),
  forProgram("windows_acl_change", "grant Everyone access or reset ACLs (icacls)", ["icacls"], (inv) => {
    const args = lowerArgs(inv);
    if (args.includes("/reset")) return true;
    const grant = args.findIndex((a) => a.startsWith("/grant"));
    return grant >= 0 && args.slice(grant + 1).some((a) => /^(?:everyone|todos|jeder|\*s-1-1-0)(?::|$)/.test(a));
  }),
  forProgram(
    "windows_backup_delete",
    "delete shadow copies or backups (vssadmin, wbadmin)",
    ["vssadmin", "wbadmin"],
    (inv) => {
      const args = lowerArgs(inv);
      const at = args.indexOf("delete");
      return at >= 0 && (inv.name === "wbadmin" || args[at + 1] === "shadows");
    },
  ),
  forProgram("windows_boot_config", "change boot configuration (bcdedit /set)", ["bcdedit"], (inv) =>
    hasSwitch(inv, /^\/set$/),
  ),
  forProgram(
    "windows_registry_delete",
    "delete registry keys or values (reg delete, Remove-ItemProperty -Force)",
    ["reg", "remove-itemproperty"],
    (inv) => (inv.name === "reg" ? lowerArgs(inv)[0] === "delete" : hasSwitch(inv, FORCE)),
  ),
  forProgram(
    "windows_service_stop",
    "stop or delete a Windows service (sc, Stop-Service -Force)",
    ["sc", "stop-service"],
    (inv) => (inv.name === "sc" ? /^(?:stop|delete)$/.test(lowerArgs(inv)[0] ?? "") : hasSwitch(inv, FORCE)),
  ),
  textMatches(
    "download_pipe_shell",
    "run downloaded content in a shell or interpreter",
    ["iex", "invoke-expression"],
    /\b(?:iex|invoke-expression)\s*\(\s*(?:iwr|invoke-webrequest|invoke-restmethod|irm)\b/,
  ),
  textMatches(
    "windows_secret_access",
    "access SSH keys or Hermes secrets through a Windows path",
    ["users", "appdata"],
    /\busers[\\/][^\\/\s]+[\\/]\.ssh\b|\bappdata[\\/](?:local|roaming)[\\/]hermes[^\n]*\.env\b/,
  ),
];
