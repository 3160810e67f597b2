/**
 * The real TUI in a tmux pane (120x40) on its own tmux server: start `hermes` against a fake
 * provider, type, press keys, and poll the screen until the expected text shows or a deadline
 * passes.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";

export class TmuxServer {
  readonly socket = `hermes-tui-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  /** Fails with how to install tmux when it is missing. */
  static require(): TmuxServer {
    const found = spawnSync("tmux", ["-V"], { encoding: "utf8" });
    if (found.error || found.status !== 0) {
      throw new Error("the TUI tests need tmux on PATH (Debian/Ubuntu: apt-get install -y tmux)");
    }
    return new TmuxServer();
  }

  run(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  /** `hermes` with these arguments and HERMES_HOME; the pane stays open after it exits. */
  startHermes(name: string, home: string, args: string[]): Pane {
    const hermes = [process.execPath, "--import", "tsx", "src/cli/main.ts", ...args].join(" ");
    const command = `env HERMES_HOME=${home} HERMES_YOLO_MODE= NO_COLOR=1 ${hermes}; echo HERMES-EXITED-$?; sleep 600`;
    this.run("new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", process.cwd(), command);
    return new Pane(this, name);
  }

  close(): void {
    spawnSync("tmux", ["-L", this.socket, "kill-server"]);
  }
}

export class Pane {
  constructor(
    private readonly server: TmuxServer,
    readonly name: string,
  ) {}

  screen(): string {
    return this.server.run("capture-pane", "-p", "-t", this.name);
  }

  /** The screen with everything scrolled off above it. */
  scrollback(): string {
    return this.server.run("capture-pane", "-p", "-S", "-", "-t", this.name);
  }

  type(text: string): void {
    this.server.run("send-keys", "-t", this.name, "-l", text);
  }

  keys(...keys: string[]): void {
    this.server.run("send-keys", "-t", this.name, ...keys);
  }

  /** Types a line and presses Enter. */
  enter(text: string): void {
    this.type(text);
    this.keys("Enter");
  }

  /** Poll the screen until `pattern` shows, or fail with the screen as it was. */
  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    while (Date.now() < deadline) {
      screen = this.screen();
      if (pattern.test(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`timed out waiting for ${pattern} on screen:\n${screen}`);
  }
}
