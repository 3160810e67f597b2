/**
 * `hermes gateway run` processes serving the `bus` test platform (fixtures/bus-platform) on one
 * PostgreSQL database: each gets a home of its own, as replicas on separate machines would.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface BusReplicaOptions {
  name: string;
  home: string;
  databaseUrl: string;
  modelUrl: string;
  busUrl: string;
  env?: Record<string, string>;
}

export function startBusReplica(options: BusReplicaOptions): ChildProcess {
  const { name, home } = options;
  writeFileSync(
    join(home, "config.yaml"),
    // Queue, not the default interrupt: a message reaching a replica busy with its chat's earlier
    // one waits for it instead of cutting it short, so every message gets an answer of its own.
    `model:\n  default: m\n  provider: custom\n  base_url: ${options.modelUrl}/v1\nstore:\n  backend: postgres\n  postgres_url: ${options.databaseUrl}\ngateway:\n  busy_input_mode: queue\n`,
  );
  mkdirSync(join(home, "plugins"), { recursive: true });
  cpSync(join(import.meta.dirname, "fixtures", "bus-platform"), join(home, "plugins", "bus"), { recursive: true });
  // BENCH_CHILD_ARGS: Node flags for the replicas (`--cpu-prof`), as the API server bench takes.
  const nodeArgs = process.env.BENCH_CHILD_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, "dist/cli/main.js", "gateway", "run"], {
    env: {
      ...process.env,
      HERMES_HOME: home,
      OPENROUTER_API_KEY: "",
      BUS_FEED_URL: options.busUrl,
      BUS_REPLICA: name,
      GATEWAY_ALLOW_ALL_USERS: "true",
      ...options.env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.once("exit", (code, signal) => {
    if (signal !== "SIGKILL" && signal !== "SIGTERM" && code !== 0) {
      console.error(`replica ${name} exited ${code ?? signal}: ${stderr}`);
    }
  });
  return child;
}

/** SIGTERM to every child still running; resolves when they have exited. */
export async function stopChildren(children: Iterable<ChildProcess>): Promise<void> {
  await Promise.all(
    [...children]
      .filter((child) => child.exitCode === null && child.signalCode === null)
      .map((child) => {
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        return exited;
      }),
  );
}
