/** Runs a Node child process (the CLI, usually) and collects its exit code and output. */
import { spawn } from "node:child_process";

export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunNodeOptions {
  env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed (default: closed at once). */
  stdin?: string;
}

/** `node <args>` in this directory; asynchronous, so a fake provider in this process can answer it. */
export function runNode(args: string[], options: RunNodeOptions = {}): Promise<NodeRun> {
  const child = spawn(process.execPath, args, { env: options.env ?? process.env, cwd: process.cwd() });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  child.stdin.end(options.stdin ?? "");
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
