/**
 * The process's log: `agent.log` (everything at or above the configured level), `errors.log`
 * (warnings and errors) and `gateway.log` (the messaging gateway's own lines) in one directory, rotated by size, every line redacted. Until a surface
 * calls `configureLog`, logging costs one branch. Lines are buffered and written together at most
 * every FLUSH_MS, and at exit, so a busy server does not pay an open, write and close per line.
 *
 * Line format: `2026-11-24T02:40:00.123Z INFO  llm reply provider=custom model=m ms=812`
 * (ISO time, level, component, message, then key=value fields; values with spaces are quoted).
 */
import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { redactSecrets } from "./redact.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, string | number | boolean | null | undefined>;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogOptions {
  level?: LogLevel;
  /** Rotate a file once it would grow past this many bytes (default 5 MB). */
  maxBytes?: number;
  /** Rotated files kept: agent.log.1 … agent.log.N (default 3). */
  backups?: number;
  /** Also hand every line to this (the CLI's -v mirrors to stderr). */
  mirror?: (line: string) => void;
}

interface Target {
  path: string;
  pending: string[];
}

let active:
  | { dir: string; level: number; maxBytes: number; backups: number; mirror?: (line: string) => void }
  | undefined;
const targets: { all: Target; errors: Target; gateway: Target } = {
  all: { path: "", pending: [] },
  errors: { path: "", pending: [] },
  gateway: { path: "", pending: [] },
};
let flushScheduled = false;
const FLUSH_MS = 50;
let exitHooked = false;

function quote(value: string): string {
  return /[\s"=]/.test(value) || value === "" ? JSON.stringify(value) : value;
}

export function formatLogLine(level: LogLevel, component: string, message: string, fields: LogFields = {}): string {
  const parts = [new Date().toISOString(), level.toUpperCase().padEnd(5), component, message];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    parts.push(`${key}=${quote(String(value))}`);
  }
  return redactSecrets(parts.join(" ").replace(/[\r\n]+/g, " "));
}

/** Start logging into `dir` (created 0700; files 0600). Calling it again changes the options. */
export function configureLog(dir: string, options: LogOptions = {}): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  active = {
    dir,
    level: RANK[options.level ?? "info"],
    maxBytes: Math.max(1024, options.maxBytes ?? 5 * 1024 * 1024),
    backups: Math.max(0, options.backups ?? 3),
    ...(options.mirror ? { mirror: options.mirror } : {}),
  };
  targets.all.path = join(dir, "agent.log");
  targets.errors.path = join(dir, "errors.log");
  targets.gateway.path = join(dir, "gateway.log");
  if (!exitHooked) {
    exitHooked = true;
    process.on("exit", flushLog);
  }
}

/** Stop logging (tests, and a runtime that closes); pending lines are written first. */
export function stopLog(): void {
  flushLog();
  active = undefined;
}

export function logEnabled(level: LogLevel = "info"): boolean {
  return active !== undefined && RANK[level] >= active.level;
}

export function log(level: LogLevel, component: string, message: string, fields?: LogFields): void {
  if (!active || RANK[level] < active.level) return;
  const line = formatLogLine(level, component, message, fields);
  targets.all.pending.push(line);
  if (RANK[level] >= RANK.warn) targets.errors.pending.push(line);
  if (component === "gateway") targets.gateway.pending.push(line);
  active.mirror?.(line);
  if (!flushScheduled) {
    flushScheduled = true;
    setTimeout(flushLog, FLUSH_MS).unref();
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** agent.log → agent.log.1 → … → agent.log.N (the oldest is dropped). */
function rotate(path: string, backups: number): void {
  if (backups === 0) {
    rmSync(path, { force: true });
    return;
  }
  rmSync(`${path}.${backups}`, { force: true });
  for (let n = backups - 1; n >= 1; n--) {
    try {
      renameSync(`${path}.${n}`, `${path}.${n + 1}`);
    } catch {
      // That generation does not exist yet.
    }
  }
  try {
    renameSync(path, `${path}.1`);
  } catch {
    // Nothing to rotate.
  }
}

function writeTarget(target: Target): void {
  if (!active || target.pending.length === 0) return;
  const text = `${target.pending.join("\n")}\n`;
  target.pending = [];
  const bytes = Buffer.byteLength(text);
  const existing = sizeOf(target.path);
  if (existing > 0 && existing + bytes > active.maxBytes) rotate(target.path, active.backups);
  try {
    appendFileSync(target.path, text, { mode: 0o600 });
    if (existing === 0) chmodSync(target.path, 0o600);
  } catch {
    // A log that cannot be written must never take the agent down.
  }
}

export function flushLog(): void {
  flushScheduled = false;
  writeTarget(targets.all);
  writeTarget(targets.errors);
  writeTarget(targets.gateway);
}
