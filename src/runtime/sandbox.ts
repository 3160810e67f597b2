/**
 * Which sandbox a runtime's commands get, from `sandbox.*` in config.yaml: `auto` confines
 * unattended runs (API server, gateway, cron, one-shot) when bubblewrap works here and leaves
 * the TUI, where a person approves each dangerous command, unconfined. A mode the user chose
 * explicitly fails closed: without bubblewrap the runtime refuses to start.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HermesConfig } from "../state/config-schema.js";
import { configureSandbox, type SandboxPolicy, secretsToHide } from "../tools/sandbox.js";
import { findExecutable } from "../util/executable.js";
import { UsageError } from "./errors.js";

export interface SandboxChoice {
  /** The mode in force: "off", "workspace-write" or "read-only". */
  mode: string;
  /** Why, for `hermes doctor` and notices. */
  reason: string;
}

export function bwrapOnPath(path = process.env.PATH ?? ""): string | undefined {
  return process.platform === "linux" ? findExecutable("bwrap", path) : undefined;
}

/**
 * Whether bwrap can create a sandbox on this machine. Trying costs ~10 ms, so the answer is
 * kept in HERMES_HOME/cache until the binary changes.
 */
export function bubblewrapWorks(bwrap: string, home: string): boolean {
  const stamp = `${bwrap}:${statSync(bwrap).mtimeMs}`;
  const file = join(home, "cache", "sandbox-probe.json");
  try {
    const cached = JSON.parse(readFileSync(file, "utf8")) as { stamp?: string; ok?: boolean };
    if (cached.stamp === stamp && typeof cached.ok === "boolean") return cached.ok;
  } catch {
    // No answer kept yet.
  }
  const ok =
    spawnSync(bwrap, ["--ro-bind", "/", "/", "--dev", "/dev", "true"], { stdio: "ignore", timeout: 5000 }).status === 0;
  try {
    mkdirSync(join(home, "cache"), { recursive: true });
    writeFileSync(file, JSON.stringify({ stamp, ok }));
  } catch {
    // An unwritable home only means trying again next time.
  }
  return ok;
}

/** A line for `hermes doctor`: what `sandbox.mode` does on this machine. */
export function describeSandbox(
  mode: string,
  home: string,
  path?: string,
): { ok: boolean; essential: boolean; detail: string; hint?: string } {
  if (mode === "off") return { ok: true, essential: false, detail: "sandbox.mode is off: commands run unconfined" };
  const bwrap = bwrapOnPath(path);
  const works = bwrap !== undefined && bubblewrapWorks(bwrap, home);
  const scope = mode === "auto" ? "unattended runs (API server, one-shot) are confined" : `every run is ${mode}`;
  if (works) return { ok: true, essential: false, detail: `bubblewrap at ${bwrap}: ${scope}` };
  return {
    ok: false,
    essential: mode !== "auto",
    detail: bwrap ? `${bwrap} cannot create a sandbox here` : "bubblewrap (bwrap) is not installed",
    hint:
      mode === "auto"
        ? "install bubblewrap (apt install bubblewrap) to confine unattended commands; approvals still apply"
        : `sandbox.mode is ${mode}: hermes refuses to run until bubblewrap works, or set sandbox.mode: off`,
  };
}

/** Run `say` only the first time for this HERMES_HOME (a marker in its cache directory). */
function sayOnce(home: string, say: () => void): void {
  const marker = join(home, "cache", "sandbox-unavailable-noticed");
  try {
    statSync(marker);
    return;
  } catch {
    // Not said yet.
  }
  say();
  try {
    mkdirSync(join(home, "cache"), { recursive: true });
    writeFileSync(marker, "");
  } catch {
    // Said again next time, then.
  }
}

/** Decide the sandbox for this process and apply it to every command from now on. */
export function applySandbox(
  config: HermesConfig,
  input: { home: string; interactive: boolean },
  notice: (message: string) => void,
): SandboxChoice {
  const wanted = config.sandbox.mode;
  if (wanted === "off" || (wanted === "auto" && input.interactive)) {
    configureSandbox(undefined);
    return { mode: "off", reason: wanted === "off" ? "sandbox.mode is off" : "interactive: you approve commands" };
  }
  const bwrap = bwrapOnPath();
  const works = bwrap !== undefined && bubblewrapWorks(bwrap, input.home);
  if (!works) {
    const why = bwrap ? `${bwrap} cannot create a sandbox here` : "bubblewrap (bwrap) is not installed";
    if (wanted !== "auto") {
      throw new UsageError(
        `sandbox.mode is ${wanted}, but ${why}. Install it (Debian/Ubuntu: apt install bubblewrap) or set sandbox.mode: off.`,
      );
    }
    configureSandbox(undefined);
    sayOnce(input.home, () =>
      notice(`${why}: commands run unconfined, guarded by approvals only (apt install bubblewrap to confine them)`),
    );
    return { mode: "off", reason: why };
  }
  const mode = wanted === "auto" ? "workspace-write" : wanted;
  const policy: SandboxPolicy = {
    mode,
    bwrap: bwrap!,
    writableRoots: config.sandbox.writable_roots,
    network: config.sandbox.network === true,
    ...(Array.isArray(config.sandbox.network) ? { allowedHosts: config.sandbox.network } : {}),
    ...secretsToHide(input.home),
  };
  configureSandbox(policy);
  return { mode, reason: `bubblewrap at ${bwrap}` };
}
