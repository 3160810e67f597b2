/**
 * Runs the fake provider as a process for demos and benchmarks:
 *   npm run fake-provider -- [--port N] [--host H] [--script turns.json]
 * The script file holds a JSON array of scripted turns; without one every request gets "ok".
 * The first stdout line is `fake provider listening on <url>`; SIGINT or SIGTERM stops it.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startFakeProvider } from "./server.js";
import type { ScriptedTurn } from "./types.js";

function fail(message: string): never {
  process.stderr.write(`fake-provider: ${message}\n`);
  process.exit(2);
}

function readScript(file: string): ScriptedTurn[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    fail(`cannot read script ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!Array.isArray(parsed)) fail(`script ${file} must hold a JSON array of turns`);
  return parsed as ScriptedTurn[];
}

async function main(): Promise<void> {
  let values: { port?: string; host?: string; script?: string };
  try {
    ({ values } = parseArgs({
      options: { port: { type: "string" }, host: { type: "string" }, script: { type: "string" } },
    }));
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be 0..65535, got ${values.port}`);
  const script = values.script === undefined ? [] : readScript(values.script);
  const fake = await startFakeProvider({ port, host: values.host ?? "127.0.0.1", script });
  process.stdout.write(`fake provider listening on ${fake.url}\n`);
  const stop = () => {
    fake.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

await main();
