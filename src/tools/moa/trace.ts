/**
 * `moa.save_traces`: each run's prompt, answers and errors as one JSON file, readable by its
 * owner only, with secrets masked (a prompt or an answer may quote a key).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nodeCrypto } from "../../util/node-crypto.js";
import { redactObject } from "../../util/redact.js";
import type { MoaRun } from "./run.js";

/** Writes the trace of `run` under `dir` (created if missing) and returns the file's path. */
export function writeMoaTrace(dir: string, run: MoaRun, now: Date = new Date()): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  const file = join(dir, `moa_${stamp}_${nodeCrypto().randomBytes(4).toString("hex")}.json`);
  const record = redactObject({ timestamp: now.toISOString(), success: run.answer !== undefined, ...run });
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  return file;
}
