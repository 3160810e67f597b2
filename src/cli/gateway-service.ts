/**
 * The gateway as a background service: `start` and `stop` (a detached `hermes gateway run`, or
 * the systemd user unit once installed), `status` from the running gateway's state.json, and
 * `install` / `uninstall` of a systemd user unit (a launchd agent on macOS).
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, platform } from "node:os";
import { dirname, join } from "node:path";
import { type GatewayProcessState, processAlive, readProcessState } from "../gateway/process-state.js";
import { hermesHome } from "../state/paths.js";
import { EXIT } from "./exit-codes.js";

type Out = (line: string) => void;

const UNIT = "hermes-gateway.service";
const LAUNCHD_LABEL = "ai.hermes.gateway";

export function systemdUnitPath(): string {
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), ".config"), "systemd", "user", UNIT);
}

export function launchdPlistPath(): string {
  return join(homedir(), "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
}

/** The running gateway of this HERMES_HOME, if its process is alive. */
export function runningGateway(home = hermesHome()): GatewayProcessState | undefined {
  const state = readProcessState(home);
  return state && processAlive(state.pid) ? state : undefined;
}

function entryScript(): string {
  return process.argv[1] ?? join(process.cwd(), "dist", "cli", "main.js");
}

function describeHealth(state: GatewayProcessState): string[] {
  const lines = [`running (pid ${state.pid}) since ${new Date(state.startedAt).toISOString()}`];
  if (state.apiServer) lines.push(`  API server: ${state.apiServer}`);
  for (const [name, health] of Object.entries(state.platforms)) {
    const detail = health.state === "reconnecting" ? ` (attempt ${health.attempt}: ${health.lastError})` : "";
    lines.push(`  ${name}: ${health.state}${detail}`);
  }
  const age = Date.now() - state.updatedAt;
  if (age > 30_000) lines.push(`  (last report ${Math.round(age / 1000)} s ago: the process may be stuck)`);
  return lines;
}

export function gatewayStatus(out: Out): number {
  const state = runningGateway();
  if (!state) {
    out("not running");
    return EXIT.error;
  }
  for (const line of describeHealth(state)) out(line);
  return EXIT.ok;
}

function systemdAvailable(): boolean {
  return (
    platform() === "linux" &&
    existsSync(systemdUnitPath()) &&
    spawnSync("systemctl", ["--user", "--version"]).status === 0
  );
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

export async function startGateway(out: Out, options: { timeoutMs?: number } = {}): Promise<number> {
  const home = hermesHome();
  const running = runningGateway(home);
  if (running) {
    out(`already running (pid ${running.pid})`);
    return EXIT.ok;
  }
  if (systemdAvailable()) {
    const result = spawnSync("systemctl", ["--user", "start", UNIT], { encoding: "utf8" });
    out(result.status === 0 ? `started ${UNIT}` : `systemctl failed: ${result.stderr.trim()}`);
    return result.status === 0 ? EXIT.ok : EXIT.error;
  }
  const logs = join(home, "logs");
  mkdirSync(logs, { recursive: true, mode: 0o700 });
  const outputPath = join(logs, "gateway.out");
  const output = openSync(outputPath, "a", 0o600);
  const child = spawn(process.execPath, [entryScript(), "gateway", "run"], {
    detached: true,
    stdio: ["ignore", output, output],
    env: process.env,
  });
  closeSync(output);
  let exitCode: number | null | undefined;
  child.once("exit", (code) => {
    exitCode = code;
  });
  child.unref();
  const up = await waitFor(
    () => exitCode !== undefined || readProcessState(home)?.pid === child.pid,
    options.timeoutMs ?? 20_000,
  );
  if (up && exitCode === undefined) {
    out(`started (pid ${child.pid}); output goes to ${outputPath}`);
    return EXIT.ok;
  }
  const tail = existsSync(outputPath) ? readFileSync(outputPath, "utf8").trim().split("\n").slice(-5).join("\n") : "";
  out(`the gateway did not start${exitCode !== undefined ? ` (exit code ${exitCode})` : ""}:\n${tail}`);
  return EXIT.error;
}

export async function stopGateway(out: Out, options: { timeoutMs?: number } = {}): Promise<number> {
  if (systemdAvailable()) {
    const result = spawnSync("systemctl", ["--user", "stop", UNIT], { encoding: "utf8" });
    out(result.status === 0 ? `stopped ${UNIT}` : `systemctl failed: ${result.stderr.trim()}`);
    return result.status === 0 ? EXIT.ok : EXIT.error;
  }
  const state = runningGateway();
  if (!state) {
    out("not running");
    return EXIT.ok;
  }
  process.kill(state.pid, "SIGTERM");
  if (await waitFor(() => !processAlive(state.pid), options.timeoutMs ?? 60_000)) {
    out(`stopped (pid ${state.pid})`);
    return EXIT.ok;
  }
  out(`pid ${state.pid} is still running (draining?); run hermes gateway stop again, or kill ${state.pid}`);
  return EXIT.error;
}

function systemdUnit(): string {
  const home = hermesHome();
  return [
    "[Unit]",
    "Description=Hermes Agent gateway (messaging platforms, webhooks, API server)",
    "After=network-online.target",
    "",
    "[Service]",
    `ExecStart=${process.execPath} ${entryScript()} gateway run`,
    `Environment=HERMES_HOME=${home}`,
    "Restart=on-failure",
    "RestartSec=5",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

function launchdPlist(): string {
  const args = [process.execPath, entryScript(), "gateway", "run"].map((a) => `    <string>${a}</string>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0"><dict>',
    `  <key>Label</key><string>${LAUNCHD_LABEL}</string>`,
    "  <key>ProgramArguments</key><array>",
    ...args,
    "  </array>",
    `  <key>EnvironmentVariables</key><dict><key>HERMES_HOME</key><string>${hermesHome()}</string></dict>`,
    "  <key>KeepAlive</key><true/>",
    "</dict></plist>",
    "",
  ].join("\n");
}

export function installService(out: Out): number {
  if (platform() === "darwin") {
    const path = launchdPlistPath();
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, launchdPlist());
    out(`wrote ${path}\nload it with: launchctl load -w ${path}`);
    return EXIT.ok;
  }
  const path = systemdUnitPath();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, systemdUnit());
  out(`wrote ${path}\nenable it with: systemctl --user daemon-reload && systemctl --user enable --now ${UNIT}`);
  out("(to keep it running after you log out: loginctl enable-linger $USER)");
  return EXIT.ok;
}

export function uninstallService(out: Out): number {
  const path = platform() === "darwin" ? launchdPlistPath() : systemdUnitPath();
  if (!existsSync(path)) {
    out(`nothing installed at ${path}`);
    return EXIT.ok;
  }
  if (platform() !== "darwin") spawnSync("systemctl", ["--user", "disable", "--now", UNIT]);
  rmSync(path);
  out(`removed ${path}`);
  return EXIT.ok;
}
