/** Runs a snippet of module code in a child `node --import tsx` (another process on the same files) and returns its stdout. */
import { spawn } from "node:child_process";

export function runModuleWorker(code: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code, ...args]);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(err))));
  });
}
