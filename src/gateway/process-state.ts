/**
 * What a running gateway leaves in $HERMES_HOME/gateway/: `state.json` (its pid, when it
 * started, where the API server listens, each platform's health), refreshed while it runs and
 * removed when it stops, and `starts.json`, the recent start times the restart-loop guard reads.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { atomicWriteFile } from "../util/atomic-write.js";
import type { AdapterHealth } from "./types.js";

export interface GatewayProcessState {
  pid: number;
  startedAt: number;
  updatedAt: number;
  apiServer: string | null;
  platforms: Record<string, AdapterHealth>;
}

export function gatewayDir(home: string): string {
  return join(home, "gateway");
}

const statePath = (home: string) => join(gatewayDir(home), "state.json");
const startsPath = (home: string) => join(gatewayDir(home), "starts.json");

export function writeProcessState(home: string, state: GatewayProcessState): void {
  mkdirSync(gatewayDir(home), { recursive: true, mode: 0o700 });
  atomicWriteFile(statePath(home), `${JSON.stringify(state, null, 2)}\n`);
}

export function readProcessState(home: string): GatewayProcessState | undefined {
  try {
    return JSON.parse(readFileSync(statePath(home), "utf8")) as GatewayProcessState;
  } catch {
    return undefined;
  }
}

/** Removes the state file, but only if it still describes this process. */
export function clearProcessState(home: string, pid = process.pid): void {
  if (readProcessState(home)?.pid === pid) rmSync(statePath(home), { force: true });
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Records this start and says whether the gateway has started too often lately: `max` starts
 * within `windowMs` (the current one included) mean something crashes it on start.
 */
export function checkRestartLoop(home: string, max: number, windowMs: number, now = Date.now()): string | undefined {
  mkdirSync(gatewayDir(home), { recursive: true, mode: 0o700 });
  let starts: number[] = [];
  if (existsSync(startsPath(home))) {
    try {
      const parsed = JSON.parse(readFileSync(startsPath(home), "utf8")) as unknown;
      if (Array.isArray(parsed)) starts = parsed.filter((t): t is number => typeof t === "number");
    } catch {
      // A damaged record starts over.
    }
  }
  starts = [...starts.filter((t) => now - t < windowMs), now];
  atomicWriteFile(startsPath(home), JSON.stringify(starts));
  if (starts.length <= max) return undefined;
  return (
    `the gateway started ${starts.length} times in the last ${Math.round(windowMs / 1000)} s, so something stops it ` +
    "right after it starts; not starting again. Read `hermes logs --gateway`, fix the cause, then run " +
    "`hermes gateway run --force` (or wait a minute)."
  );
}
