/**
 * Starting and stopping the local browser: headless Chromium with a fresh profile in a temp
 * directory (never the user's own), reached over its debugging pipe, in a process group of its
 * own so closing it ends its helper processes too. The profile is removed when it closes, and at
 * the latest when this process exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { CdpConnection } from "./cdp.js";
import { pipeTransport } from "./transport.js";

export const WINDOW_WIDTH = 1280;
export const WINDOW_HEIGHT = 800;
const STDERR_TAIL_CHARS = 2000;

/** What the browser inherits of our environment: nothing secret, and no config of the user's. */
const PASSED_ENV = /^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|LC_[A-Z_]+|TZ|TMPDIR|FONTCONFIG_PATH|FONTCONFIG_FILE)$/;

export interface BrowserExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LaunchedBrowser {
  connection: CdpConnection;
  pid: number;
  /** Resolves when the browser process has exited, for whatever reason. */
  exited: Promise<BrowserExit>;
  /** Asks the browser to close, kills it if it does not, and removes its profile. */
  close(): Promise<void>;
}

export function browserArgs(profileDir: string): string[] {
  const args = [
    "--headless=new",
    "--remote-debugging-pipe",
    `--user-data-dir=${profileDir}`,
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    `--window-size=${WINDOW_WIDTH},${WINDOW_HEIGHT}`,
    // No calls home: component updates, sync, field trials, metrics.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--password-store=basic",
    "--use-mock-keychain",
    "--mute-audio",
    // Containers often have a tiny /dev/shm; Chromium then crashes on heavy pages.
    "--disable-dev-shm-usage",
  ];
  // Chromium refuses to start as root with its sandbox on; there is no user namespace to drop to.
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  args.push("about:blank");
  return args;
}

function browserEnv(profileDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (PASSED_ENV.test(key)) env[key] = value;
  env.XDG_CONFIG_HOME = join(profileDir, "config");
  env.XDG_CACHE_HOME = join(profileDir, "cache");
  return env;
}

/** Kills the browser and its helpers (renderers, the zygote), which share its process group. */
function killGroup(child: ChildProcess): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is gone already.
  }
}

function removeProfile(profileDir: string): void {
  rmSync(profileDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
}

export async function launchBrowser(binary: string, timeoutMs: number): Promise<LaunchedBrowser> {
  const profileDir = mkdtempSync(join(tmpdir(), "hermes-browser-"));
  const child = spawn(binary, browserArgs(profileDir), {
    stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    env: browserEnv(profileDir),
    detached: true,
  });
  let stderrTail = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
  });
  const onProcessExit = () => {
    killGroup(child);
    removeProfile(profileDir);
  };
  process.on("exit", onProcessExit);
  const exited = new Promise<BrowserExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: null, signal: null }));
  });
  void exited.then(() => process.off("exit", onProcessExit));
  const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));

  const connection = new CdpConnection(
    pipeTransport(child.stdio[3] as Writable, child.stdio[4] as Readable),
    timeoutMs,
  );
  let closing: Promise<void> | undefined;
  // The profile is thrown away, so there is nothing to shut down gracefully for.
  const close = () => {
    closing ??= (async () => {
      killGroup(child);
      await exited;
      killGroup(child);
      connection.close();
      removeProfile(profileDir);
    })();
    return closing;
  };

  const ready = connection.send("Browser.getVersion", {}, { timeoutMs });
  const failed = Promise.race([
    exited.then((exit) => new Error(`the browser exited at start (${describeExit(exit)})`)),
    spawnError,
  ]);
  const outcome = await Promise.race([
    ready.then(
      () => null,
      (error: Error) => error,
    ),
    failed,
  ]);
  if (outcome) {
    await close();
    const tail = stderrTail.trim().split("\n").slice(-3).join(" | ");
    throw new Error(`Could not start ${binary}: ${outcome.message}${tail ? `. Its last output: ${tail}` : ""}`);
  }
  return { connection, pid: child.pid!, exited, close };
}

export function describeExit(exit: BrowserExit): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  if (exit.code !== null) return `exit code ${exit.code}`;
  return "it could not be run";
}
